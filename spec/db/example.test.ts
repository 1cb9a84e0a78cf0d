import { afterEach, describe, expect, it } from "vitest";
import { Browser, freshEmail, PASSWORD } from "../auth/client.js";
import { bootExample, exampleCwd, exampleDatabase, hasEngine, type Engine } from "../support/example.js";
import { PRODUCTION_ENV, TEST_MAILBOX } from "../support/serve.js";
import { connect } from "../support/ws-client.js";

// Issue 20: the example keeps posts, notes, the guestbook and users in its database — the
// embedded PGlite by default, PostgreSQL when DATABASE_URL names one — so a restart (and
// `npm start` twice in a row) keeps the data. Real processes of the built example, on both
// engines (PostgreSQL where the machine has it: spec/support/example-db-setup.ts says so).

const engines: Engine[] = (["pglite", "postgres"] as const).filter((engine) => hasEngine(engine));
const running: ReturnType<typeof bootExample>[] = [];

afterEach(async () => {
  for (const app of running.splice(0)) {
    app.child.kill("SIGTERM");
    await app.exited;
  }
});

/** Boots, waits for the banner, and stops it at the end of the test (or by `stop`). */
async function start(args: string[], env: Record<string, string>, options: Parameters<typeof bootExample>[2]) {
  const app = bootExample(args, env, options);
  running.push(app);
  const url = await app.url;
  return {
    url,
    output: app.output,
    stop: async () => {
      running.splice(running.indexOf(app), 1);
      app.child.kill("SIGTERM");
      expect(await app.exited).toBe(0);
    },
  };
}

describe.each(engines)("The example on %s keeps its data across restarts", (engine) => {
  it("`npm start` on a new database migrates it and makes the demo account; a second start finds every row, and so does production", async () => {
    const database = exampleDatabase("empty", engine);
    const cwd = exampleCwd(); // one folder for the three boots: dev keeps its secret there
    // Its mail in the test's mailbox (dev would write it under the example's .fw/mail), where signUp reads the link.
    const first = await start(["dev"], { FW_SECRET: "", FW_MAILBOX: TEST_MAILBOX }, { database, cwd });
    expect(first.output().err).toContain("dev applied the pending migration 0001_create_users");

    const author = new Browser(first.url);
    const email = freshEmail(`restart-${engine}`);
    expect((await author.signUp(email, PASSWORD)).status).toBe(303);
    await author.get("/posts/new");
    const post = await author.post("/posts", { title: `Kept on ${engine}`, body: "Line one", category: "news", published: "true" });
    expect(post.status).toBe(303);
    const postPath = post.location as string;
    expect(postPath).toMatch(/^\/posts\/\d+$/);
    await author.get("/notes/new");
    expect((await author.post("/notes", { text: `A note on ${engine}`, pinned: "true" })).status).toBe(303);
    await author.get("/guestbook");
    expect((await author.post("/guestbook", { name: "Ada", message: `Signed on ${engine}` })).status).toBe(303);
    await first.stop();

    // The same command again: nothing to migrate, every row still there.
    const second = await start(["dev"], { FW_SECRET: "", FW_MAILBOX: TEST_MAILBOX }, { database, cwd });
    expect(second.output().err).not.toContain("dev applied");
    const again = new Browser(second.url);
    expect((await again.signIn(email, PASSWORD)).status).toBe(303); // the user survived
    expect((await again.get(postPath)).html).toContain(`Kept on ${engine}`);
    expect((await again.get("/notes")).html).toContain(`A note on ${engine}`);
    expect((await again.get("/guestbook")).html).toContain(`Signed on ${engine}`);
    expect((await new Browser(second.url).signIn("demo@example.com", "demo-password")).status).toBe(303); // the dev seed's account, once
    await second.stop();

    // Production on the same database (migrated now): the rows, read by a stranger.
    const third = await start([], { ...PRODUCTION_ENV }, { database, cwd });
    const page = await fetch(`${third.url}/posts`);
    expect(await page.text()).toContain(`Kept on ${engine}`);
    const entries = (await (await fetch(`${third.url}/api/entries`)).json()) as { id: number; name: string; message: string }[];
    expect(entries).toEqual([expect.objectContaining({ name: "Ada", message: `Signed on ${engine}` })]);
    // Issue 28: a key no entry can have is refused before it reaches the engine, on either one.
    for (const key of ["9223372036854775808", "1.5", "1e-7"]) expect((await fetch(`${third.url}/guestbook/${key}`)).status, key).toBe(400);
    expect((await fetch(`${third.url}/guestbook/${entries[0]?.id}`)).status).toBe(200);
  }, 120_000);

  it("a production boot on a database without the migrations refuses, naming them and `db migrate`", async () => {
    const database = exampleDatabase("empty", engine);
    const app = bootExample([], { ...PRODUCTION_ENV }, { database });
    running.push(app);
    await expect(app.url).rejects.toThrow(/exited before serving/);
    const { err } = app.output();
    expect(err).toContain("0001_create_users, 0002_create_posts_notes_guestbook");
    expect(err).toContain("db migrate");
  });
});

