import { createServer, type Server } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Provider from "oidc-provider";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formSignIn, githubProvider, InMemoryUsers, oidcProvider, providersFromEnv, seedUser, type UserFields, type Users } from "../../runtime/auth/index.js";
import { SqlUsers, usersTableSql } from "../../runtime/db/index.js";
import { assembleTable, Ok, Route, type Layout } from "../../runtime/index.js";
import { Mailer, MailboxTransport } from "../../runtime/mail/index.js";
import { TestClient } from "../../runtime/testing/client.js";
import { onEveryEngine } from "../db/engines.js";
import { serve, type Served } from "../support/serve.js";

// Issue 42, item 1: "Sign in with …" against a real OpenID Provider started here (panva's
// certified oidc-provider, its development login and consent pages driven over HTTP), never a
// mock: success, denied consent, a wrong or missing state, a replayed code, a wrong nonce, a code
// for another client, an unverified email, an expired ID token, a provider that is down, and the
// account rules (a first sign-in makes an account; an email with an account is never linked by
// itself; linking from /account or after the password; unlinking keeps one way in). GitHub is
// tested up to the redirect (its PKCE, state and scopes); its token exchange and its /user API
// are not: github.com is not reachable here, and a stand-in for it would be a mock.

const PASSWORD = "plum orbit velvet 9271";

/** The provider's people: their email, and whether it says it verified it. */
const PEOPLE: Readonly<Record<string, { email: string; verified: boolean }>> = {
  ada: { email: "ada@example.com", verified: true },
  eve: { email: "eve@example.com", verified: false },
  grace: { email: "grace@provider.example", verified: true },
};
/** The provider says this person's verified email is the email of an existing account here. */
const TAKEOVER = "mallory";

interface Fixture {
  readonly app: Served;
  readonly issuer: string;
  readonly users: Users<UserFields>;
  readonly ownerEmail: string;
  close(): Promise<void>;
}

let fixtures = 0;

/** A server on a free loopback port, its handler set later (the provider needs the app's address, the app the provider's). */
async function listening(): Promise<{ server: Server; url: string }> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address() as { port: number };
  return { server, url: `http://127.0.0.1:${address.port}` };
}

async function fixture(users: Users<UserFields>): Promise<Fixture> {
  const n = ++fixtures;
  const mailbox = mkdtempSync(join(tmpdir(), "fw-providers-"));
  const { server, url: issuer } = await listening();
  const ownerEmail = `owner-${n}@example.com`;
  await seedUser(users, ownerEmail, PASSWORD);
  const mailer = new Mailer({ from: "Shop <no-reply@shop.example>", transport: new MailboxTransport(mailbox) });
  const providers = [
    oidcProvider({ issuer, clientId: "fw-app", clientSecret: "fw-app-secret-0123456789abcdef0123456789", label: "Test ID" }),
    // The same issuer, another client, whose ID tokens live one second and whose token answers come 3 s late: they arrive expired.
    oidcProvider({ name: "slow", issuer, clientId: "slow-app", clientSecret: "slow-app-secret-0123456789abcdef012345678", clockTolerance: 1 }),
    // An issuer nobody serves: the provider is down.
    oidcProvider({ name: "down", issuer: "http://127.0.0.1:9/", clientId: "x", clientSecret: "y", timeoutSeconds: 2 }),
  ];
  const auth = formSignIn({ users, mailer, providers });
  const layout: Layout = async ({ title, content, request }) => (
    <html>
      <head>
        <title>{title ?? "shop"}</title>
      </head>
      <body>
        <p id="who">{(await auth.userOf(request))?.email ?? "signed out"}</p>
        <p id="flash">{request.session.flashed("notice") ?? ""}</p>
        {content}
      </body>
    </html>
  );
  const app = await serve({ routes: assembleTable([auth.guarded()], [Route.get("/", () => Ok(<p>home</p>))]), layout, parts: [mailer], origin: "https://shop.example", allowedHosts: ["*"] });
  const client = (id: string, secret: string) => ({ client_id: id, client_secret: secret, redirect_uris: [`${app.url}/login/with/oidc/callback`, `${app.url}/login/with/slow/callback`], grant_types: ["authorization_code"], response_types: ["code" as const] });
  const provider = new Provider(issuer, {
    clients: [client("fw-app", "fw-app-secret-0123456789abcdef0123456789"), client("slow-app", "slow-app-secret-0123456789abcdef012345678"), client("other-app", "other-app-secret-0123456789abcdef01234567")],
    findAccount: (_ctx, id) => {
      // "as:<email>": someone whose verified email at the provider is that one.
      const person = id === TAKEOVER ? { email: ownerEmail, verified: true } : id.startsWith("as:") ? { email: id.slice(3), verified: true } : PEOPLE[id];
      return person === undefined ? undefined : { accountId: id, claims: () => ({ sub: id, email: person.email, email_verified: person.verified }) };
    },
    claims: { openid: ["sub"], email: ["email", "email_verified"] },
    cookies: { keys: ["test-cookie-key-0123456789abcdef"] },
    pkce: { required: () => true },
    ttl: { IdToken: (_ctx, _token, client) => (client.clientId === "slow-app" ? 1 : 3600) },
  });
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.path === "/token" && ctx.oidc?.client?.clientId === "slow-app") await new Promise((done) => setTimeout(done, 3000));
  });
  server.on("request", provider.callback());
  return {
    app,
    issuer,
    users,
    ownerEmail,
    close: async () => {
      await app.close();
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
      await new Promise((done) => setTimeout(done, 200));
      rmSync(mailbox, { recursive: true, force: true });
    },
  };
}

