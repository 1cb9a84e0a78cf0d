import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyRequest, type Request } from "../../runtime/http/request.js";
import { DuplicateValue, FromPath, InMemoryStore, NotFound, Redirect, resourceRoutes, Route, RouteTable, type Html, type Identify, type ModelSpec, type Store } from "../../runtime/index.js";
import { live, livePageRoutes, liveClientRoute, liveSocketRoute, publish, publishing, type FormInput, type LiveMount, type LiveValues, type LiveView } from "../../runtime/live/index.js";
import type { Route as AnyRoute } from "../../runtime/routing/route.js";
import type { FormErrors } from "../../runtime/resource/form-errors.js";
import { serve, sessionCookie, type Served } from "../support/serve.js";
import { connect, deferred, refusal, type Client } from "../support/ws-client.js";
import { installFanOut } from "../../runtime/ws/fan-out.js";
import { compiled } from "./compiled.js";

/**
 * fw/live's server side, black-box: hand-written route tables (what the build would generate),
 * a real server on 127.0.0.1, a real WebSocket client speaking the live protocol.
 */

interface Post {
  id: number;
  title: string;
}

/** A hand-built model: a title of 3 to 40 characters (the rule typia would check). */
const Post: ModelSpec<Post> = {
  name: "Post",
  fqn: "models.Post",
  path: "/posts",
  key: "id",
  fields: [{ name: "title", label: "Title", input: "text", optional: false, describe: "text", maxLength: 40 }],
  validate: (input) => {
    const title = (input as { title?: unknown }).title;
    if (typeof title === "string" && title.length < 3) return { success: false, errors: [{ path: "$input.title", expected: "string & MinLength<3>", value: title }] };
    return { success: true, data: input as Post };
  },
  decodeKey: FromPath.int,
};

/** The pages' markup, compiled by fw's JSX pre-renderer as an app's would be. */
const PAGES = compiled(`
  export const counter = (s: any) => (
    <section class="counter">
      <title>Count {s.count}</title>
      <h1>A counter with a fair amount of fixed markup around it, as real pages have</h1>
      <p>Count: <b id="count">{s.count}</b></p>
      <button fw-click="increment" fw-value-by="1">+1</button>
      <p>{s.big ? "x".repeat(1100 * 1024) : "small"}</p>
      <footer><small>Static text that the diff of a click never carries again.</small></footer>
    </section>
  );
  export const newPost = (s: any, view: any) => <main><h1>New post</h1>{s.saved === undefined ? null : <p class="saved">Saved {s.saved}</p>}{view.form("save", { values: s.values, errors: s.errors, change: "check" })}</main>;
  export const posts = (s: any) => <main><h1>Posts</h1><ul>{s.rows.map((p: any) => <li>{p.title}</li>)}</ul></main>;
  export const secret = (s: any) => <p>Hello {s.user}</p>;
  export const item = (s: any) => <p>Item {s.id}</p>;
`) as Record<string, (state: never, view: LiveView) => Html>;

interface Counter {
  readonly count: number;
  readonly big: boolean;
}

const counterPage = live<Counter>({
  mount: (request) => ({ count: Number(request.query.get("start") ?? 0), big: false }),
  render: (state) => (PAGES.counter as (s: Counter) => Html)(state),
  events: {
    increment: (state, values: LiveValues) => ({ ...state, count: state.count + Number(values.by ?? 1) }),
    boom: () => {
      throw new Error("kaboom in a handler");
    },
    missing: () => {
      throw new NotFound("That row is gone.");
    },
    taken: () => {
      throw new DuplicateValue("posts", "slugName");
    },
    big: (state) => ({ ...state, big: true }),
  },
});

interface Draft {
  readonly values: Readonly<Record<string, string>>;
  readonly errors: FormErrors | undefined;
  readonly saved: string | undefined;
}

