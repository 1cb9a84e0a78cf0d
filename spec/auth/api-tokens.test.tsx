import { Validator } from "@seriousme/openapi-schema-validator";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKey, formSignIn, InMemoryUsers, MAX_TOKENS_PER_USER, seedUser, type UserFields, type Users } from "../../runtime/auth/index.js";
import { createClient } from "../../runtime/client/index.js";
import { API_TOKENS_TABLE, SqlUsers, usersTableSql, type Database } from "../../runtime/db/index.js";
import { assembleTable, Json, Ok, Route, type Layout } from "../../runtime/index.js";
import { Mailer, MailboxTransport, readMailbox } from "../../runtime/mail/index.js";
import { TestClient } from "../../runtime/testing/client.js";
import { freshApiToken } from "../../runtime/auth/api-token-store.js";
import { openApiDocument } from "../../runtime/openapi/document.js";
import { onEveryEngine } from "../db/engines.js";
import { serve, type Served } from "../support/serve.js";

// Issue 42, item 4: per-user API tokens. Made on /account (name, lifetime, scopes, the current
// password), shown once, listed with their last use, revoked; a route asks for one scope with
// `auth.token({ scope })`. Run on InMemoryUsers and on SqlUsers (fw_api_tokens) on PGlite and
// PostgreSQL; two apps on one database stand for two processes (the store is the truth, read on
// every call). The build's check of the scope is spec/auth/token-scopes.test.ts.

const PASSWORD = "plum orbit velvet 9271";
const SCOPES = { "posts:write": "Add posts", "posts:read": "Read your drafts" } as const;

