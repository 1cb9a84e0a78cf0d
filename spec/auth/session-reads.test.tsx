import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formSignIn, InMemoryUsers, seedUser, type UserFields } from "../../runtime/auth/index.js";
import { SessionCodec } from "../../runtime/http/session-codec.js";
import { withReserved } from "../../runtime/http/session.js";
import { assembleTable, NotFound, Ok, Redirect, Route, Secret, ServiceUnavailable, type Layout, type Request } from "../../runtime/index.js";
import { serve, TEST_SECRET, type Served } from "../support/serve.js";
import { Browser, PASSWORD } from "./client.js";

/**
 * Issue 28, items 5 and 7: whom the layout shows is whom the guard lets in, read from the users
 * store once per request; the session cookie keeps only what the guard needs. Black-box: a
 * hand-written table with fw/auth's form sign-in, served.
 */

/** Users counting how often a request's session is checked against them; `down` makes the check fail as a lost database does. */
class CountedUsers extends InMemoryUsers {
  checks = 0;
  down = false;

  override async byIdUnlessRevoked(id: number, sessionId: string): Promise<UserFields | undefined> {
    this.checks++;
    if (this.down) throw new ServiceUnavailable("The database is not answering.");
    return super.byIdUnlessRevoked(id, sessionId);
  }
}

const users = new CountedUsers();
const auth = formSignIn({ users });
const guarded = auth.guarded();

/** Names whom `auth.userOf` says is signed in, on every page (error pages included). */
const layout: Layout = async ({ title, content, request }) => (
  <html>
    <head>
      <title>{title ?? "sessions"}</title>
    </head>
    <body>
      <p id="who">{(await auth.userOf(request))?.email ?? "signed out"}</p>
      {content}
    </body>
  </html>
);

const routes = assembleTable(
  [guarded],
  [
    Route.get("/", () => Ok(<p>home</p>)),
    // A public page asking who is looking, as the example's /posts does.
    Route.get("/viewer", async (request: Request) => Ok(<p>viewer {(await auth.identify(request)).currentUser ?? "nobody"}</p>)),
    guarded.through(Route.get("/mine", async (request: Request) => Ok(<p>mine: {(await auth.currentUser(request))?.email}</p>))),
    guarded.through(
      Route.get("/gone", () => {
        throw new NotFound("No such page.");
      }),
    ),
    guarded.through(Route.post("/everywhere", async (request: Request) => {
      await auth.logoutEverywhere(Number(request.currentUser));
      return Redirect("/");
    })),
  ],
);

const ANN = "ann@example.com";
const codec = new SessionCodec([new Secret(TEST_SECRET)], 14 * 24 * 60 * 60_000);
let app: Served;

beforeAll(async () => {
  app = await serve({ routes, layout });
  await seedUser(users, ANN, PASSWORD);
});
afterAll(async () => {
  await app.close();
});

async function signedIn(): Promise<Browser> {
  const browser = new Browser(app.url);
  expect((await browser.signIn(ANN, PASSWORD)).status).toBe(303);
  return browser;
}

/** A browser holding `cookie` (a copy of another's, or one made by hand). */
function holding(cookie: string | undefined): Browser {
  const browser = new Browser(app.url);
  browser.cookie = cookie;
  return browser;
}

const shown = (html: string): string | undefined => /<p id="who">([^<]*)<\/p>/.exec(html)?.[1];

/** The entries a `fw_session=…` cookie carries (signed, not encrypted: anyone holding it reads them). */
function entriesOf(cookie: string): Record<string, string> {
  const payload = cookie.slice(cookie.indexOf("=") + 1).split(".")[0] as string;
  return (JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { e: Record<string, string> }).e;
}

