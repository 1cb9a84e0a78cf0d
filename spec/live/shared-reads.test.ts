import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openCounts } from "../../runtime/observe/gauges.js";
import { copyRequest, type Request } from "../../runtime/http/request.js";
import { InMemoryStore, Redirect, Route, RouteTable, type Html, type Identify } from "../../runtime/index.js";
import { addressGroup, admitSocket, DEFAULT_SOCKETS_PER_ADDRESS, socketsPerAddress, SOCKETS_PER_ADDRESS_ENV } from "../../runtime/live/address-bound.js";
import { live, livePageRoutes, liveSocketRoute, publish, type LiveMount } from "../../runtime/live/index.js";
import { HAND_OUT_SLICE } from "../../runtime/live/hand-out.js";
import { serve, sessionCookie, type Served } from "../support/serve.js";
import { connect, deferred, type Client } from "../support/ws-client.js";
import { compiled } from "./compiled.js";

/**
 * Issue 30, item 6: one read per publish. The sockets of a live page showing the same view (same
 * path and query, same viewer) share one mount per publish; refreshes that arrive while one is in
 * flight wait for one more; a client address holds a bounded number of live sockets. Black-box:
 * a hand-written table, a real server, real sockets; the reads are counted where the page reads.
 */

interface Row {
  id: number;
  title: string;
}

const rows = new InMemoryStore<Row>("id");
/** Reads of the rows per page (each is one mount). */
const reads = { board: 0, unshared: 0, bounded: 0 };
/** When set, the next read of the board waits, once it has read, until the test lets it go. */
let hold: { entered: ReturnType<typeof deferred<void>>; release: ReturnType<typeof deferred<void>> } | undefined;

interface Board {
  readonly viewer: string;
  readonly titles: readonly string[];
}

/** Two rows a page (`?page=`), and who is looking. */
async function board(request: Request, page: keyof typeof reads): Promise<Board> {
  reads[page]++;
  const at = Number(request.query.get("page") ?? "1");
  const { rows: listed } = await rows.list({ offset: (at - 1) * 2, limit: 2 });
  const held = page === "board" ? hold : undefined;
  if (held !== undefined) {
    hold = undefined;
    held.entered.resolve();
    await held.release.promise;
  }
  return { viewer: request.currentUser ?? "nobody", titles: listed.map((row) => row.title) };
}

const PAGES = compiled(`export const board = (s: any) => <p>{s.viewer}: {s.titles.join(", ")}</p>;`) as Record<string, (state: never) => Html>;
const render = (state: Board) => (PAGES.board as (s: Board) => Html)(state);

const boardPage = live<Board>({ mount: (request) => board(request, "board"), render, topics: ["board"] });
const unsharedPage = live<Board>({ mount: (request) => board(request, "unshared"), render, topics: ["board"], shared: false });
const boundedPage = live<Board>({ mount: (request) => board(request, "bounded"), render });

/** What happened while a shared read was handed out: each socket's render, and the event loop's turns. */
const handOut: string[] = [];
let watching = false;
const slicedPage = live<{ n: number }>({
  mount: () => ({ n: handOut.length }),
  render: (state) => {
    if (watching) {
      if (!handOut.includes("render")) setImmediate(() => handOut.push("turn"));
      handOut.push("render");
    }
    return (PAGES.board as (s: Board) => Html)({ viewer: "", titles: [String(state.n)] });
  },
  topics: ["sliced"],
});

const none = {} as Record<string, never>;
const mounts = {
  board: { id: "board.Index", path: "/board", capabilities: none, source: "src/app/board/Index.tsx" },
  unshared: { id: "unshared.Index", path: "/unshared", capabilities: none, source: "src/app/unshared/Index.tsx" },
  bounded: { id: "bounded.Index", path: "/bounded", capabilities: none, source: "src/app/bounded/Index.tsx" },
  sliced: { id: "sliced.Index", path: "/sliced", capabilities: none, source: "src/app/sliced/Index.tsx" },
} satisfies Record<string, LiveMount<unknown>>;

/** The bounded page's socket, made (at boot, as the generated table does) with the bound set to 2. */
function boundedSocket() {
  process.env[SOCKETS_PER_ADDRESS_ENV] = "2";
  try {
    return liveSocketRoute(boundedPage, mounts.bounded);
  } finally {
    delete process.env[SOCKETS_PER_ADDRESS_ENV];
  }
}

/** A stand-in sign-in: the session's "user" entry names the user. */
const identify: Identify = (request) => {
  const user = request.session.get("user");
  return user === undefined ? request : copyRequest(request, { currentUser: user });
};