/** A browser at the provider: its own cookies, following the provider's own redirects, answering its login and consent pages. */
async function atProvider(authUrl: string, login: string, options: { consent?: boolean; edit?: (url: URL) => void } = {}): Promise<URL> {
  const cookies = new Map<string, string>();
  const origin = new URL(authUrl).origin;
  const start = new URL(authUrl);
  options.edit?.(start);
  let url = start.href;
  let body: URLSearchParams | undefined;
  for (let hops = 0; hops < 20; hops++) {
    const response = await fetch(url, {
      method: body === undefined ? "GET" : "POST",
      redirect: "manual",
      headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; "), ...(body === undefined ? {} : { "content-type": "application/x-www-form-urlencoded" }) },
      ...(body === undefined ? {} : { body }),
    });
    for (const set of response.headers.getSetCookie()) {
      const [pair] = set.split(";");
      const at = (pair ?? "").indexOf("=");
      cookies.set((pair ?? "").slice(0, at), (pair ?? "").slice(at + 1));
    }
    body = undefined;
    const location = response.headers.get("location");
    if (location !== null) {
      const next = new URL(location, url);
      if (next.origin !== origin) return next; // back to the app
      url = next.href;
      continue;
    }
    const html = await response.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (action === undefined) throw new Error(`the provider answered ${response.status} with no form: ${html.slice(0, 400)}`);
    if (html.includes('name="prompt" value="login"')) {
      body = new URLSearchParams({ prompt: "login", login, password: "any" });
      url = new URL(action, url).href;
    } else if (options.consent === false) {
      url = new URL(/href="([^"]*abort[^"]*)"/.exec(html)?.[1] ?? `${new URL(action, url).pathname.replace(/\/confirm$/, "")}/abort`, url).href;
    } else {
      body = new URLSearchParams({ prompt: "consent" });
      url = new URL(action, url).href;
    }
  }
  throw new Error("the provider never sent the browser back");
}

/** The browser starts "Sign in with …" on the app: the provider's authorization URL. */
async function started(client: TestClient, provider = "oidc", extra: Record<string, string> = {}): Promise<string> {
  const answer = await client.submit("/login", extra, { action: `/login/with/${provider}` });
  expect(answer.status, answer.summary()).toBe(303);
  return answer.headers.get("location") ?? "";
}

