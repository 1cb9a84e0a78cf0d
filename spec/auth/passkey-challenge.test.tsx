import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { challengeCookie } from "../../runtime/auth/passkey-challenge.js";
import { formSignIn, InMemoryUsers, seedUser, type UserFields } from "../../runtime/auth/index.js";
import { CSRF_ENTRY, Request, SIGNER, type RequestInit } from "../../runtime/http/request.js";
import { Secret } from "../../runtime/http/secret.js";
import { Session, withReserved } from "../../runtime/http/session.js";
import { ValueSigner } from "../../runtime/http/signed-value.js";
import { assembleTable, Ok, Route, type Layout } from "../../runtime/index.js";
import { Mailer, MailboxTransport } from "../../runtime/mail/index.js";
import { CookieJar } from "../../runtime/testing/cookie-jar.js";
import { TestClient } from "../../runtime/testing/client.js";
import { waitForMail } from "../../runtime/testing/mailbox.js";
import { csrfFrom, serve, TEST_SECRET, type Served } from "../support/serve.js";

// The passkey ceremonies keep their challenge in a cookie of their own, never in the session
// (docs/security.md, Passkeys): the sign-in page's script asks for a challenge as the page loads,
// and an answer that wrote the session from the session it was sent with undid whatever a
// navigation changed meanwhile when it landed last (a confirmation link's stash: "This link does
// not work"). Here over HTTP, the landing order set by hand: each answer's Set-Cookie is taken
// into the jar when the test says, as a browser takes it when the answer arrives. The ceremonies
// themselves, with a real authenticator, run in Chromium: spec/browser/passkeys.test.tsx.

const PASSWORD = "plum orbit velvet 9271";
let dir = "";
let mailbox = "";
let app: Served;
let users: InMemoryUsers<UserFields>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "fw-passkey-challenge-"));
  mailbox = join(dir, "mail");
  users = new InMemoryUsers();
  const mailer = new Mailer({ from: "Shop <no-reply@shop.example>", transport: new MailboxTransport(mailbox) });
  const auth = formSignIn({ users, mailer, addressOf: () => "passkey-challenge test" });
  const layout: Layout = ({ title, content, request }) => (
    <html lang="en">
      <head>
        <title>{title ?? "shop"}</title>
      </head>
      <body>
        <p id="flash">{request.session.flashed("notice") ?? ""}</p>
        {content}
      </body>
    </html>
  );
  app = await serve({ routes: assembleTable([auth.guarded()], [Route.get("/", () => Ok(<p>home</p>))]), layout, parts: [mailer], origin: "http://localhost", allowedHosts: ["*"], trustProxy: true });
});

afterAll(async () => {
  await app?.close();
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
});

/** A browser whose answers land when the test says: `send` asks, `land` takes the answer's cookies. */
class SlowBrowser {
  readonly jar = new CookieJar();