/** A database whose statements are counted: what one API call costs. */
function counted(db: Database): { readonly db: Database; count: () => number } {
  let statements = 0;
  const proxy = new Proxy(db, {
    get(target, name, receiver) {
      if (name === "query") return (...args: Parameters<Database["query"]>) => (statements++, target.query(...args));
      const value: unknown = Reflect.get(target, name, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { db: proxy, count: () => statements };
}

interface TokenApp {
  readonly served: Served;
  readonly mailbox: string;
  close(): Promise<void>;
}

async function tokenApp(users: Users<UserFields>): Promise<TokenApp> {
  const mailbox = mkdtempSync(join(tmpdir(), "fw-tokens-"));
  const mailer = new Mailer({ from: "Shop <no-reply@shop.example>", transport: new MailboxTransport(mailbox) });
  let address = 0;
  // Each request its own address: the account forms' budget of 20 is not what these tests are about.
  const auth = formSignIn({ users, mailer, scopes: SCOPES, addressOf: () => `client ${address++}` });
  const write = auth.token({ scope: "posts:write" });
  const read = auth.token({ scope: "posts:read" });
  const layout: Layout = async ({ title, content, request }) => (
    <html>
      <head>
        <title>{title ?? "shop"}</title>
      </head>
      <body>
        <p id="flash">{request.session.flashed("notice") ?? ""}</p>
        {content}
      </body>
    </html>
  );
  const routes = assembleTable(
    [auth.guarded(), write, read],
    [
      Route.get("/", () => Ok(<p>home</p>)),
      write.through(Route.api({ method: "POST", path: "/api/posts", handler: (request) => Json({ caller: write.callerOf(request) ?? null }, 201) })),
      read.through(Route.api({ method: "GET", path: "/api/drafts", handler: (request) => Json({ caller: read.callerOf(request) ?? null }) })),
      // A browser page guarded by a token (the build refuses it, TS91091): refused at run time too.
      write.through(Route.get("/posts/new-by-token", () => Ok(<p>form</p>))),
    ],
  );
  const served = await serve({ routes, layout, parts: [mailer], origin: "https://shop.example", allowedHosts: ["*"] });
  return { served, mailbox, close: async () => (await served.close(), await settled(mailbox), rmSync(mailbox, { recursive: true, force: true })) };
}

/** Waits until no mail is being written to the mailbox (mail is sent after the answer, never awaited). */
async function settled(mailbox: string): Promise<void> {
  let seen = -1;
  for (let tries = 0; tries < 50; tries++) {
    const now = (await readMailbox(mailbox)).length;
    if (now === seen) return;
    seen = now;
    await new Promise((done) => setTimeout(done, 100));
  }
}

/** Posts the account page's token form as a browser does (one `scope` field per box ticked). */
async function createToken(client: TestClient, fields: { name: string; days?: string; scopes: readonly string[]; current?: string }) {
  const page = await client.get("/account");
  const form = page.forms().find((f) => f.action === "/account/tokens");
  expect(form, page.text).toBeDefined();
  const body = new URLSearchParams({ _csrf: form?.fields["_csrf"] ?? "", name: fields.name, days: fields.days ?? "30", current: fields.current ?? PASSWORD });
  for (const scope of fields.scopes) body.append("scope", scope);
  const answer = await fetch(`${client.url}/account/tokens`, { method: "POST", redirect: "manual", headers: { cookie: client.cookies.header() ?? "", "content-type": "application/x-www-form-urlencoded" }, body });
  const text = await answer.text();
  return { status: answer.status, text, token: /<code class="fw-token">([^<]+)<\/code>/.exec(text)?.[1] };
}

function call(app: TokenApp, path: string, token: string | undefined, init: RequestInit = {}): Promise<globalThis.Response> {
  const headers: Record<string, string> = { ...(init.headers as Record<string, string> | undefined) };
  if (token !== undefined) headers["authorization"] = `Bearer ${token}`;
  return fetch(app.served.url + path, { method: path === "/api/posts" ? "POST" : "GET", ...init, headers });
}

async function detail(answer: globalThis.Response): Promise<string> {
  return unescaped(/<p class="fw-problem-detail">([\s\S]*?)<\/p>/.exec(await answer.text())?.[1] ?? "");
}

function unescaped(html: string): string {
  return html.replaceAll("&quot;", '"').replaceAll("&#39;", "'").replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");
}

let emails = 0;

/** The token suite, on one users store (and, for SQL, a second app on the same database: another process). */
function tokenSuite(name: string, make: () => Promise<{ users: Users<UserFields>; other?: Users<UserFields>; statements?: () => number; raw?: () => Database }>): void {
  describe(`per-user API tokens (${name})`, () => {
    let app: TokenApp;
    let other: TokenApp | undefined;
    let users: Users<UserFields>;
    let statements: (() => number) | undefined;
    let raw: (() => Database) | undefined;
    beforeAll(async () => {
      const made = await make();
      users = made.users;
      statements = made.statements;
      raw = made.raw;
      app = await tokenApp(users);
      if (made.other !== undefined) other = await tokenApp(made.other);
    }, 120_000);
    afterAll(async () => {
      await app?.close();
      await other?.close();
    });

    async function signedIn(): Promise<{ client: TestClient; email: string; id: number }> {
      const email = `owner-${++emails}@example.com`;
      const user = await seedUser(users, email, PASSWORD);
      const client = new TestClient(app.served.url);
      await client.signIn(email, PASSWORD);
      return { client, email, id: user.id };
    }

    it("made on /account with a name, a lifetime and scopes, shown once, hashed in the store, listed with its last use; the owner is told by mail", async () => {
      const { client, email, id } = await signedIn();
      const made = await createToken(client, { name: "deploy script", scopes: ["posts:write"] });
      expect(made.status, made.text).toBe(200);
      expect(made.token).toMatch(/^fwt_[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);
      const token = made.token as string;
      expect(made.text).toContain("Copy it now: it is not shown again.");
      // Shown once: the account page lists it by name, never its text.
      const listed = await client.get("/account");
      expect(listed.text).toContain("deploy script");
      expect(listed.text).not.toContain(token.slice(27));
      expect(listed.text).toMatch(/<td>posts:write<\/td>.*<td>never<\/td>/s);
      // The store keeps the selector and the SHA-256 of the verifier, nothing that works as a token.
      const [record] = await (users.apiTokens?.() ?? fail()).list(id);
      const [selector, verifier] = token.slice(4).split(".") as [string, string];
      expect(record?.selector).toBe(selector);
      expect(record?.verifierHash).toBe(createHash("sha256").update(verifier).digest("base64url"));
      expect(JSON.stringify(record)).not.toContain(verifier);
      if (raw !== undefined) expect(JSON.stringify((await raw().query(`SELECT * FROM ${API_TOKENS_TABLE} WHERE user_id = $1`, [id])).rows)).not.toContain(verifier);
      // Its call names the owner; the page then shows when it was last used.
      const answer = await call(app, "/api/posts", token);
      expect(answer.status).toBe(201);
      expect(await answer.json()).toEqual({ caller: String(id) });
      expect((await client.get("/account")).text).not.toMatch(/<td>never<\/td>/);
      await expect.poll(async () => (await readMailbox(app.mailbox)).some((mail) => mail.to.includes(email) && mail.subject === "A new API token was created")).toBe(true);
    });

    it("the typed client takes the token: createClient(url, { token })", async () => {
      const { client, id } = await signedIn();
      const { token } = await createToken(client, { name: "client", scopes: ["posts:read"] });
      const api = createClient<{ "GET /api/drafts": { params: {}; body: never; answer: { caller: string | null } } }>(app.served.url, { token: token as string });
      expect(await api.get("/api/drafts")).toEqual({ caller: String(id) });
      expect(() => createClient(app.served.url, { token: "fwt_x y" })).toThrow(/holds a space or control character/);
    });

    it("refused with a 403 saying why: no header, not a bearer token, a malformed or unknown token, a wrong verifier, a missing scope; the route's handler never runs", async () => {
      const { client } = await signedIn();
      const { token } = await createToken(client, { name: "reader", scopes: ["posts:read"] });
      const [selector] = (token as string).slice(4).split(".") as [string];
      const cases: [string | undefined, RegExp][] = [
        [undefined, /This API needs a token with the scope "posts:write": send the header Authorization: Bearer <token> \(create one at \/account\)/],
        ["fwt_" + "A".repeat(22) + "." + "B".repeat(43), /The token is not valid: it was revoked, or copied wrong\./],
        ["not-a-token", /The token is not valid/],
        // The right selector with another verifier: refused, and it does not count as a use.
        [`fwt_${selector}.${"C".repeat(43)}`, /The token is not valid/],
      ];
      for (const [sent, said] of cases) {
        const answer = await call(app, "/api/posts", sent);
        expect(answer.status).toBe(403);
        expect(await detail(answer)).toMatch(said);
      }
      const basic = await fetch(`${app.served.url}/api/posts`, { method: "POST", headers: { authorization: `Basic ${Buffer.from("a:b").toString("base64")}` } });
      expect([basic.status, await detail(basic)]).toEqual([403, "The Authorization header is not a bearer token: send Authorization: Bearer <token>."]);
      expect((await client.get("/account")).text).toMatch(/<td>reader<\/td>.*<td>never<\/td>/s);
      // The right token without the scope: refused (its use is recorded: it is its owner's token, presented whole).
      const unscoped = await call(app, "/api/posts", token);
      expect([unscoped.status, await detail(unscoped)]).toEqual([403, 'The token "reader" does not have the scope "posts:write" this route needs: create one that has it at /account.']);
    });

    it("a token sent as a cookie is not read, a session cookie does not open an API route, and a token does not open a browser page", async () => {
      const { client } = await signedIn();
      const { token } = await createToken(client, { name: "cookie", scopes: ["posts:write"] });
      const asCookie = await call(app, "/api/posts", undefined, { headers: { cookie: `token=${token}; fw_session=${token}; authorization=Bearer%20${token}` } });
      expect(asCookie.status).toBe(403);
      const withSession = await call(app, "/api/posts", undefined, { headers: { cookie: client.cookies.header() ?? "" } });
      expect(withSession.status).toBe(403);
      const page = await call(app, "/posts/new-by-token", token, { method: "GET" });
      expect([page.status, await detail(page)]).toEqual([403, "This page is guarded by an API token, and a token never works on a browser page: guard it with auth.guarded(), or make its handler take ApiRequest."]);
    });

    it("revoked from /account: refused at once, in this process and in another on the same store; another user cannot revoke it", async () => {
      const { client, id } = await signedIn();
      const { token } = await createToken(client, { name: "to revoke", scopes: ["posts:write"] });
      expect((await call(app, "/api/posts", token)).status).toBe(201);
      if (other !== undefined) expect((await call(other, "/api/posts", token)).status).toBe(201);
      const [record] = await (users.apiTokens?.() ?? fail()).list(id);
      // Someone else's revoke names nothing of theirs: nothing changes.
      const stranger = await signedIn();
      const page = (await stranger.client.get("/account")).forms().find((f) => f.action === "/account/tokens")?.fields["_csrf"] ?? "";
      const refused = await stranger.client.post("/account/tokens/revoke", { _csrf: page, token: record?.selector ?? "" });
      expect(refused.status).toBe(303);
      expect((await stranger.client.follow(refused)).text).toContain("There is no such token");
      expect((await call(app, "/api/posts", token)).status).toBe(201);
      const revoked = await client.submit("/account", { token: record?.selector ?? "" }, { action: "/account/tokens/revoke" });
      expect([revoked.status, revoked.location]).toEqual([303, "/account"]);
      expect(unescaped((await client.follow(revoked)).text)).toContain('The token "to revoke" is revoked');
      expect((await call(app, "/api/posts", token)).status).toBe(403);
      if (other !== undefined) expect((await call(other, "/api/posts", token)).status).toBe(403);
    });

    it("an expired token is refused, saying so; deleting the account removes its tokens", async () => {
      const { client, id } = await signedIn();
      const store = users.apiTokens?.() ?? fail();
      // A token whose expiry has passed (the form offers 7 days at least: this one is made as the form makes them, a day old).
      const made = freshApiToken({ userId: id, name: "old", scopes: ["posts:write"], createdAt: Date.now() - 86_400_000, expiresAt: Date.now() - 1000 });
      expect(await store.create(made.record, MAX_TOKENS_PER_USER)).toBe(true);
      const token = made.token;
      const answer = await call(app, "/api/posts", token);
      expect([answer.status, await detail(answer)]).toEqual([403, `The token "old" expired on ${new Date(Date.now() - 1000).toISOString().slice(0, 10)}: create a new one at /account.`]);
      const { token: fresh } = await createToken(client, { name: "fresh", scopes: ["posts:write"] });
      expect((await call(app, "/api/posts", fresh)).status).toBe(201);
      const deleted = await client.submit("/account", { current: PASSWORD }, { action: "/account/delete" });
      expect(deleted.status).toBe(303);
      expect((await call(app, "/api/posts", fresh)).status).toBe(403);
      expect(await store.list(id)).toEqual([]);
    });

    it("bad input makes no token: a 422 beside the field (no name, a long one, an unknown scope, none, another lifetime, a wrong password)", async () => {
      const { client, id } = await signedIn();
      const refusals: [Parameters<typeof createToken>[1], RegExp][] = [
        [{ name: "", scopes: ["posts:write"] }, /Give the token a name/],
        [{ name: "x".repeat(101), scopes: ["posts:write"] }, /A name is at most 100 characters/],
        [{ name: "tab\there", scopes: ["posts:write"] }, /without control characters/],
        [{ name: "admin", scopes: ["admin"] }, /Only this site's scopes: posts:write, posts:read/],
        [{ name: "none", scopes: [] }, /Give it one scope at least/],
        [{ name: "forever", days: "100000", scopes: ["posts:write"] }, /Choose how long it lives: 7, 30, 90, 365 days/],
        [{ name: "guessed", scopes: ["posts:write"], current: "not my password at all" }, /This is not your current password/],
      ];
      for (const [fields, said] of refusals) {
        const answer = await createToken(client, fields);
        expect(answer.status, answer.text).toBe(422);
        expect(unescaped(answer.text)).toMatch(said);
        expect(answer.token).toBeUndefined();
      }
      expect(await (users.apiTokens?.() ?? fail()).list(id)).toEqual([]);
    });

    it(`at most ${MAX_TOKENS_PER_USER} tokens per account`, async () => {
      const { client, id } = await signedIn();
      const store = users.apiTokens?.() ?? fail();
      const { token } = await createToken(client, { name: "first", scopes: ["posts:write"] });
      const [first] = await store.list(id);
      for (let i = 1; i < MAX_TOKENS_PER_USER; i++) expect(await store.create({ ...(first ?? fail()), selector: `s${i}`.padEnd(22, "x"), name: `t${i}` }, MAX_TOKENS_PER_USER)).toBe(true);
      const refused = await createToken(client, { name: "one too many", scopes: ["posts:write"] });
      expect(refused.status).toBe(422);
      expect(refused.text).toContain(`You hold ${MAX_TOKENS_PER_USER} tokens, the most an account may: revoke one first.`);
      expect(await store.list(id)).toHaveLength(MAX_TOKENS_PER_USER);
      expect((await call(app, "/api/posts", token)).status).toBe(201);
    });

    if (name !== "InMemoryUsers") {
      it("an API call costs one statement at most: its token is read once, then remembered (until revoked, or 10 s); an unknown token costs one", async () => {
        const { client } = await signedIn();
        const { token } = await createToken(client, { name: "counted", scopes: ["posts:write"] });
        const cost = async (sent: string | undefined): Promise<number> => {
          const before = statements?.() ?? 0;
          await (await call(app, "/api/posts", sent)).text();
          return (statements?.() ?? 0) - before;
        };
        expect(await cost(token)).toBe(1);
        expect([await cost(token), await cost(token)]).toEqual([0, 0]);
        expect(await cost(`fwt_${"A".repeat(22)}.${"B".repeat(43)}`)).toBe(1);
        // A wrong verifier for a remembered token: refused without a statement, and it forgets nothing.
        expect(await cost(`fwt_${(token as string).slice(4, 26)}.${"C".repeat(43)}`)).toBe(0);
        expect(await cost(token)).toBe(0);
      });
    }
  });
}

function fail(): never {
  throw new Error("expected a value");
}

tokenSuite("InMemoryUsers", async () => ({ users: new InMemoryUsers() }));

describe("the OpenAPI document declares the token scheme and each operation's scope", () => {
  it("a bearer scheme `token`, `security: [{ token: [scope] }]` per guarded operation, apiKey's beside it; the document passes the validator", async () => {
    const auth = formSignIn({ users: new InMemoryUsers(), mailer: { send: async () => undefined }, scopes: SCOPES });
    const write = auth.token({ scope: "posts:write" });
    const service = apiKey({ keys: new Map([["service-key-0123456789", 1]]) });
    const routes = assembleTable(
      [auth.guarded(), write, service],
      [
        write.through(Route.api({ method: "POST", path: "/api/posts", handler: () => Json({}, 201) })),
        service.through(Route.api({ method: "GET", path: "/api/stats", handler: () => Json({}) })),
      ],
    ).routes;
    const document = (await openApiDocument(routes, { title: "Test", version: "1.0.0" })) as {
      paths: Record<string, Record<string, { security?: unknown; responses: Record<string, { description: string }> }>>;
      components: { securitySchemes?: Record<string, { type: string; scheme: string }> };
    };
    expect(document.components.securitySchemes?.["token"]).toMatchObject({ type: "http", scheme: "bearer" });
    expect(document.components.securitySchemes?.["apiKey"]).toMatchObject({ type: "http", scheme: "bearer" });
    expect(document.paths["/api/posts"]?.["post"]?.security).toEqual([{ token: ["posts:write"] }]);
    expect(document.paths["/api/posts"]?.["post"]?.responses["403"]?.description).toContain("token:posts:write");
    expect(document.paths["/api/stats"]?.["get"]?.security).toEqual([{ apiKey: [] }]);
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document) as Record<string, unknown>);
    expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("a scope that is none of the app's fails at boot too (an app built without fw's transformer), naming the app's scopes", () => {
    const auth = formSignIn({ users: new InMemoryUsers(), mailer: { send: async () => undefined }, scopes: SCOPES });
    expect(() => auth.token({ scope: "post:write" })).toThrow('auth.token: the scope "post:write" is not one of the app\'s ("posts:write", "posts:read").');
    expect(() => formSignIn({ users: new InMemoryUsers(), scopes: SCOPES })).toThrow(/scopes need a mailer/);
    expect(() => formSignIn({ users: new InMemoryUsers(), mailer: { send: async () => undefined }, scopes: { "Posts Write": "x" } })).toThrow(/is not a scope name/);
  });
});

let tables = 0;
onEveryEngine((engine) => {
  tokenSuite(`SqlUsers on ${engine.name}`, async () => {
    const table = `token_users_${++tables}`;
    await engine.db().script(usersTableSql(table));
    // API_TOKENS_TABLE references the first users table made here: one per database, as an app has.
    await engine.db().query(`DROP TABLE IF EXISTS ${API_TOKENS_TABLE}`);
    const { db, count } = counted(engine.db());
    return { users: new SqlUsers(db, { table }), other: new SqlUsers(engine.db(), { table }), statements: count, raw: () => engine.db() };
  });
});