const newPostPage = live<Draft, { posts: Store<Post> }>({
  mount: () => ({ values: {}, errors: undefined, saved: undefined }),
  render: (state, view) => (PAGES.newPost as (s: Draft, v: LiveView) => Html)(state, view),
  events: {
    check: (state, input: FormInput<Post>) => (input.ok ? { ...state, errors: undefined } : { ...state, values: input.values, errors: input.errors }),
    save: async (state, input: FormInput<Post>, { capabilities }) => {
      if (!input.ok) return { ...state, values: input.values, errors: input.errors };
      const row = await capabilities.posts.insert(input.draft);
      return { values: {}, errors: undefined, saved: row.title };
    },
  },
});

const postsPage = live<{ rows: readonly Post[] }, { posts: Store<Post> }>({
  mount: async (_request, { posts }) => ({ rows: (await posts.list({ offset: 0, limit: 100 })).rows }),
  render: (state) => (PAGES.posts as (s: { rows: readonly Post[] }) => Html)(state),
  topics: ["posts"],
});

const secretPage = live<{ user: string }>({
  mount: (request) => ({ user: request.currentUser ?? "nobody" }),
  render: (state) => (PAGES.secret as (s: { user: string }) => Html)(state),
});

const itemPage = live<{ id: number }, Record<string, never>, { id: number }>({
  mount: (request) => ({ id: request.params.id }),
  render: (state) => (PAGES.item as (s: { id: number }) => Html)(state),
});

/** A page whose `wait` event holds the socket until the test lets it go, counting its mounts. */
let mounts_of_gated = 0;
let entered = deferred();
let gate = deferred();
const gatedPage = live<{ n: number }>({
  mount: () => ({ n: ++mounts_of_gated }),
  render: (state) => (PAGES.item as (s: { id: number }) => Html)({ id: state.n }),
  events: {
    wait: async (state) => {
      entered.resolve();
      await gate.promise;
      return state;
    },
    touch: (state) => state,
  },
  topics: ["gated"],
});

/** A page whose `hang` event never settles: its handlerTimeoutMs lets the socket go on. */
const stuckPage = live<{ n: number }>({
  mount: () => ({ n: 0 }),
  render: (state) => (PAGES.item as (s: { id: number }) => Html)({ id: state.n }),
  events: {
    hang: () => new Promise<{ n: number }>(() => undefined),
    bump: (state) => ({ n: state.n + 1 }),
  },
  handlerTimeoutMs: 100,
});

/** A page that keeps every published message (its own `refresh`). */
const heardPage = live<{ heard: readonly string[] }>({
  mount: () => ({ heard: [] }),
  render: (state) => (PAGES.item as (s: { id: string }) => Html)({ id: state.heard.join(",") }),
  refresh: (state, message) => ({ heard: [...state.heard, message ?? "?"] }),
  topics: ["heard"],
});

/** A stand-in guard: a socket needs a user (spec 5.4); the session's "user" entry names one. */
const signedIn = (route: AnyRoute): AnyRoute => (route.case === "ws" ? { ...route, guard: "test", requiresUser: true } : route);
const identify: Identify = (request) => {
  const user = request.session.get("user");
  return user === undefined ? request : copyRequest(request, { currentUser: user });
};