async function who(client: TestClient): Promise<string> {
  return /<p id="who">([^<]*)<\/p>/.exec((await client.get("/")).text)?.[1] ?? "";
}

function pathOf(url: URL): string {
  return url.pathname + url.search;
}

function providerSuite(name: string, make: () => Promise<Users<UserFields>>): void {
  describe(`sign-in providers (${name})`, () => {
    let f: Fixture;
    beforeAll(async () => {
      f = await fixture(await make());
    }, 120_000);
    afterAll(() => f?.close());

    it("a first sign-in makes an account from the verified email and signs in; the next signs the same account in", async () => {
      const browser = new TestClient(f.app.url);
      const authUrl = await started(browser);
      const params = new URL(authUrl).searchParams;
      expect(authUrl.startsWith(f.issuer)).toBe(true);
      expect([params.get("code_challenge_method"), params.get("scope"), params.get("client_id")]).toEqual(["S256", "openid email", "fw-app"]);
      expect(params.get("state")?.length).toBeGreaterThanOrEqual(43);
      expect(params.get("nonce")?.length).toBeGreaterThanOrEqual(43);
      const back = await atProvider(authUrl, "ada");
      const signed = await browser.get(pathOf(back));
      expect([signed.status, signed.location]).toEqual([303, "/"]);
      expect(await who(browser)).toBe("ada@example.com");
      const user = await f.users.byEmail("ada@example.com");
      expect(user?.passwordHash).toBe("none");
      const again = new TestClient(f.app.url);
      await again.get(pathOf(await atProvider(await started(again), "ada")));
      expect(await who(again)).toBe("ada@example.com");
      // No password works for it: a provider-made account has none.
      expect((await new TestClient(f.app.url).submit("/login", { email: "ada@example.com", password: "none" })).status).toBe(422);
    });

    it("denied consent: 403, nobody signed in, no account made", async () => {
      const browser = new TestClient(f.app.url);
      const back = await atProvider(await started(browser), "grace", { consent: false });
      expect(back.searchParams.get("error")).toBe("access_denied");
      const answer = await browser.get(pathOf(back));
      expect(answer.status).toBe(403);
      expect(answer.text).toContain("You did not allow Test ID to sign you in here");
      expect(await who(browser)).toBe("signed out");
      expect(await f.users.byEmail("grace@provider.example")).toBeUndefined();
    });

    it("CSRF on the callback: a wrong state, no state, or a callback this browser did not start are 400 and change nothing", async () => {
      const browser = new TestClient(f.app.url);
      const back = await atProvider(await started(browser), "grace");
      const wrong = new URL(back);
      wrong.searchParams.set("state", "x".repeat(43));
      expect((await browser.get(pathOf(wrong))).status).toBe(400);
      const none = new URL(back);
      none.searchParams.delete("state");
      expect((await browser.get(pathOf(none))).status).toBe(400);
      // The victim's browser never started it (login CSRF): refused.
      const victim = new TestClient(f.app.url);
      const forced = await victim.get(pathOf(back));
      expect(forced.status).toBe(400);
      expect(forced.text).toContain("does not belong to a sign-in this browser started");
      expect(await who(victim)).toBe("signed out");
      expect(await f.users.byEmail("grace@provider.example")).toBeUndefined();
    });

    it("a replayed code is refused by the provider: 400, nobody signed in", async () => {
      const browser = new TestClient(f.app.url);
      const authUrl = await started(browser);
      // A copy of the browser's session (its state, nonce and verifier) replays the same callback.
      const copy = new TestClient(f.app.url);
      copy.cookies.take([browser.cookies.header() ?? ""]);
      const back = await atProvider(authUrl, "ada");
      expect((await browser.get(pathOf(back))).location).toBe("/");
      const replayed = await copy.get(pathOf(back));
      expect(replayed.status).toBe(400);
      expect(await who(copy)).toBe("signed out");
    });

    it("a wrong nonce in the ID token, and a code issued to another client, are 400", async () => {
      const browser = new TestClient(f.app.url);
      const back = await atProvider(await started(browser), "ada", { edit: (url) => url.searchParams.set("nonce", "another-nonce-0123456789abcdef0123456789abcd") });
      const answer = await browser.get(pathOf(back));
      expect(answer.status).toBe(400);
      expect(answer.text).toContain("did not pass its checks");
      const other = new TestClient(f.app.url);
      const stolen = await atProvider(await started(other), "ada", { edit: (url) => url.searchParams.set("client_id", "other-app") });
      expect((await other.get(pathOf(stolen))).status).toBe(400);
      expect(await who(browser)).toBe("signed out");
      expect(await who(other)).toBe("signed out");
    });

    it("an email the provider did not verify makes no account: 403", async () => {
      const browser = new TestClient(f.app.url);
      const answer = await browser.get(pathOf(await atProvider(await started(browser), "eve")));
      expect(answer.status).toBe(403);
      expect(answer.text).toContain("did not say that it verified your email");
      expect(await f.users.byEmail("eve@example.com")).toBeUndefined();
    });

    it("an expired ID token is refused: 400", async () => {
      const browser = new TestClient(f.app.url);
      const answer = await browser.get(pathOf(await atProvider(await started(browser, "slow"), "grace")));
      expect(answer.status).toBe(400);
      expect(answer.text).toMatch(/did not pass its checks \(JWT timestamp claim value failed validation\)/);
      expect(await f.users.byEmail("grace@provider.example")).toBeUndefined();
    }, 30_000);

    it("a provider that is down: 503 saying so, nothing changed", async () => {
      const answer = await new TestClient(f.app.url).submit("/login", {}, { action: "/login/with/down" });
      expect(answer.status).toBe(503);
      expect(answer.text).toContain("cannot be reached");
    }, 30_000);

    it("account takeover by a matching email is refused: the account is not linked nor signed in; its password links it", async () => {
      const attacker = new TestClient(f.app.url);
      const answer = await attacker.get(pathOf(await atProvider(await started(attacker), TAKEOVER)));
      expect([answer.status, answer.location]).toEqual([303, "/login"]);
      expect(await who(attacker)).toBe("signed out");
      const owner = await f.users.byEmail(f.ownerEmail);
      expect(await f.users.identities?.().list(owner?.id ?? 0)).toEqual([]);
      // The account's owner, in that browser, proves the password: then it is linked.
      const signed = await attacker.submit("/login", { email: f.ownerEmail, password: PASSWORD });
      expect(signed.location).toBe("/");
      expect(await f.users.identities?.().list(owner?.id ?? 0)).toEqual([{ provider: "oidc", subject: TAKEOVER, userId: owner?.id, email: f.ownerEmail }]);
      // A wrong password links nothing.
      const other = new TestClient(f.app.url);
      await other.get(pathOf(await atProvider(await started(other), TAKEOVER)));
      expect((await other.submit("/login", { email: f.ownerEmail, password: "not the password" })).status).toBe(422);
    });

    it("an account with two-step sign-in is not linked on its password alone", async () => {
      const email = `two-step-${fixtures}-${name.length}@example.com`;
      const user = await seedUser(f.users, email, PASSWORD);
      const store = f.users.secondFactors?.();
      await store?.begin(user.id, "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP");
      await store?.enable(user.id, 1, []);
      const browser = new TestClient(f.app.url);
      expect((await browser.get(pathOf(await atProvider(await started(browser), `as:${email}`)))).location).toBe("/login");
      expect((await browser.submit("/login", { email, password: PASSWORD })).location).toBe("/login/code");
      expect(await f.users.identities?.().list(user.id)).toEqual([]);
    });

    it("linked from /account while signed in; then it signs that account in; unlinking keeps one way in", async () => {
      const email = `linker-${fixtures}@example.com`;
      const user = await seedUser(f.users, email, PASSWORD);
      const browser = new TestClient(f.app.url);
      await browser.signIn(email, PASSWORD);
      const authUrl = await started(browser, "oidc", { link: "1" });
      const linked = await browser.get(pathOf(await atProvider(authUrl, "grace")));
      expect([linked.status, linked.location]).toEqual([303, "/account"]);
      expect((await browser.get("/account")).text).toContain("Test ID: linked (grace@provider.example)");
      const fresh = new TestClient(f.app.url);
      await fresh.get(pathOf(await atProvider(await started(fresh), "grace")));
      expect(await who(fresh)).toBe(email);
      // This account has a password: unlinking is allowed.
      const unlinked = await browser.submit("/account", { provider: "oidc" }, { action: "/account/providers/unlink" });
      expect([unlinked.status, unlinked.location]).toEqual([303, "/account"]);
      expect(await f.users.identities?.().list(user.id)).toEqual([]);
      // ada's account was made by the provider, which is its only way in: unlinking is refused.
      const ada = new TestClient(f.app.url);
      await ada.get(pathOf(await atProvider(await started(ada), "ada")));
      const kept = await ada.submit("/account", { provider: "oidc" }, { action: "/account/providers/unlink" });
      expect(kept.status).toBe(409);
      expect(kept.text).toContain("the only way into your account");
    });
  });
}

