import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formSignIn, InMemoryUsers, seedUser, type UserFields } from "../../runtime/auth/index.js";
import { assembleTable, InMemoryStore, Redirect, Route, type Html, type Request, type Store, type WsListener } from "../../runtime/index.js";
import { live, liveClientRoute, livePageRoutes, liveSocketRoute, publishing, type LiveMount } from "../../runtime/live/index.js";
import { Browser, PASSWORD } from "../auth/client.js";
import { serve, type Served } from "../support/serve.js";
import { connect, deferred, type Client } from "../support/ws-client.js";
import { compiled } from "./compiled.js";

/**
 * Issue 28, item 2: a public page's live socket carries its visitor's user (the table's
 * `identify` names it at the handshake), so sign-out must reach it as it reaches a guarded one.
 * Black-box: a hand-written table with fw/auth's form sign-in, a real server, real sockets.
 */

/** Users whose next session check, once `hold` is called, answers only when the test lets it go (with what it read before). */
class HeldUsers extends InMemoryUsers {
  /** How often a session was checked against the store. */
  checks = 0;
  #held: { entered: ReturnType<typeof deferred<void>>; release: ReturnType<typeof deferred<void>> } | undefined;

  hold(): { entered: Promise<void>; release: () => void } {
    const held = { entered: deferred(), release: deferred() };
    this.#held = held;
    return { entered: held.entered.promise, release: () => held.release.resolve() };
  }

  override async byIdUnlessRevoked(id: number, sessionId: string): Promise<UserFields | undefined> {
    this.checks++;
    const found = await super.byIdUnlessRevoked(id, sessionId);
    const held = this.#held;
    this.#held = undefined;
    if (held !== undefined) {
      held.entered.resolve();
      await held.release.promise;
    }
    return found;
  }
}

interface Note {
  id: number;
  author: string;
  title: string;
  draft: boolean;
}

const users = new HeldUsers();
const auth = formSignIn({ users });
const notes: Store<Note> = publishing(new InMemoryStore<Note>("id"), "notes");

const PAGES = compiled(`export const notes = (s: any) => <p>{s.viewer}: {s.titles.join(", ")}</p>;`) as Record<string, (state: never) => Html>;

/** A public live page, as the example's /posts: everyone's published notes, and the viewer's own drafts. */
const notesPage = live<{ viewer: string; titles: readonly string[] }, { notes: Store<Note> }>({
  mount: async (request, { notes }) => {
    const viewer = request.currentUser;
    const { rows } = await notes.list({ offset: 0, limit: 100 });
    return { viewer: viewer ?? "nobody", titles: rows.filter((note) => !note.draft || note.author === viewer).map((note) => note.title) };
  },
  render: (state) => (PAGES.notes as (s: typeof state) => Html)(state),
  topics: ["notes"],
});

/** A public socket answering every message with whom it was opened as. */
const who: WsListener = { message: (connection) => connection.send(connection.request.currentUser ?? "nobody") };

const guarded = auth.guarded();
const mount: LiveMount<{ notes: Store<Note> }> = { id: "notes.Index", path: "/notes", capabilities: { notes }, source: "src/app/notes/Index.tsx" };
const routes = assembleTable(
  [guarded],
  [
    ...livePageRoutes(notesPage, mount),
    Route.ws("/who", who),
    guarded.through(Route.ws("/mine", who)),
    guarded.through(Route.post("/everywhere", async (request: Request) => {
      await auth.logoutEverywhere(Number(request.currentUser));
      return Redirect("/notes");
    })),
  ],
).concat([liveSocketRoute(notesPage, mount), liveClientRoute()]);

let app: Served;
let annKey = "";
const ANN = "ann@example.com";

beforeAll(async () => {
  app = await serve({ routes });
  annKey = String((await seedUser(users, ANN, PASSWORD)).id);
  await notes.insert({ author: annKey, title: "published note", draft: false });
});
afterAll(async () => {
  await app.close();
});

async function signedIn(): Promise<Browser> {
  const browser = new Browser(app.url);
  expect((await browser.signIn(ANN, PASSWORD)).status).toBe(303);
  return browser;
}