  send(path: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<globalThis.Response> {
    const cookie = this.jar.header();
    return fetch(app.url + path, {
      method: init.method ?? "GET",
      redirect: "manual",
      headers: { ...(cookie === undefined ? {} : { cookie }), ...(init.form === undefined ? {} : { "content-type": "application/x-www-form-urlencoded" }) },
      ...(init.form === undefined ? {} : { body: new URLSearchParams(init.form).toString() }),
    });
  }

  land(answer: globalThis.Response): globalThis.Response {
    this.jar.take(answer.headers.getSetCookie());
    return answer;
  }

  async open(path: string): Promise<string> {
    return (await this.land(await this.send(path))).text();
  }
}

function setCookieNamed(answer: globalThis.Response, name: string): string | undefined {
  return answer.headers.getSetCookie().find((line) => line.startsWith(`${name}=`));
}

let counter = 0;
function freshEmail(name: string): string {
  return `${name}-${++counter}@example.com`;
}

/** A client signed in as a new account, on its /account page: its CSRF token. */
async function signedInOnAccount(): Promise<{ client: TestClient; csrf: string; email: string }> {
  const email = freshEmail("account");
  await seedUser(users, email, PASSWORD);
  const client = new TestClient(app.url);
  await client.signIn(email, PASSWORD);
  const page = await client.get("/account");
  expect(page.status).toBe(200);
  return { client, csrf: csrfFrom(page.text), email };
}

/** A cookie signed as the app signs a challenge, for the session holding `csrf`, at `now`. */
function madeChallengeCookie(csrf: string, ceremony: "sign-in" | "register", owner: string, now: number, secret = TEST_SECRET): string {
  const init = { session: withReserved(Session.empty, CSRF_ENTRY, csrf), [SIGNER]: new ValueSigner([new Secret(secret)]) } as RequestInit;
  const line = challengeCookie(new Request(init), { ceremony, challenge: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", owner, path: "/login/passkey", now });
  return line.split(";")[0] as string;
}

describe("the passkey challenge lives apart from the session", () => {
  it("the sign-in page's options answer writes no session cookie: a confirmation link followed while it is in flight keeps its stash", async () => {
    const email = freshEmail("race");
    expect((await new TestClient(app.url).submit("/signup", { email, password: PASSWORD })).status).toBe(303);
    const mail = await waitForMail(mailbox, { to: email, subject: "Confirm your email" });
    const link = new URL(mail.links.find((href) => href.includes("token=")) ?? "");

    const browser = new SlowBrowser();
    const csrf = csrfFrom(await browser.open("/login"));
    // The page's script asks for a challenge; its answer has not landed yet.
    const options = await browser.send("/login/passkey/options", { method: "POST", form: { _csrf: csrf } });
    // Meanwhile the tab follows the mailed link: its stash goes into the session.
    const followed = browser.land(await browser.send(link.pathname + link.search));
    expect([followed.status, followed.headers.get("location")]).toEqual([303, "/confirm"]);
    // The options answer lands last.
    expect(options.status).toBe(200);
    expect(setCookieNamed(options, "fw_session")).toBeUndefined();
    browser.land(options);
    const confirm = await browser.send("/confirm");
    const text = await confirm.text();
    expect(text, text).toContain(`Confirm ${email} to finish signing up`);
    expect(confirm.status).toBe(200);
  });

  it("the options answers keep the challenge in an HttpOnly, SameSite=Strict cookie scoped to the ceremony's routes for 5 minutes", async () => {
    const browser = new SlowBrowser();
    const csrf = csrfFrom(await browser.open("/login"));
    const signIn = await browser.send("/login/passkey/options", { method: "POST", form: { _csrf: csrf } });
    expect(((await signIn.json()) as { challenge?: string }).challenge).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(setCookieNamed(signIn, "fw_passkey_sign_in")).toMatch(/^fw_passkey_sign_in=[^;]+; Path=\/login\/passkey; HttpOnly; SameSite=Strict; Max-Age=300$/);

    const { client, csrf: accountCsrf } = await signedInOnAccount();
    const register = await client.post("/account/passkeys/options", { _csrf: accountCsrf });
    expect(register.status).toBe(200);
    expect(register.headers.getSetCookie().some((line) => line.startsWith("fw_session="))).toBe(false);
    expect(register.headers.getSetCookie().find((line) => line.startsWith("fw_passkey_register="))).toMatch(/^fw_passkey_register=[^;]+; Path=\/account\/passkeys; HttpOnly; SameSite=Strict; Max-Age=300$/);
  });
});

describe("under a mount", () => {
  it("the challenge cookie's Path follows the sign-in's mount", async () => {
    const mailer = new Mailer({ from: "Shop <no-reply@shop.example>", transport: new MailboxTransport(join(dir, "mounted")) });
    const auth = formSignIn({ users: new InMemoryUsers(), mailer, mount: "/auth" });
    const mounted = await serve({ routes: assembleTable([auth.guarded()], [Route.get("/", () => Ok(<p>home</p>))]), parts: [mailer], origin: "http://localhost", allowedHosts: ["*"] });
    try {
      const page = await fetch(`${mounted.url}/auth/login`);
      const session = (page.headers.getSetCookie().find((line) => line.startsWith("fw_session=")) ?? "").split(";")[0] as string;
      const options = await fetch(`${mounted.url}/auth/login/passkey/options`, {
        method: "POST",
        headers: { cookie: session, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ _csrf: csrfFrom(await page.text()) }).toString(),
      });
      expect(options.status).toBe(200);
      expect(setCookieNamed(options, "fw_passkey_sign_in")).toMatch(/; Path=\/auth\/login\/passkey; /);
    } finally {
      await mounted.close();
    }
  });
});

describe("over HTTPS (behind the app's proxy)", () => {
  it("the challenge cookie is __Secure- and Secure, and the plain name is not read", async () => {
    const https = { "x-forwarded-proto": "https" };
    const page = await fetch(`${app.url}/login`, { headers: https });
    const session = setCookieNamed(page, "__Host-fw_session")?.split(";")[0] as string;
    const csrf = csrfFrom(await page.text());
    const post = (path: string, cookie: string) =>
      fetch(app.url + path, {
        method: "POST",
        redirect: "manual",
        headers: { ...https, cookie, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ _csrf: csrf, response: JSON.stringify({ id: "AAAA", rawId: "AAAA", type: "public-key", response: {} }) }).toString(),
      });
    const options = await post("/login/passkey/options", session);
    expect(options.status).toBe(200);
    expect(options.headers.getSetCookie().some((line) => line.includes("fw_session="))).toBe(false);
    const line = setCookieNamed(options, "__Secure-fw_passkey_sign_in") as string;
    expect(line).toMatch(/^__Secure-fw_passkey_sign_in=[^;]+; Path=\/login\/passkey; HttpOnly; SameSite=Strict; Secure; Max-Age=300$/);
    const value = line.split(";")[0]?.slice("__Secure-fw_passkey_sign_in=".length) as string;
    const plain = await post("/login/passkey", `${session}; fw_passkey_sign_in=${value}`);
    expect(plain.status).toBe(400);
    expect(await plain.text()).toContain("no challenge came with it");
    const secure = await post("/login/passkey", `${session}; __Secure-fw_passkey_sign_in=${value}`);
    expect(secure.status).toBe(400);
    expect(await secure.text()).toContain("This passkey is not known here");
  });
});

describe("a challenge cookie is believed only as issued", () => {
  /** Posts an (empty) assertion to sign in with this challenge cookie (or none), from a session whose token is `csrf`. */
  async function signInWith(browser: SlowBrowser, csrf: string, challenge: string | undefined): Promise<globalThis.Response> {
    const session = browser.jar.header() ?? "";
    return fetch(`${app.url}/login/passkey`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie: [session, ...(challenge === undefined ? [] : [challenge])].join("; "), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ _csrf: csrf, response: JSON.stringify({ id: "AAAA", rawId: "AAAA", type: "public-key", response: {} }) }).toString(),
    });
  }

  async function refusal(answer: globalThis.Response): Promise<string> {
    expect(answer.status).toBe(400);
    return /<p class="fw-auth-error" role="alert">([^<]*)<\/p>/.exec(await answer.text())?.[1]?.trim() ?? "";
  }

  it("none, forged, signed with another secret, for another session, or expired: a 400 saying which", async () => {
    const browser = new SlowBrowser();
    const csrf = csrfFrom(await browser.open("/login"));
    expect(await refusal(await signInWith(browser, csrf, undefined))).toMatch(/no challenge came with it/);
    const issued = setCookieNamed(await browser.send("/login/passkey/options", { method: "POST", form: { _csrf: csrf } }), "fw_passkey_sign_in")?.split(";")[0] as string;
    const altered = issued.replace(/\.([A-Za-z0-9_-]+)$/, (_, signature: string) => `.${signature.startsWith("A") ? "B" : "A"}${signature.slice(1)}`);
    expect(await refusal(await signInWith(browser, csrf, altered))).toMatch(/not issued by this site for this session/);
    const otherSecret = madeChallengeCookie(csrf, "sign-in", "-", Date.now(), "another-secret-0123456789-abcdefghijklmnop");
    expect(await refusal(await signInWith(browser, csrf, otherSecret))).toMatch(/not issued by this site for this session/);
    // Another browser's session (another CSRF token): its challenge is not this one's.
    const elsewhere = new SlowBrowser();
    const otherCsrf = csrfFrom(await elsewhere.open("/login"));
    const theirs = setCookieNamed(await elsewhere.send("/login/passkey/options", { method: "POST", form: { _csrf: otherCsrf } }), "fw_passkey_sign_in")?.split(";")[0];
    expect(await refusal(await signInWith(browser, csrf, theirs))).toMatch(/not issued by this site for this session/);
    // Issued here, for this session, 5 minutes and a second ago.
    const expired = madeChallengeCookie(csrf, "sign-in", "-", Date.now() - 301_000);
    expect(await refusal(await signInWith(browser, csrf, expired))).toMatch(/took over 5 minutes/);
    // Two of them: neither believed.
    expect(await refusal(await signInWith(browser, csrf, `${issued}; ${issued}`))).toMatch(/two challenge cookies/);
    // The genuine one passes the challenge's checks and meets the assertion's (no such passkey).
    const genuine = await signInWith(browser, csrf, issued);
    expect(await refusal(genuine)).toMatch(/not known here/);
    // Every answer of the last step forgets the challenge: it is used once.
    expect(setCookieNamed(genuine, "fw_passkey_sign_in")).toBe("fw_passkey_sign_in=; Path=/login/passkey; HttpOnly; SameSite=Strict; Max-Age=0");
  });

  it("a challenge issued for one ceremony is refused by the other", async () => {
    const { client, csrf } = await signedInOnAccount();
    const register = await client.post("/account/passkeys/options", { _csrf: csrf });
    const registerValue = (register.headers.getSetCookie().find((line) => line.startsWith("fw_passkey_register=")) ?? "").split(";")[0]?.slice("fw_passkey_register=".length);
    const signInOptions = await client.post("/login/passkey/options", { _csrf: csrf });
    const signInValue = (signInOptions.headers.getSetCookie().find((line) => line.startsWith("fw_passkey_sign_in=")) ?? "").split(";")[0]?.slice("fw_passkey_sign_in=".length);
    const session = `fw_session=${client.cookies.get("fw_session") ?? ""}`;
    const post = (path: string, cookie: string) =>
      fetch(app.url + path, {
        method: "POST",
        redirect: "manual",
        headers: { cookie: `${session}; ${cookie}`, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ _csrf: csrf, response: JSON.stringify({ id: "AAAA", rawId: "AAAA", type: "public-key", response: {} }) }).toString(),
      });
    // The account's challenge, sent as the sign-in's.
    const asSignIn = await post("/login/passkey", `fw_passkey_sign_in=${registerValue}`);
    expect(asSignIn.status).toBe(400);
    expect(await asSignIn.text()).toContain("its challenge was issued to add a passkey, not to sign in");
    // The sign-in's challenge, sent to add a passkey.
    const asRegister = await post("/account/passkeys", `fw_passkey_register=${signInValue}`);
    expect(asRegister.status).toBe(400);
    const text = await asRegister.text();
    expect(text).toContain("its challenge was issued to sign in, not to add one");
    expect(setCookieNamed(asRegister, "fw_passkey_register")).toBe("fw_passkey_register=; Path=/account/passkeys; HttpOnly; SameSite=Strict; Max-Age=0");
    // Another account's challenge to add a passkey, even signed for this session: refused.
    const other = await signedInOnAccount();
    const otherId = String((await users.byEmail(other.email))?.id);
    const stolen = await post("/account/passkeys", madeChallengeCookie(csrf, "register", otherId, Date.now()));
    expect(stolen.status).toBe(400);
    expect(await stolen.text()).toContain("its challenge was issued to another account");
  });
});
