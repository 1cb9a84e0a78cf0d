import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouteRow } from "../../runtime/server/routes-listing.js";
import { bootNode, runNode } from "../support/process.js";
import { PRODUCTION_ENV, sessionCookie } from "../support/serve.js";
import { errorLines, FIXTURES, limited, notFws, tspc, type Built } from "../support/tspc.js";
import { connect } from "../support/ws-client.js";

// Issue 23 (fw/live), spec 4.6: a route file whose handler export is a live page mounts the
// page's GET and POST at its place in the table, its socket and the live client after it; the
// build checks the events its markup sends against its handlers.

const fixtures = ["live-app", "live-unknown-event", "live-event-payload", "live-page-errors", "live-warnings"] as const;
const built = new Map<string, Built>();

beforeAll(async () => {
  const results = await limited(2, fixtures.map((name) => () => tspc(join(FIXTURES, name))));
  fixtures.forEach((name, i) => built.set(name, results[i] as Built));
}, 600_000);

const result = (name: (typeof fixtures)[number]): Built => built.get(name) as Built;
const generated = (name: string): string => readFileSync(join(FIXTURES, name, "src/.fw/routes.ts"), "utf8");

describe("a live app's generated table", () => {
  it("builds, with no diagnostic", () => {
    expect(result("live-app").code, result("live-app").output).toBe(0);
    expect(result("live-app").output).toBe("");
    expect(existsSync(join(FIXTURES, "live-app/dist/.fw/routes.js"))).toBe(true);
  });

  it("imports fw/live's routes and `publishing`", () => {
    expect(generated("live-app")).toContain(`import { liveClientRoute, livePageRoutes, liveSocketRoute, publishing } from "fw/live";`);
  });

  it("wraps each model's store so writes publish the topic named like its path", () => {
    expect(generated("live-app")).toContain(`const store0 = publishing(storeFor(model0), "posts");`);
  });

  it("tells each page its id, path, decoders, capabilities (a model's store among them), form models and source", () => {
    const text = generated("live-app");
    expect(text).toContain("const c0 = { posts: store0, clock: capabilities.clock };");
    expect(text).toContain(
      `const mount0 = { id: "posts._id.Watch", path: "/posts/:id/watch", params: { id: FromPath.typia("number", typia.http.createParameter<Parameters<typeof r0.watch.spec.mount>[0]["params"]["id"]>()) }, capabilities: c0, forms: { check: model0, save: model0 }, source: "src/app/posts/_id/Watch.tsx" };`,
    );
    expect(text).toContain(
      `const mount1 = { id: "counter.Index", path: "/counter", query: queryDecoder({"from":{"kind":"number","list":false}}, typia.createValidate<Parameters<typeof r1.index.spec.mount>[0]["queryParams"]>()), capabilities: {}, forms: { find: form0 }, source: "src/app/counter/Index.tsx" };`,
    );
  });

  it("gives a model deriving Form alone that a page reads (through the app's alias of FormInput) its ModelSpec, and no store nor routes", () => {
    const text = generated("live-app");
    expect(text).toContain(`import * as f0 from "../models/Search.js";`);
    expect(text).toContain("const form0: ModelSpec<f0.Search> = {");
    expect(text).not.toMatch(/storeFor\(form0|resourceRoutes\(form0/);
  });

  it("puts each page's rows at its place (wrapped by its guard when it has one), then every other row, then its sockets and the client last", () => {
    const text = generated("live-app");
    const body = text.slice(text.indexOf("return assembleTable("));
    const lines = body.split("\n").map((line) => line.trim());
    expect(lines).toEqual([
      "return assembleTable(guards, [",
      "// from src/app/posts/_id/Watch.tsx",
      "...livePageRoutes(r0.watch, mount0).map((route) => r0.guarded.through(route)),",
      "// from src/app/counter/Index.tsx",
      "...livePageRoutes(r1.index, mount1),",
      "// from src/app/Index.tsx",
      `Route.http({ method: "GET", path: "/", handler: r2.index, source: "src/app/Index.tsx" }),`,
      "// from src/models/Post.ts (the derived routes of Post: models.Post)",
      `...guardFor(m0.Post.options.guarded, resourceRoutes(model0, store0, { actions: m0.Post.options.actions, relations, guard: m0.Post.options.guarded, source: "src/models/Post.ts" })),`,
      "]).concat([",
      "// from src/app/posts/_id/Watch.tsx (its live socket)",
      "r0.guarded.through(liveSocketRoute(r0.watch, mount0)),",
      "// from src/app/counter/Index.tsx (its live socket)",
      "liveSocketRoute(r1.index, mount1),",
      "// the live client (fw/live)",
      "liveClientRoute(),",
      "]);",
      "}",
      "",
    ]);
  });
});

/** Each broken app must fail with these lines. */
const broken: Record<string, readonly RegExp[]> = {
  "live-unknown-event": [
    /src\/app\/Index\.tsx\(9,15\): error TS91025: fw: src\/app\/Index\.tsx: the markup sends the event "incremnt" \(fw-click\), but the live page `index` has no handler of that name in `events` \(it has `increment`, `save`\)\. Add `incremnt: \(state, values: LiveValues\) => …` to its events, or fix the name\./,
    /src\/app\/Index\.tsx\(10,36\): error TS91025: .*the event "chek" \(view\.form's change\).*Add `chek: \(state, input: FormInput<Model>\) => …`/,
    /src\/app\/quiet\/Index\.tsx\(6,33\): error TS91025: .*the event "search" \(fw-keyup\), but the live page `index` has no handler of that name in `events` \(it has none\)/,
  ],
  "live-event-payload": [
    /src\/app\/Index\.tsx\(21,27\): error TS91026: fw: src\/app\/Index\.tsx: the event "bump" is sent by fw-click, which sends the element's fw-value-\* attributes as `LiveValues`, not a form, but its handler takes `FormInput<Note>`\. Type the payload `values: LiveValues`/,
    /src\/app\/Index\.tsx\(22,27\): error TS91026: .*the event "pick" is sent by fw-change on an input, .*but its handler takes `FormInput<Note>`/,
    /src\/app\/Index\.tsx\(23,27\): error TS91026: .*the event "send" is sent by fw-submit, which sends the form's fields, but its handler takes `number`\. Type the payload `input: FormInput<Model>` .* or `values: LiveValues`/,
    /src\/app\/Index\.tsx\(24,28\): error TS91026: .*the event "keep" is sent by view\.form, which renders a model's form, but its handler declares `LiveValues`/,
    /src\/app\/Index\.tsx\(25,28\): error TS91026: .*the handler of the event "ghost" takes `FormInput<Ghost>`, but Ghost is not a model the build knows.*Derive its form: export const Ghost = derives<Ghost>\(Form\);/,
  ],
  "live-page-errors": [
    /src\/app\/mail\/Index\.tsx\(\d+,\d+\): error TS91004: fw: `index` in src\/app\/mail\/Index\.tsx needs the capability `mailer: Mailer`, which src\/capabilities\.ts does not supply/,
    /src\/app\/later\/Create\.tsx\(\d+,\d+\): error TS91002: fw: src\/app\/later\/Create\.tsx mounts POST \/later, but `create` is a live page, which is a page to GET/,
    /src\/app\/notes\/Create\.ts\(\d+,\d+\): error TS91006: fw: src\/app\/notes\/Create\.ts and the live page src\/app\/notes\/Index\.tsx both mount POST \/notes/,
    /src\/app\/wrong\/Index\.tsx\(6,10\): error TS91010: fw: src\/app\/wrong\/Index\.tsx mounts GET \/wrong: `index\.mount` reads the path parameter `id`, but its path has no such parameter/,
    /src\/app\/pages\/Index\.tsx\(\d+,\d+\): error TS91110: fw: src\/app\/pages\/Index\.tsx mounts GET \/pages: `index\.mount` reads the query parameter `range` as `\{ from: number; \}`, which fw cannot read from a query's text: it is not one primitive/,
  ],
};

describe("live pages the build refuses, naming the file and the fix", () => {
  it.each(Object.keys(broken))("%s", (name) => {
    const built = result(name as (typeof fixtures)[number]);
    expect(built.code, built.output).not.toBe(0);
    for (const line of broken[name] as readonly RegExp[]) expect(built.output).toMatch(line);
    expect(errorLines(built.output)).toHaveLength((broken[name] as readonly RegExp[]).length);
    expect(notFws(built.output), built.output).toEqual([]);
  });

  it("a live page at a derived model's path is a warning: its POST would take the model's Create", () => {
    const built = result("live-warnings");
    expect(built.code, built.output).toBe(0);
    expect(built.output).toMatch(
      /src\/app\/notes\/Index\.tsx\(4,1\): warning TS91028: fw: src\/app\/notes\/Index\.tsx is a live page at \/notes, where Note's derived Create is mounted \(POST \/notes\).*Move the live page to its own path \(\/notes\/live: a Live\.tsx beside it\), or leave Create out of Note's actions\./,
    );
  });

  it("a live page without events at a derived model's path mounts no POST: no warning, the model's Create stays", () => {
    const built = result("live-warnings");
    expect(built.code, built.output).toBe(0);
    expect(built.output).not.toContain("tasks/Index.tsx");
    expect(built.output.match(/TS91028/g)).toHaveLength(1); // the notes page's alone
  });

  it("events the build cannot read are a warning (the build goes on): nothing is checked", () => {
    const built = result("live-warnings");
    expect(built.code, built.output).toBe(0);
    expect(built.output).toMatch(
      /src\/app\/Index\.tsx\(10,3\): warning TS91027: fw: src\/app\/Index\.tsx: the build cannot read the events of the live page `index`, so the events its markup names are not checked.*Write them inline/,
    );
    expect(generated("live-warnings")).toContain(`const mount2 = { id: "Index", path: "/", capabilities: {}, source: "src/app/Index.tsx" };`);
  });
});

describe("the live app built, served", () => {
  const main = join(FIXTURES, "live-app/dist/main.js");
  let app: ReturnType<typeof bootNode> | undefined;
  let url = "";
  beforeAll(async () => {
    expect(result("live-app").code, result("live-app").output).toBe(0);
    app = bootNode(main, [], { ...PRODUCTION_ENV });
    url = await app.url;
  });
  afterAll(async () => {
    app?.child.kill("SIGTERM");
    await app?.exited;
  });

  it("routes --json lists each page's GET and POST at its place, the carried sign-in, then the sockets and the client last", async () => {
    const listed = await runNode(main, ["routes", "--json"], { ...PRODUCTION_ENV });
    expect(listed.code, listed.err).toBe(0);
    const rows = (JSON.parse(listed.out) as { routes: readonly RouteRow[] }).routes.map((row) => `${row.method} ${row.path} ${row.source}`);
    expect(rows.slice(0, 5)).toEqual([
      "GET /posts/:id/watch src/app/posts/_id/Watch.tsx",
      "POST /posts/:id/watch src/app/posts/_id/Watch.tsx",
      "GET /counter src/app/counter/Index.tsx",
      "POST /counter src/app/counter/Index.tsx",
      "GET / src/app/Index.tsx",
    ]);
    expect(rows.slice(-4)).toEqual([
      "GET /login src/guard.ts",
      "WS /fw/live/posts._id.Watch src/app/posts/_id/Watch.tsx",
      "WS /fw/live/counter.Index src/app/counter/Index.tsx",
      "GET /fw/live.js fw/live client",
    ]);
  });

  it("GET renders the page in its live root; its socket answers a click with the new count", async () => {
    const page = await fetch(`${url}/counter`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('data-fw-live="/fw/live/counter.Index"');
    const csrf = /data-fw-csrf="([^"]+)"/.exec(html)?.[1] as string;
    const cookie = sessionCookie(page) as string;
    const client = await connect(url, `/fw/live/counter.Index?path=${encodeURIComponent("/counter")}`, { headers: { cookie } });
    expect(JSON.parse(await client.next())).toMatchObject({ t: "r", n: 0 });
    client.socket.send(JSON.stringify({ t: "e", n: 1, e: "increment", c: csrf, v: [["by", "2"]] }));
    const answer = await client.next();
    expect(JSON.parse(answer)).toMatchObject({ t: "r", n: 1 });
    // The whole section (this fixture's JSX is not pre-rendered into templates), or the one hole.
    expect(answer).toMatch(/Count: 2<|"2"/);
    client.socket.close();
  });

  it("mount's declared query parameters are decoded on the GET and on the socket; a bad one is a 400 naming it, and closes the socket", async () => {
    const page = await fetch(`${url}/counter?from=5`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Count: 5");
    const refused = await fetch(`${url}/counter?from=five`);
    expect(refused.status).toBe(400);
    expect(refused.headers.get("content-type")).toContain("text/html");
    expect(await refused.text()).toMatch(/query parameter (&quot;|&#34;|")from(&quot;|&#34;|")/);
    const cookie = sessionCookie(page) as string;
    const client = await connect(url, `/fw/live/counter.Index?path=${encodeURIComponent("/counter?from=7")}`, { headers: { cookie } });
    expect(await client.next()).toMatch(/Count: 7<|"7"/);
    client.socket.close();
    const bad = await connect(url, `/fw/live/counter.Index?path=${encodeURIComponent("/counter?from=0x7")}`, { headers: { cookie } });
    expect(await bad.closed).toMatchObject({ code: 1008, reason: "not this page's path" });
  });

  it("a form event without JavaScript is read with the Form-only model's ModelSpec the table gave the page", async () => {
    const page = await fetch(`${url}/counter`);
    const csrf = /data-fw-csrf="([^"]+)"/.exec(await page.text())?.[1] as string;
    const cookie = sessionCookie(page) as string;
    const body = new URLSearchParams({ _csrf: csrf, _fw_event: "find", q: "needle" });
    const posted = await fetch(`${url}/counter`, { method: "POST", body, headers: { cookie, "content-type": "application/x-www-form-urlencoded", origin: url } });
    expect(posted.status).toBe(200);
    expect(await posted.text()).toContain('value="needle"');
  });

  it("the guarded page's rows go through its guard: nobody signed in is sent to sign in", async () => {
    const page = await fetch(`${url}/posts/1/watch`, { redirect: "manual" });
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe("/login");
  });
});