const store: Store<Post> = publishing(new InMemoryStore<Post>("id"), "posts");
const none = {} as Record<string, never>;
const mounts = {
  counter: { id: "counter.Index", path: "/counter", capabilities: none, source: "src/app/counter/Index.tsx" },
  newPost: { id: "live.posts.New", path: "/live/posts/new", capabilities: { posts: store }, forms: { save: Post, check: Post }, source: "src/app/live/posts/New.tsx" },
  posts: { id: "live.posts.Index", path: "/live/posts", capabilities: { posts: store }, source: "src/app/live/posts/Index.tsx" },
  secret: { id: "secret.Index", path: "/secret", capabilities: none, source: "src/app/secret/Index.tsx" },
  item: { id: "items._id.Show", path: "/items/:id", params: { id: FromPath.int }, capabilities: none, source: "src/app/items/_id/Show.tsx" },
  gated: { id: "gated.Index", path: "/gated", capabilities: none, source: "src/app/gated/Index.tsx" },
  heard: { id: "heard.Index", path: "/heard", capabilities: none, source: "src/app/heard/Index.tsx" },
  stuck: { id: "stuck.Index", path: "/stuck", capabilities: none, source: "src/app/stuck/Index.tsx" },
  // A page of a table put under /app (Route.under): its own pattern, its socket still under /fw.
  underItem: { id: "app.items._id.Show", path: "/items/:id", params: { id: FromPath.int }, capabilities: none, source: "src/app/items/_id/Show.tsx" },
} satisfies Record<string, LiveMount<unknown>>;

const routes = new RouteTable(
  [
    Route.get("/login-as/:name", (request: Request) => Redirect("/counter").withSession(request.session.set("user", request.params["name"] ?? ""))),
    ...livePageRoutes(counterPage, mounts.counter),
    ...livePageRoutes(newPostPage, mounts.newPost),
    ...livePageRoutes(postsPage, mounts.posts),
    ...livePageRoutes(secretPage, mounts.secret).map(signedIn),
    ...livePageRoutes(itemPage, mounts.item),
    ...livePageRoutes(gatedPage, mounts.gated),
    ...livePageRoutes(heardPage, mounts.heard),
    ...livePageRoutes(stuckPage, mounts.stuck),
    ...resourceRoutes(Post, store),
    liveSocketRoute(counterPage, mounts.counter),
    liveSocketRoute(newPostPage, mounts.newPost),
    liveSocketRoute(postsPage, mounts.posts),
    signedIn(liveSocketRoute(secretPage, mounts.secret)),
    liveSocketRoute(itemPage, mounts.item),
    liveSocketRoute(gatedPage, mounts.gated),
    liveSocketRoute(heardPage, mounts.heard),
    liveSocketRoute(stuckPage, mounts.stuck),
    liveClientRoute(),
    ...Route.under("/app", [...livePageRoutes(itemPage, mounts.underItem), liveSocketRoute(itemPage, mounts.underItem)]),
  ],
  identify,
);

let app: Served;
beforeAll(async () => {
  app = await serve({ routes });
});
afterAll(async () => {
  await app.close();
});

/** A visitor: the session cookie and CSRF token of a first GET of `path`, and its HTML. */
async function visit(path: string, cookie?: string): Promise<{ cookie: string; csrf: string; html: string }> {
  const response = await app.get(path, cookie === undefined ? {} : { headers: { cookie } });
  expect(response.status).toBe(200);
  const html = await response.text();
  const csrf = (/data-fw-csrf="([^"]+)"/.exec(html) ?? /name="_csrf" value="([^"]+)"/.exec(html))?.[1] as string;
  return { cookie: sessionCookie(response) ?? (cookie as string), csrf, html };
}

interface Render {
  readonly t: "r";
  readonly n: number;
  readonly s?: Record<string, readonly string[]>;
  readonly d: unknown;
}
type Message = Render | { readonly t: "err"; readonly m: string; readonly n: number };

async function open(page: keyof typeof mounts, path: string, cookie: string): Promise<Client> {
  return connect(app.url, `/fw/live/${mounts[page].id}?path=${encodeURIComponent(path)}`, { headers: { cookie } });
}

async function next(client: Client): Promise<Message> {
  return JSON.parse(await client.next()) as Message;
}

function send(client: Client, n: number, e: string, c: string | undefined, v: [string, string][] = []): void {
  client.socket.send(JSON.stringify({ t: "e", n, e, c, v }));
}

