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

// Issues 30 (item 9) and 43 (item 9): the example's hand-written live /posts counts its posts only
// 10 pages ahead, as the derived Index does; pages by keyset cursor (stable when a post is written
// meanwhile); filters by category, tag and date, combinable with the search; and answers a 400
// naming the parameter for a value it cannot read. Through the built example, on both engines.
describe.each(engines)("The example's /posts on %s, on a table of 1,100 published posts", (engine) => {
  /** Post i: written on day i from 2020-01-01 (so Post 5 on 2020-01-05, Post 1100 in 2023: before any post written now), category by i % 3, tagged `release` when i % 100 = 0, about a lantern when i % 40 = 0. */
  async function seeded(): Promise<{ url: string; release: number; tutorial: number }> {
    const database = exampleDatabase("migrated", engine);
    const { openDatabase } = await import("../../runtime/db/index.js");
    const db = await openDatabase({ url: database.url, log: () => undefined });
    let tags: { release: number; tutorial: number };
    try {
      await db.query(`INSERT INTO "users" ("email", "password_hash", "session_epoch") VALUES ('many@example.com', 'none', 'none')`);
      await db.query(
        `INSERT INTO "posts" ("title", "body", "published", "category", "author_id", "created_at")
           SELECT 'Post ' || i, CASE WHEN i % 40 = 0 THEN 'A lantern in the window' ELSE 'Body' END, true, (ARRAY['news', 'howto', 'misc'])[1 + i % 3],
                  (SELECT min("id") FROM "users"), timestamptz '2020-01-01 12:00:00+00' + (i - 1) * interval '1 day'
             FROM generate_series(1, 1100) AS i`,
      );
      const made = await db.query<{ id: string; name: string }>(`INSERT INTO "tags" ("name") VALUES ('release'), ('tutorial') RETURNING "id", "name"`);
      tags = { release: Number(made.rows.find((row) => row.name === "release")?.id), tutorial: Number(made.rows.find((row) => row.name === "tutorial")?.id) };
      await db.query(`INSERT INTO "posts_tags" ("post_id", "tag_id") SELECT "id", $1 FROM "posts" WHERE substr("title", 6)::int % 100 = 0`, [tags.release]);
    } finally {
      await db.close();
    }
    const app = await start([], { ...PRODUCTION_ENV }, { database });
    return { url: app.url, ...tags };
  }

  /** The titles a page lists, in order. */
  const titles = (html: string): string[] => [...html.matchAll(/<a href="\/posts\/\d+">([^<]+)<\/a>/g)].map((match) => match[1] as string);
  const link = (html: string, rel: "next" | "prev"): string | undefined => new RegExp(`<a href="([^"]+)" rel="${rel}">`).exec(html)?.[1]?.replaceAll("&amp;", "&");

  it("lists the newest first, counts 10 pages ahead ('500 or more posts'), and pages by a keyset cursor that a post written meanwhile does not shift", async () => {
    const { url } = await seeded();
    const visitor = new Browser(url);
    const first = (await visitor.get("/posts")).html;
    expect(titles(first).slice(0, 2)).toEqual(["Post 1100", "Post 1099"]);
    expect(titles(first)).toHaveLength(50);
    expect(first).toMatch(/<span>500 or more posts<\/span>/);
    expect(first).not.toContain('rel="prev"');
    const second = link(first, "next") as string;
    expect(second).toMatch(/^\/posts\?after=[A-Za-z0-9_-]+$/);
    const page2 = (await visitor.get(second)).html;
    expect(titles(page2)[0]).toBe("Post 1050");
    expect(titles(page2).at(-1)).toBe("Post 1001");

    // A post written now is the newest: the first page shows it (the signed-out cache dropped by the
    // write), and page 2's address still starts where it did (an offset page would have shifted by one).
    const author = new Browser(url);
    expect((await author.signUp(freshEmail(`keyset-${engine}`), PASSWORD)).status).toBe(303);
    await author.get("/posts/new");
    expect((await author.post("/posts", { title: "Written meanwhile", body: "…", category: "news", published: "true" })).status).toBe(303);
    expect(titles((await visitor.get("/posts")).html)[0]).toBe("Written meanwhile");
    const again = (await visitor.get(second)).html;
    expect(titles(again)).toEqual(titles(page2));
    // Previous from page 2: the 50 posts before its first, newest first.
    const previous = link(again, "prev") as string;
    expect(previous).toMatch(/^\/posts\?before=/);
    expect(titles((await visitor.get(previous)).html)).toEqual(titles(first));

    // A sort keeps its cursor's sort: ?sort=title pages by title, and page 2's cursor read under another sort is a 400.
    const byTitle = (await visitor.get("/posts?sort=title")).html;
    expect(titles(byTitle).slice(0, 3)).toEqual(["Post 1", "Post 10", "Post 100"]);
    const titleNext = link(byTitle, "next") as string;
    expect(titleNext).toMatch(/^\/posts\?sort=title&after=/);
    // Titles sort by code point ("Post 1", "Post 10", "Post 100", "Post 1000", "Post 1001", …): the 51st starts page 2.
    const all = [...Array.from({ length: 1100 }, (_, i) => `Post ${i + 1}`), "Written meanwhile"].sort();
    expect(titles((await visitor.get(titleNext)).html)).toEqual(all.slice(50, 100));
    const crossed = await visitor.get(titleNext.replace("sort=title&", ""));
    expect(crossed.status).toBe(400);
    expect(crossed.html).toContain("?after=");
  }, 120_000);

  it("filters by category, by tag and by a range of days, each in the URL, and a tag with the search", async () => {
    const { url, release, tutorial } = await seeded();
    const visitor = new Browser(url);
    const tagged = (await visitor.get(`/posts?tags=${release}`)).html;
    expect(titles(tagged)).toEqual([1100, 1000, 900, 800, 700, 600, 500, 400, 300, 200, 100].map((i) => `Post ${i}`));
    // Each post shows its tags, each a link to the list filtered by it; the filter's select has it chosen.
    expect(tagged).toContain(`<a href="/posts?tags=${release}" class="tag">release</a>`);
    expect(tagged).toContain(`<option value="${release}" selected>release</option>`);
    expect((await visitor.get(`/posts?tags=${tutorial}`)).html).toContain("No posts match.");

    const news = (await visitor.get("/posts?category=news")).html;
    expect(titles(news).slice(0, 3)).toEqual(["Post 1098", "Post 1095", "Post 1092"]); // 1 + i % 3 = 1: i a multiple of 3
    expect(link(news, "next")).toMatch(/^\/posts\?category=news&after=/);

    expect(titles((await visitor.get("/posts?createdAt.from=2020-01-05&createdAt.to=2020-01-07")).html)).toEqual(["Post 7", "Post 6", "Post 5"]);
    expect(titles((await visitor.get("/posts?createdAt.to=2020-01-02")).html)).toEqual(["Post 2", "Post 1"]);
    // Empty fields (what the GET form sends for filters left at "Any") filter nothing.
    expect(titles((await visitor.get("/posts?q=&category=&tags=&createdAt.from=&createdAt.to=")).html)[0]).toBe("Post 1100");

    // The search (a lantern every 40th post) with the tag (every 100th): the posts with both, and with a category too.
    const both = (await visitor.get(`/posts?q=lantern&tags=${release}`)).html;
    expect(titles(both).sort()).toEqual(["Post 1000", "Post 200", "Post 400", "Post 600", "Post 800"]);
    expect(both).toContain("<mark>lantern</mark>");
    expect(titles((await visitor.get(`/posts?q=lantern&tags=${release}&category=howto`)).html).sort()).toEqual(["Post 1000", "Post 400"]); // 1 + i % 3 = 2
  }, 120_000);

  it("answers a 400 naming the parameter for an unknown tag, a bad date, a forged cursor, a bad category and a value given twice", async () => {
    const { url, release } = await seeded();
    const visitor = new Browser(url);
    const cases: [string, string][] = [
      ["/posts?tags=4000000", "There is no tag 4000000 to filter the posts by (?tags=4000000)"],
      ["/posts?tags=news", "?tags="],
      ["/posts?tags=0", "?tags="],
      ["/posts?createdAt.from=2026-02-30", "?createdAt.from="],
      ["/posts?createdAt.to=yesterday", "?createdAt.to="],
      ["/posts?createdAt.from=2026-03-01&createdAt.to=2026-02-01", "before it starts"],
      ["/posts?category=gossip", "?category="],
      [`/posts?tags=${release}&tags=${release}`, "?tags= of /posts is given 2 times"],
      ["/posts?sort=body", "?sort="],
      [`/posts?after=${Buffer.from(JSON.stringify(["2026-01-01", 7])).toString("base64url")}`, "?after="],
      [`/posts?before=${Buffer.from(JSON.stringify(["2026-01-01T00:00:00.000Z", -1])).toString("base64url")}`, "?before="],
      ["/posts?after=%00%27", "?after="],
      [`/posts?q=lantern&after=${Buffer.from(JSON.stringify(["2026-01-01T00:00:00.000Z", 7])).toString("base64url")}`, "pages by ?page="],
    ];
    for (const [path, named] of cases) {
      const answer = await visitor.get(path);
      expect(answer.status, path).toBe(400);
      expect(answer.html.replaceAll("&quot;", '"').replaceAll("&#39;", "'"), path).toContain(named);
    }
    // A cursor that reads well but was made up only says where a page starts: the rows are still the viewer's.
    const madeUp = await visitor.get(`/posts?after=${Buffer.from(JSON.stringify(["2020-01-03T12:00:00.000Z", 3])).toString("base64url")}`);
    expect(madeUp.status).toBe(200);
    expect(titles(madeUp.html)).toEqual(["Post 2", "Post 1"]);
  }, 120_000);
});