const routes = new RouteTable(
  [
    Route.get("/login-as/:name", (request: Request) => Redirect("/board").withSession(request.session.set("user", request.params["name"] ?? ""))),
    ...livePageRoutes(boardPage, mounts.board),
    ...livePageRoutes(unsharedPage, mounts.unshared),
    ...livePageRoutes(boundedPage, mounts.bounded),
    ...livePageRoutes(slicedPage, mounts.sliced),
    liveSocketRoute(boardPage, mounts.board),
    liveSocketRoute(unsharedPage, mounts.unshared),
    boundedSocket(),
    liveSocketRoute(slicedPage, mounts.sliced),
  ],
  identify,
);

let app: Served;
const open: Client[] = [];
beforeAll(async () => {
  // Behind "its own proxy", so each test names the client address it connects from.
  app = await serve({ routes, trustProxy: true });
  for (const title of ["one", "two", "three", "four"]) await rows.insert({ title });
});
afterEach(() => {
  for (const client of open.splice(0)) client.socket.close();
});
afterAll(async () => {
  await app.close();
});

/** A new visitor's session cookie (its first GET of a live page mints its CSRF token). */
async function visitor(): Promise<string> {
  return sessionCookie(await app.get("/board")) as string;
}

/** A live socket on `path` of `page`, open and past its first render (which it answers). */
async function live_(page: keyof typeof mounts, path: string, cookie: string, from = "10.0.0.1"): Promise<{ client: Client; first: string }> {
  const client = await connect(app.url, `/fw/live/${mounts[page].id}?path=${encodeURIComponent(path)}`, { headers: { cookie, "x-forwarded-for": from } });
  open.push(client);
  return { client, first: await client.next() };
}

/** The first thing that happens on `client`: a message, or its close. */
function firstOf(client: Client): Promise<string | { code: number; reason: string }> {
  return Promise.race([client.next(), client.closed]);
}

/** What a render message shows on this page: "viewer: titles" (the first render is whole, later ones carry the holes that changed). */
function shown(message: string): string {
  return JSON.stringify((JSON.parse(message) as { d: unknown }).d);
}

describe("issue 30, item 6: one read per publish", () => {
  it("sockets showing the same view share one read per publish, however many publishes arrive together; each view reads for itself, a page that says shared: false per socket", async () => {
    const before = { ...openCounts };
    const anonymous = await Promise.all([visitor(), visitor(), visitor()]);
    const ann = sessionCookie(await app.get("/login-as/ann")) as string;
    const sockets = [
      ...(await Promise.all(anonymous.map((cookie) => live_("board", "/board", cookie)))),
      await live_("board", "/board?page=2", anonymous[0] as string),
      await live_("board", "/board", ann),
      await live_("board", "/board", ann),
    ];
    const unshared = [await live_("unshared", "/unshared", anonymous[0] as string), await live_("unshared", "/unshared", anonymous[1] as string)];
    expect(sockets.map(({ first }) => shown(first).includes("ann"))).toEqual([false, false, false, false, true, true]);
    // What metrics read (issue 44): eight live sockets open, three shared views among them.
    expect(openCounts.liveSockets - before.liveSockets).toBe(8);
    expect(openCounts.liveViews - before.liveViews).toBe(3);
    expect(openCounts.webSockets - before.webSockets).toBe(8);
    expect(shown(sockets[3]?.first as string)).toContain("three, four");

    // Three views: anonymous on /board, anonymous on /board?page=2, ann's session on /board.
    for (const round of [1, 2]) {
      reads.board = 0;
      reads.unshared = 0;
      await rows.update(1, { title: `one, round ${round}` });
      for (let i = 0; i < 5; i++) publish("board");
      const refreshed = await Promise.all([...sockets, ...unshared].map(({ client }) => client.next()));
      expect(reads, `round ${round}`).toEqual({ board: 3, unshared: 2, bounded: 0 });
      // Each socket rendered its own view's state.
      expect(refreshed.map((message) => message.includes(`one, round ${round}`))).toEqual([true, true, true, false, true, true, true, true]);
    }
  });

  it("a publish that arrives while its view's read is in flight gets one more read after it, which sees the write; more of them add nothing", async () => {
    const cookies = await Promise.all([visitor(), visitor()]);
    const sockets = await Promise.all(cookies.map((cookie) => live_("board", "/board", cookie)));
    reads.board = 0;
    const held = { entered: deferred(), release: deferred() };
    hold = held;
    publish("board");
    await held.entered.promise;
    // The read in flight has read the rows already: these writes come after it.
    await rows.update(2, { title: "two, written during the read" });
    for (let i = 0; i < 3; i++) publish("board");
    held.release.resolve();
    for (const { client } of sockets) {
      expect(await client.next()).not.toContain("written during the read");
      expect(await client.next()).toContain("written during the read");
    }
    expect(reads.board).toBe(2);
  });
});