describe("issue 28, item 5: the layout shows whom the guard lets in, read once per request", () => {
  it("a guarded page, a public one asking who looks, a public one, an error page: each checks the session against the store once, the layout included", async () => {
    const ann = await signedIn();
    for (const [path, status, text] of [
      ["/mine", 200, `mine: ${ANN}`],
      ["/viewer", 200, "viewer "],
      ["/", 200, "home"],
      ["/gone", 404, "No such page."],
    ] as const) {
      const before = users.checks;
      const page = await ann.get(path);
      expect(page.status, path).toBe(status);
      expect(page.html, path).toContain(text);
      expect(shown(page.html), path).toBe(ANN);
      expect(users.checks - before, path).toBe(1);
    }
  });

  it("a session that no longer counts (signed out, signed out everywhere) shows as signed out on every page, public ones included", async () => {
    const ann = await signedIn();
    const copy = holding(ann.cookie);
    expect(shown((await copy.get("/")).html)).toBe(ANN);
    expect((await ann.post("/logout", {})).status).toBe(303);
    expect(shown((await copy.get("/")).html)).toBe("signed out");
    expect((await copy.get("/viewer")).html).toContain("viewer nobody");
    expect((await copy.get("/mine")).status).toBe(303);

    const again = await signedIn();
    const copied = holding(again.cookie);
    await again.get("/mine");
    expect((await again.post("/everywhere", {})).status).toBe(303);
    expect(shown((await copied.get("/")).html)).toBe("signed out");
  });

  it("when the users store cannot answer, a guarded page is the store's 503 (framed, Retry-After kept) and the layout shows nobody signed in rather than failing the page", async () => {
    const ann = await signedIn();
    users.down = true;
    try {
      const guardedPage = await ann.get("/mine");
      expect(guardedPage.status).toBe(503);
      expect(guardedPage.response.headers.get("retry-after")).toBe("5");
      expect(guardedPage.html).toContain("The database is not answering.");
      expect(shown(guardedPage.html)).toBe("signed out");
      const publicPage = await ann.get("/");
      expect(publicPage.status).toBe(200);
      expect(shown(publicPage.html)).toBe("signed out");
    } finally {
      users.down = false;
    }
    expect(shown((await ann.get("/")).html)).toBe(ANN);
  });
});

describe("issue 28, item 7: the session cookie carries no personal data", () => {
  it("a signed-in cookie holds the user's key, epoch and session id (and the CSRF token), never the email", async () => {
    const ann = await signedIn();
    const entries = entriesOf(ann.cookie as string);
    expect(Object.keys(entries).sort()).toEqual(["_csrf", "_epoch", "_sid", "_user"]);
    expect(JSON.stringify(entries)).not.toContain("@");
    expect(shown((await ann.get("/")).html)).toBe(ANN);
  });

  it("a cookie an older fw signed (with `_email`) reads as signed in while it counts, its email never shown; the first guarded page drops it; signed out, it is nobody's", async () => {
    const ann = await signedIn();
    const value = (ann.cookie as string).slice("fw_session=".length);
    const session = withReserved(codec.decode(value, Date.now()), "_email", "someone-else@example.com");
    const old = holding(`fw_session=${codec.encode(session, Date.now())}`);
    const kept = old.cookie as string;
    expect(entriesOf(kept)["_email"]).toBe("someone-else@example.com");
    expect(shown((await old.get("/")).html)).toBe(ANN);
    const mine = await old.get("/mine");
    expect(mine.status).toBe(200);
    expect(shown(mine.html)).toBe(ANN);
    expect(old.cookie).not.toBe(kept);
    expect(entriesOf(old.cookie as string)).not.toHaveProperty("_email");
    expect(entriesOf(old.cookie as string)["_sid"]).toBe(entriesOf(kept)["_sid"]);
    // Signed out (through the cleaned cookie): the old one, kept by someone, is nobody's.
    await old.get("/mine");
    expect((await old.post("/logout", { _csrf: entriesOf(kept)["_csrf"] as string })).status).toBe(303);
    const stale = holding(kept);
    expect(shown((await stale.get("/")).html)).toBe("signed out");
    expect((await stale.get("/mine")).status).toBe(303);
  });
});