describe("fw/live: the page's GET", () => {
  it("renders the whole page through the layout: the live root naming its socket and CSRF token, the title lifted, then the client's script", async () => {
    const { html, csrf } = await visit("/counter?start=3");
    expect(csrf.length).toBeGreaterThan(20);
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).toContain("<title>Count 3</title>");
    // data-fw-title: the page's own title, which a later render's takes the place of in the document's.
    expect(html).toMatch(/<div data-fw-live="\/fw\/live\/counter\.Index" data-fw-csrf="[^"]+" data-fw-title="Count 3"><section class="counter"><h1>/);
    expect(html).toContain('<b id="count">3</b>');
    expect(html).toMatch(/<script src="\/fw\/live\.js\?v=[0-9a-f]{10}" defer><\/script>/);
  });
});

describe("fw/live: the socket", () => {
  it("mounts from ?path=, answers the whole tree, then a click with a diff of the one hole that changed", async () => {
    const { cookie, csrf } = await visit("/counter");
    const client = await open("counter", "/counter?start=5", cookie);
    const first = (await next(client)) as Render;
    expect(first).toMatchObject({ t: "r", n: 0 });
    expect(Object.keys(first.s ?? {}).length).toBeGreaterThan(0);
    expect(JSON.stringify(first.d)).toContain("5");
    send(client, 1, "increment", csrf, [["by", "2"]]);
    const second = await client.next();
    const parsed = JSON.parse(second) as Render;
    expect(parsed).toMatchObject({ t: "r", n: 1 });
    expect(parsed.s).toBeUndefined();
    expect(second).toContain('"7"');
    // The title follows the state; the client makes it the document's title (the layout lifted it on GET).
    expect(second).toContain("<title>Count 7</title>");
    expect(second.length).toBeLessThan(JSON.stringify(first).length / 4);
    // An event that changes nothing is still answered, with nothing to apply.
    send(client, 2, "increment", csrf, [["by", "0"]]);
    expect(await next(client)).toEqual({ t: "r", n: 2, d: { u: {} } });
    client.socket.close();
  });

  it("an event without the session's CSRF token, or with another, closes the socket 1008", async () => {
    const { cookie, csrf } = await visit("/counter");
    const missing = await open("counter", "/counter", cookie);
    await next(missing);
    send(missing, 1, "increment", undefined);
    expect(await missing.closed).toEqual({ code: 1008, reason: "CSRF token missing or wrong" });
    const wrong = await open("counter", "/counter", cookie);
    await next(wrong);
    send(wrong, 1, "increment", `${csrf.slice(1)}x`);
    expect((await wrong.closed).code).toBe(1008);
    // No session at all: no token any event could carry.
    const { csrf: other } = await visit("/counter");
    const stranger = await open("counter", "/counter", "");
    await next(stranger);
    send(stranger, 1, "increment", other);
    expect((await stranger.closed).code).toBe(1008);
  });

  it("a message that is not a live event closes 1003", async () => {
    const { cookie } = await visit("/counter");
    const client = await open("counter", "/counter", cookie);
    await next(client);
    client.socket.send("hello");
    expect(await client.closed).toEqual({ code: 1003, reason: "not a live message" });
  });

  it("an unknown event is answered with err and the socket stays", async () => {
    const { cookie, csrf } = await visit("/counter");
    const client = await open("counter", "/counter", cookie);
    await next(client);
    send(client, 1, "nope", csrf);
    expect(await next(client)).toEqual({ t: "err", m: 'no event named "nope" on this page', n: 1 });
    send(client, 2, "constructor", csrf);
    expect(await next(client)).toMatchObject({ t: "err", n: 2 });
    send(client, 3, "increment", csrf);
    expect(await next(client)).toMatchObject({ t: "r", n: 3 });
    client.socket.close();
  });

  it("a handler that throws: err with an incident id (the log line has the cause), the socket stays, the next event works", async () => {
    const { cookie, csrf } = await visit("/counter");
    const client = await open("counter", "/counter?start=1", cookie);
    await next(client);
    send(client, 1, "boom", csrf);
    const err = await next(client);
    expect(err).toMatchObject({ t: "err", n: 1 });
    const incident = /^Something went wrong \(incident ([0-9a-f]+)\)$/.exec((err as { m: string }).m)?.[1];
    expect(incident).toBeDefined();
    expect(app.err.join("\n")).toMatch(new RegExp(`kaboom in a handler.*\\[incident ${incident}\\]`));
    expect((err as { m: string }).m).not.toContain("kaboom");
    // A refusal the handler threw says what it says.
    send(client, 2, "missing", csrf);
    expect(await next(client)).toEqual({ t: "err", m: "That row is gone.", n: 2 });
    // So does a store's refusal no handler caught (issue 29): words, not an incident.
    send(client, 3, "taken", csrf);
    expect(await next(client)).toEqual({ t: "err", m: "This slug name is already taken: another row has the same. Choose another.", n: 3 });
    send(client, 4, "increment", csrf);
    const after = await client.next();
    expect(after).toContain('"2"');
    client.socket.close();
  });

  it("a handler that never settles: after the page's handlerTimeoutMs, err and a log line; the state is kept and the next event is handled", async () => {
    const { cookie, csrf } = await visit("/stuck");
    const client = await open("stuck", "/stuck", cookie);
    await next(client);
    send(client, 1, "hang", csrf);
    const err = await next(client);
    expect(err).toMatchObject({ t: "err", n: 1 });
    expect((err as { m: string }).m).toMatch(/^Something went wrong \(incident [0-9a-f]+\)$/);
    expect(app.err.join("\n")).toContain("did not settle within 100 ms");
    send(client, 2, "bump", csrf);
    const after = await client.next();
    expect(JSON.parse(after)).toMatchObject({ t: "r", n: 2 });
    expect(after).toContain('"1"'); // 0 + 1: the hung event changed nothing
    client.socket.close();
  });

  it("in dev, a handler's error shows its message", async () => {
    const hook = { sockets: [], decorate: (html: string) => html, buildFailure: () => undefined, beforeListen: async () => {}, started: () => {}, close: () => {} };
    const dev = await serve({ routes }, { dev: true, devHook: hook });
    try {
      const response = await dev.get("/counter");
      const cookie = sessionCookie(response) as string;
      const csrf = /data-fw-csrf="([^"]+)"/.exec(await response.text())?.[1] as string;
      const client = await connect(dev.url, `/fw/live/counter.Index?path=${encodeURIComponent("/counter")}`, { headers: { cookie } });
      await client.next();
      send(client, 1, "boom", csrf);
      expect(JSON.parse(await client.next())).toEqual({ t: "err", m: "kaboom in a handler", n: 1 });
      client.socket.close();
    } finally {
      await dev.close();
    }
  });

  it("a render over 1 MiB is refused with err; the state stays as it was", async () => {
    const { cookie, csrf } = await visit("/counter");
    const client = await open("counter", "/counter?start=4", cookie);
    await next(client);
    send(client, 1, "big", csrf);
    const err = await next(client);
    expect(err).toMatchObject({ t: "err", n: 1 });
    expect((err as { m: string }).m).toContain("more than 1 MiB");
    send(client, 2, "increment", csrf);
    const after = await client.next();
    expect(after).toContain('"5"');
    expect(after).not.toContain("xxxx");
    client.socket.close();
  });

  it("a page under Route.under: its GET is under the prefix, its socket stays under /fw and mounts it from the prefixed path only", async () => {
    const { cookie, html } = await visit("/app/items/7");
    expect(html).toContain('data-fw-live="/fw/live/app.items._id.Show"');
    const client = await open("underItem", "/app/items/7", cookie);
    expect(JSON.stringify(await next(client))).toContain("7");
    client.socket.close();
    for (const path of ["/items/7", "/app", "/apple/items/7", "/app/items/x"]) {
      const refused = await open("underItem", path, cookie);
      expect(await refused.closed, path).toEqual({ code: 1008, reason: "not this page's path" });
    }
  });

  it("a path that is not the page's, or whose parameter does not decode, closes 1008", async () => {
    const { cookie } = await visit("/counter");
    for (const path of ["/elsewhere", "counter", "/items/abc", "/counter/../x"]) {
      const client = await open(path.startsWith("/items") ? "item" : "counter", path, cookie);
      expect(await client.closed, path).toEqual({ code: 1008, reason: "not this page's path" });
    }
    const none = await connect(app.url, "/fw/live/counter.Index", { headers: { cookie } });
    expect((await none.closed).code).toBe(1008);
    const item = await open("item", "/items/42", cookie);
    expect(JSON.stringify(await next(item))).toContain("42");
    item.socket.close();
  });

  it("a guarded page refuses a handshake without a sign-in (403) and opens with one, its user named", async () => {
    const refused = await refusal(app.url, `/fw/live/secret.Index?path=${encodeURIComponent("/secret")}`);
    expect(refused.status).toBe(403);
    const cookie = sessionCookie(await app.get("/login-as/ann")) as string;
    const client = await open("secret", "/secret", cookie);
    expect(JSON.stringify(await next(client))).toContain("ann");
    client.socket.close();
  });
});