describe("issue 30, item 6: a shared read handed out in slices", () => {
  it("sockets take a read's state a few at a time, however many views read at once, the event loop turning in between (a request waits for one slice, not for every socket)", async () => {
    const cookie = await visitor();
    const sockets = [];
    // Two views, reading on the same publish: their hand-outs share the slices.
    for (let i = 0; i < 3 * HAND_OUT_SLICE; i++) sockets.push(await live_("sliced", i % 2 === 0 ? "/sliced" : "/sliced?view=2", cookie));
    watching = true;
    publish("sliced");
    await Promise.all(sockets.map(({ client }) => client.next()));
    watching = false;
    const renders = handOut.filter((what) => what === "render").length;
    expect(renders).toBe(3 * HAND_OUT_SLICE);
    // A callback set for the loop's next turn at the first render ran before the last slice
    // rendered (at most two slices in: the hand-out's own turn is queued ahead of it), not after every socket.
    const turned = handOut.indexOf("turn");
    expect(turned).toBeGreaterThanOrEqual(HAND_OUT_SLICE);
    expect(turned).toBeLessThanOrEqual(2 * HAND_OUT_SLICE);
  });
});

describe("issue 30, item 6: live sockets per client address", () => {
  it("past the bound a socket is closed 1008 before its page mounts, naming the bound; other addresses are counted apart, an IPv6 client by its /64", async () => {
    const cookie = await visitor();
    reads.bounded = 0;
    await live_("bounded", "/bounded", cookie, "10.7.0.1");
    await live_("bounded", "/bounded", cookie, "10.7.0.1");
    const refused = await connect(app.url, `/fw/live/${mounts.bounded.id}?path=%2Fbounded`, { headers: { cookie, "x-forwarded-for": "10.7.0.1" } });
    open.push(refused);
    expect(await firstOf(refused)).toEqual({ code: 1008, reason: "too many live pages open from your address (at most 2)" });
    expect(reads.bounded).toBe(2);
    await live_("bounded", "/bounded", cookie, "10.7.0.2");

    await live_("bounded", "/bounded", cookie, "2001:db8:1:2::1");
    await live_("bounded", "/bounded", cookie, "2001:db8:1:2:ffff::9");
    const sameNetwork = await connect(app.url, `/fw/live/${mounts.bounded.id}?path=%2Fbounded`, { headers: { cookie, "x-forwarded-for": "2001:db8:1:2:abcd::1" } });
    open.push(sameNetwork);
    expect(await firstOf(sameNetwork)).toMatchObject({ code: 1008 });
    await live_("bounded", "/bounded", cookie, "2001:db8:1:3::1");
  });

  it("a socket counted out makes room for one more; addresses group as IPv4, IPv4-mapped, IPv6 /64", () => {
    const first = admitSocket("192.0.2.9", 1);
    expect(first).toBeTypeOf("function");
    expect(admitSocket("::ffff:192.0.2.9", 1)).toBeUndefined();
    first?.();
    first?.(); // counted out once, however often called
    const again = admitSocket("192.0.2.9", 1);
    expect(again).toBeTypeOf("function");
    expect(admitSocket("192.0.2.9", 1)).toBeUndefined();
    again?.();
    expect(admitSocket(undefined, 1)).toBeTypeOf("function");
    expect(addressGroup("2001:DB8::1")).toBe("2001:db8:0:0::/64");
    expect(addressGroup("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(addressGroup("::1")).toBe("0:0:0:0::/64");
    expect(addressGroup("10.1.2.3")).toBe("10.1.2.3");
  });

  it(`${SOCKETS_PER_ADDRESS_ENV} sets the bound; a value that is not a whole number from 1 stops the boot, naming the variable`, () => {
    expect(socketsPerAddress({})).toBe(DEFAULT_SOCKETS_PER_ADDRESS);
    expect(socketsPerAddress({ [SOCKETS_PER_ADDRESS_ENV]: "40" })).toBe(40);
    for (const wrong of ["0", "-3", "many", "1.5"]) {
      expect(() => socketsPerAddress({ [SOCKETS_PER_ADDRESS_ENV]: wrong })).toThrow(new RegExp(`^${SOCKETS_PER_ADDRESS_ENV}="${wrong.replace(".", "\\.")}" is not a whole number from 1: set it to how many live sockets one client address may hold open`));
    }
  });
});