providerSuite("InMemoryUsers", async () => new InMemoryUsers());

let tables = 0;
onEveryEngine((engine) => {
  providerSuite(`SqlUsers on ${engine.name}`, async () => {
    const table = `provider_users_${++tables}`;
    await engine.db().script(`DROP TABLE IF EXISTS fw_identities; ${usersTableSql(table)}`);
    return new SqlUsers(engine.db(), { table });
  });
});

describe("GitHub (OAuth 2, no OpenID Connect): what is fw's", () => {
  it("the redirect carries PKCE (S256), a state and GitHub's scopes, and no nonce; its callback checks the state before any request to GitHub", async () => {
    const users = new InMemoryUsers();
    const mailer = new Mailer({ from: "x <x@example.com>", transport: { description: "none", deliver: async () => undefined } });
    const auth = formSignIn({ users, mailer, providers: [githubProvider({ clientId: "gh-client", clientSecret: "gh-secret" })] });
    const app = await serve({ routes: assembleTable([auth.guarded()], [Route.get("/", () => Ok("home"))]), parts: [mailer], origin: "https://shop.example", allowedHosts: ["*"] });
    try {
      const browser = new TestClient(app.url);
      const authUrl = new URL(await started(browser, "github"));
      expect(authUrl.origin + authUrl.pathname).toBe("https://github.com/login/oauth/authorize");
      const p = authUrl.searchParams;
      expect([p.get("client_id"), p.get("scope"), p.get("code_challenge_method"), p.get("redirect_uri"), p.has("nonce")]).toEqual(["gh-client", "read:user user:email", "S256", `${app.url}/login/with/github/callback`, false]);
      expect(p.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
      // A callback with another state never reaches GitHub (no network here: it would fail as 503, not 400).
      const forged = await browser.get(`/login/with/github/callback?code=stolen&state=${"y".repeat(43)}`);
      expect(forged.status).toBe(400);
      // Its state spent by the forged callback, a new flow: GitHub's "denied" comes back as a 403.
      const state = new URL(await started(browser, "github")).searchParams.get("state");
      const denied = await browser.get(`/login/with/github/callback?error=access_denied&state=${state}`);
      expect(denied.status).toBe(403);
    } finally {
      await app.close();
    }
  });

  it("providersFromEnv: none configured is none; one half configured fails, naming what is missing", () => {
    expect(providersFromEnv({})).toEqual([]);
    expect(providersFromEnv({ GITHUB_CLIENT_ID: "a", GITHUB_CLIENT_SECRET: "b" }).map((p) => p.name)).toEqual(["github"]);
    expect(() => providersFromEnv({ OIDC_ISSUER: "https://id.example", OIDC_CLIENT_ID: "a" })).toThrow("OpenID Connect sign-in is half configured: set OIDC_CLIENT_SECRET too");
    expect(() => oidcProvider({ issuer: "http://id.example", clientId: "a", clientSecret: "b" })).toThrow(/must be https/);
  });
});