// Issue 21: the example as two processes on one PostgreSQL database (what `--workers 2` or two
// machines behind a load balancer are): any process serves any request, and the chat is one room.
describe.runIf(hasEngine("postgres"))("The example as two processes on one PostgreSQL", () => {
  it("a session from one is good on the other, a post made through one is listed by the other, and a chat line reaches both", async () => {
    const database = exampleDatabase("migrated", "postgres");
    const [one, two] = await Promise.all([start([], { ...PRODUCTION_ENV }, { database }), start([], { ...PRODUCTION_ENV }, { database })]);
    const author = new Browser(one.url);
    const email = freshEmail("two-processes");
    expect((await author.signUp(email, PASSWORD)).status).toBe(303);
    await author.get("/posts/new");
    expect((await author.post("/posts", { title: "Written on one", body: "…", category: "news", published: "true" })).status).toBe(303);

    const onTwo = new Browser(two.url);
    onTwo.cookie = author.cookie; // the same signed cookie, sent to the other process
    expect((await onTwo.get("/chat")).status).toBe(200); // guarded: the session holds there too
    expect((await onTwo.get("/posts")).html).toContain("Written on one");

    const reader = new Browser(two.url);
    expect((await reader.signUp(freshEmail("reader"), PASSWORD)).status).toBe(303);
    const first = await connect(one.url, "/chat/socket", { headers: { cookie: author.cookie as string } });
    const second = await connect(two.url, "/chat/socket", { headers: { cookie: reader.cookie as string } });
    first.socket.send("across processes");
    expect(await first.next()).toBe(`${email}: across processes`);
    expect(await second.next()).toBe(`${email}: across processes`);
    first.socket.close();
    second.socket.close();
  });
});

// Issue 30, item 9: the example's hand-written live /posts counts its posts only 20 pages ahead,
// as the derived Index does, so a page of a big table does not read every published post.
describe.runIf(hasEngine("postgres"))("The example's /posts on a table of 1,100 published posts", () => {
  it("says 'Page 1 of 21 or more' and links page 2; page 4 counts to the end: 'Page 4 of 22'", async () => {
    const database = exampleDatabase("migrated", "postgres");
    const { openDatabase } = await import("../../runtime/db/index.js");
    const db = await openDatabase({ url: database.url, log: () => undefined });
    try {
      await db.query(`INSERT INTO "users" ("email", "password_hash", "session_epoch") VALUES ('many@example.com', 'none', 'none')`);
      await db.query(`INSERT INTO "posts" ("title", "body", "published", "category", "author_id") SELECT 'Post ' || i, 'Body', true, 'news', (SELECT min("id") FROM "users") FROM generate_series(1, 1100) AS i`);
    } finally {
      await db.close();
    }
    const app = await start([], { ...PRODUCTION_ENV }, { database });
    const visitor = new Browser(app.url);
    const first = (await visitor.get("/posts")).html;
    expect(first).toMatch(/<span>Page 1 of 21 or more<\/span>/);
    expect(first).toContain('<a href="/posts?page=2" rel="next">Next</a>');
    expect((await visitor.get("/posts?page=4")).html).toMatch(/<span>Page 4 of 22<\/span>/);
  });
});
