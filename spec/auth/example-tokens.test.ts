import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../runtime/client/index.js";
import { startApp, type TestApp, type TestClient } from "../../runtime/testing/index.js";
import { noPostgresNotice, postgresBin, startCluster, type PostgresCluster } from "../support/postgres.js";

// Issue 42, items 4 and 5: the example's API tokens end to end, as built: a token with the scope
// posts:write made on /account, `POST /api/posts` with it through fw/client, refusals without it,
// and revocation. Then two processes of the example on one PostgreSQL database: a token revoked
// on one is refused at once by the other (the revocation travels by LISTEN/NOTIFY).

const PASSWORD = "plum orbit velvet 9271";

/** Signs up (through the mailed link) and makes a token on /account; answers the token. */
async function tokenFor(app: TestApp, email: string, scopes: readonly string[] = ["posts:write"]): Promise<{ browser: TestClient; token: string }> {
  const browser = app.client();
  await browser.signUp(email, PASSWORD);
  const page = await browser.get("/account");
  const form = page.forms().find((f) => f.action === "/account/tokens");
  expect(form, page.text.slice(0, 2000)).toBeDefined();
  const body = new URLSearchParams({ _csrf: form?.fields["_csrf"] ?? "", name: "script", days: "30", current: PASSWORD });
  for (const scope of scopes) body.append("scope", scope);
  const answer = await fetch(`${app.url}/account/tokens`, { method: "POST", headers: { cookie: browser.cookies.header() ?? "", "content-type": "application/x-www-form-urlencoded" }, body });
  const text = await answer.text();
  const token = /<code class="fw-token">([^<]+)<\/code>/.exec(text)?.[1];
  expect(token, text.slice(0, 2000)).toBeDefined();
  return { browser, token: token as string };
}

interface Post {
  id: number;
  title: string;
}

function postWith(app: TestApp, token: string | undefined) {
  return createClient<{ "POST /api/posts": { params: {}; body: { title: string; body: string; published: boolean; category: "news" | "howto" | "misc" }; answer: Post } }>(app.url, token === undefined ? {} : { token });
}

describe("the example's API tokens", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp({ cwd: resolve("example"), main: "dist/main.js" });
  }, 120_000);
  afterAll(() => app?.close());

  it("a token with posts:write, made on /account, writes a post as its owner; none, or a revoked one, is refused", async () => {
    const { browser, token } = await tokenFor(app, "writer@example.com");
    const post = await postWith(app, token).post("/api/posts", { title: "From a script", body: "Written with a token.", published: true, category: "news" });
    expect(post.title).toBe("From a script");
    // The post is the token owner's: its page offers them Edit.
    expect((await browser.get(`/posts/${post.id}`)).text).toContain(`/posts/${post.id}/edit`);
    await expect(postWith(app, undefined).post("/api/posts", { title: "x", body: "", published: true, category: "news" })).rejects.toMatchObject({ status: 403 });
    // A body of another shape: 400 naming the place.
    await expect(postWith(app, token).post("/api/posts", { title: "", body: "", published: true, category: "news" })).rejects.toMatchObject({ status: 400 });
    const selector = token.slice(4, 26);
    const revoked = await browser.submit("/account", { token: selector }, { action: "/account/tokens/revoke" });
    expect(revoked.location).toBe("/account");
    await expect(postWith(app, token).post("/api/posts", { title: "Again", body: "", published: true, category: "news" })).rejects.toMatchObject({ status: 403 });
  });

  it("the sign-in page shows no provider button when none is configured; /account offers passkeys, two-step sign-in and tokens", async () => {
    const visitor = app.client();
    expect((await visitor.get("/login")).text).not.toContain("/login/with/");
    const { browser } = await tokenFor(app, "settings@example.com");
    const settings = (await browser.get("/account")).text;
    for (const part of ["Passkeys", "Two-step sign-in", "API tokens", "posts:write"]) expect(settings).toContain(part);
  });
});

const bin = postgresBin();
if (bin === undefined) noPostgresNotice();

describe.skipIf(bin === undefined)("two processes of the example on one PostgreSQL database", () => {
  let cluster: PostgresCluster | undefined;
  let one: TestApp | undefined;
  let two: TestApp | undefined;
  beforeAll(async () => {
    cluster = await startCluster(bin as string);
    // One after the other: the first applies the migrations.
    one = await startApp({ cwd: resolve("example"), main: "dist/main.js", env: { DATABASE_URL: cluster.url } });
    two = await startApp({ cwd: resolve("example"), main: "dist/main.js", env: { DATABASE_URL: cluster.url } });
  }, 180_000);
  afterAll(async () => {
    await one?.close();
    await two?.close();
    await cluster?.destroy();
  });

  it("agree at once on a revoked token: revoked on one, refused by the other on its very next call", async () => {
    const { browser, token } = await tokenFor(one as TestApp, "two-processes@example.com");
    const body = { title: "From process two", body: "", published: false, category: "misc" as const };
    // The other process reads the token and remembers it.
    expect((await postWith(two as TestApp, token).post("/api/posts", body)).title).toBe("From process two");
    const revoked = await browser.submit("/account", { token: token.slice(4, 26) }, { action: "/account/tokens/revoke" });
    expect(revoked.location).toBe("/account");
    await expect(postWith(two as TestApp, token).post("/api/posts", body)).rejects.toMatchObject({ status: 403 });
    await expect(postWith(one as TestApp, token).post("/api/posts", body)).rejects.toMatchObject({ status: 403 });
  });
});