function openNotes(cookie: string | undefined): Promise<Client> {
  return connect(app.url, `/fw/live/notes.Index?path=${encodeURIComponent("/notes")}`, { headers: cookie === undefined ? {} : { cookie } });
}

async function whoIs(client: Client): Promise<string> {
  client.socket.send("?");
  return client.next();
}

/** What the page's first render shows: [viewer, titles]. */
async function shown(client: Client): Promise<readonly string[]> {
  return (JSON.parse(await client.next()) as { d: { d: readonly string[] } }).d.d;
}

/** The first thing that happens on `client`: a message, or its close. */
function firstOf(client: Client): Promise<string | { code: number; reason: string }> {
  return Promise.race([client.next(), client.closed]);
}

describe("issue 28: sign-out reaches every socket of the session, public ones too", () => {
  it("a public live page's socket closes (1008) on sign-out, before a draft its user writes next could reach it; the user's other session keeps its sockets", async () => {
    const ann = await signedIn();
    const elsewhere = await signedIn();
    const page = await openNotes(ann.cookie);
    expect(await shown(page)).toEqual([annKey, "published note"]);
    const public_ = await connect(app.url, "/who", { headers: { cookie: ann.cookie as string } });
    expect(await whoIs(public_)).toBe(annKey);
    const other = await connect(app.url, "/who", { headers: { cookie: elsewhere.cookie as string } });
    expect(await whoIs(other)).toBe(annKey);

    expect((await ann.post("/logout", {})).status).toBe(303);
    // Signed in elsewhere, the user writes a draft: the old page must not be sent its title.
    await notes.insert({ author: annKey, title: "a secret draft", draft: true });
    expect(await firstOf(page)).toEqual({ code: 1008, reason: "signed out" });
    expect(await public_.closed).toEqual({ code: 1008, reason: "signed out" });
    expect(await whoIs(other)).toBe(annKey);

    // Signing out everywhere closes the other session's sockets too.
    await elsewhere.get("/notes");
    expect((await elsewhere.post("/everywhere", {})).status).toBe(303);
    expect(await other.closed).toEqual({ code: 1008, reason: "signed out" });
  });

  it("a copy of a signed-out session's cookie opens the public page as nobody: no drafts, no user", async () => {
    const ann = await signedIn();
    const copy = ann.cookie;
    await notes.insert({ author: annKey, title: "draft for the copy", draft: true });
    expect((await ann.post("/logout", {})).status).toBe(303);
    const page = await openNotes(copy);
    expect(await shown(page)).toEqual(["nobody", "published note"]);
    const public_ = await connect(app.url, "/who", { headers: { cookie: copy as string } });
    expect(await whoIs(public_)).toBe("nobody");
    page.socket.close();
    public_.socket.close();
  });

  it("a sign-out landing between the handshake's check and the socket's opening still closes it", async () => {
    const ann = await signedIn();
    const held = users.hold();
    const opening = connect(app.url, "/who", { headers: { cookie: ann.cookie as string } });
    // The handshake found the session counting; before the socket opens, the user signs out.
    await held.entered;
    expect((await ann.post("/logout", {})).status).toBe(303);
    held.release();
    const socket = await opening;
    expect(await socket.closed).toEqual({ code: 1008, reason: "signed out" });
  });

  it("a guarded socket costs one read of the users store, its handshake's, unless a session ending was heard before it opened (issue 30, item 7)", async () => {
    const ann = await signedIn();
    const before = users.checks;
    const socket = await connect(app.url, "/mine", { headers: { cookie: ann.cookie as string } });
    expect(await whoIs(socket)).toBe(annKey);
    expect(users.checks - before).toBe(1);
    socket.socket.close();
  });

  it("a sign-out landing between a guarded socket's handshake and its opening closes it, and its listener hears none of its messages", async () => {
    const ann = await signedIn();
    const held = users.hold();
    const opening = connect(app.url, "/mine", { headers: { cookie: ann.cookie as string } });
    await held.entered;
    expect((await ann.post("/logout", {})).status).toBe(303);
    held.release();
    const socket = await opening;
    socket.socket.send("?");
    expect(await firstOf(socket)).toEqual({ code: 1008, reason: "signed out" });
  });
});