describe("fw/live: forms and topics", () => {
  it("a form event reads the model's Form: the same messages as a POST to the derived Create", async () => {
    const derived = await visit("/posts/new");
    const posted = await app.post("/posts", { _csrf: derived.csrf, title: "ab" }, { headers: { cookie: derived.cookie } });
    expect(posted.status).toBe(422);
    const message = /<p class="fw-field-error" id="post-title-error">([^<]+)<\/p>/.exec(await posted.text())?.[1] as string;
    expect(message).toContain("Title");

    const { cookie, csrf, html } = await visit("/live/posts/new");
    expect(html).toContain('fw-submit="save" fw-change="check"');
    expect(html).toContain('<input type="hidden" name="_fw_event" value="save">');
    const client = await open("newPost", "/live/posts/new", cookie);
    await next(client);
    send(client, 1, "check", csrf, [["_csrf", csrf], ["_fw_event", "save"], ["title", "ab"], ["_target", "title"]]);
    const checked = await client.next();
    expect(JSON.parse(checked)).toMatchObject({ t: "r", n: 1 });
    expect(checked).toContain(JSON.stringify(message).slice(1, -1));
    client.socket.close();
  });

  it("issue 28: a form event with U+0000 in a text field is refused beside the field, as the POST is (never a store's 500)", async () => {
    const { cookie, csrf } = await visit("/live/posts/new");
    const client = await open("newPost", "/live/posts/new", cookie);
    await next(client);
    send(client, 1, "save", csrf, [["title", "nul\u0000here"]]);
    const refused = await client.next();
    expect(JSON.parse(refused)).toMatchObject({ t: "r", n: 1 });
    expect(refused).toContain("Title contains a NUL character (U+0000), which cannot be stored: remove it.");
    expect(refused).not.toContain("Saved ");
    client.socket.close();
  });

  it("publish: a save in one connection refreshes a page listening to the topic in another", async () => {
    const { cookie, csrf } = await visit("/live/posts/new");
    const list = await open("posts", "/live/posts", cookie);
    expect(JSON.stringify(await next(list))).not.toContain("Hello from live");
    const form = await open("newPost", "/live/posts/new", cookie);
    await next(form);
    send(form, 1, "save", csrf, [["title", "Hello from live"]]);
    const saved = await form.next();
    expect(saved).toContain("Saved ");
    expect(saved).toContain("Hello from live");
    const refreshed = await next(list);
    expect(refreshed).toMatchObject({ t: "r", n: 0 });
    expect(JSON.stringify(refreshed)).toContain("Hello from live");
    list.socket.close();
    form.socket.close();
  });

  it("a publish from another process (through the app's fan-out) refreshes a listening page here", async () => {
    let deliver: ((room: string, text: string) => void) | undefined;
    const published: string[] = [];
    await installFanOut({ publish: (room) => void published.push(room), start: async (to) => void (deliver = to), close: async () => undefined });
    try {
      const { cookie } = await visit("/live/posts");
      const list = await open("posts", "/live/posts", cookie);
      await next(list);
      await store.insert({ title: "Inserted here" });
      expect(JSON.stringify(await next(list))).toContain("Inserted here");
      expect(published).toEqual(["fw.live:posts"]);
      // Another process published "posts": this page mounts again and answers (nothing changed here).
      deliver?.("fw.live:posts", "{}");
      expect(await next(list)).toEqual({ t: "r", n: 0, d: { u: {} } });
      list.socket.close();
    } finally {
      await installFanOut(undefined);
    }
  });

  it("events and refreshes take turns; publishes that wait behind an event cost one mount, a page's own refresh hears each", async () => {
    const { cookie, csrf } = await visit("/counter");
    mounts_of_gated = 0;
    entered = deferred();
    gate = deferred();
    const gated = await open("gated", "/gated", cookie);
    const heard = await open("heard", "/heard", cookie);
    await next(gated);
    await next(heard);
    send(gated, 1, "wait", csrf);
    await entered.promise;
    for (const message of ["a", "b", "c"]) {
      publish("gated", message);
      publish("heard", message);
    }
    gate.resolve();
    expect(await next(gated)).toMatchObject({ t: "r", n: 1 });
    expect(JSON.stringify(await next(gated))).toContain('"2"');
    send(gated, 2, "touch", csrf);
    expect(await next(gated)).toEqual({ t: "r", n: 2, d: { u: {} } });
    expect(mounts_of_gated).toBe(2);
    const renders = [await next(heard), await next(heard), await next(heard)].map((m) => JSON.stringify(m));
    expect(renders[2]).toContain("a,b,c");
    gated.socket.close();
    heard.socket.close();
  });

  it("without JavaScript the form posts to the page: 200, 422 with the errors, 400 for an unknown event, 403 without _csrf", async () => {
    const { cookie, csrf } = await visit("/live/posts/new");
    const post = (form: Record<string, string>) => app.post("/live/posts/new", form, { headers: { cookie } });
    const ok = await post({ _csrf: csrf, _fw_event: "save", title: "Sent without JS" });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain("Saved Sent without JS");
    const bad = await post({ _csrf: csrf, _fw_event: "save", title: "ab" });
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain('class="fw-field-error"');
    const unknown = await post({ _csrf: csrf, _fw_event: "launch", title: "x" });
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain("no event named &quot;launch&quot;");
    expect((await post({ _fw_event: "save", title: "abc" })).status).toBe(403);
  });
});

describe("fw/live: GET /fw/live.js", () => {
  it("serves the client without reading or writing a session: revalidated by ETag, cached for a year at its version", async () => {
    const { html } = await visit("/counter");
    const hash = /\/fw\/live\.js\?v=([0-9a-f]{10})/.exec(html)?.[1] as string;
    const plain = await app.get("/fw/live.js");
    expect(plain.status).toBe(200);
    expect(plain.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(plain.headers.get("cache-control")).toBe("no-cache");
    expect(plain.headers.get("set-cookie")).toBeNull();
    const etag = plain.headers.get("etag") as string;
    expect(etag).toBe(`"${hash}"`);
    expect((await plain.text()).length).toBeGreaterThan(0);
    const versioned = await app.get(`/fw/live.js?v=${hash}`, { headers: { cookie: "fw_session=forged" } });
    expect(versioned.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(versioned.headers.get("set-cookie")).toBeNull();
    const again = await app.get("/fw/live.js", { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
  });
});
