import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FromPath } from "../../runtime/index.js";
import { createTableSql, SqlScopedStore, SqlStore, type Database, type Queryable, type Row, type TableSpec } from "../../runtime/db/index.js";
import { relationsSpecs, relationsTable, type Author, type Comment, type Post, type Review } from "../resource/relations-app.js";
import { relationsPagesSuite, type RelationsSetup } from "../resource/relations-pages-suite.js";
import { Visitor } from "../support/browser.js";
import { serve, type Served } from "../support/serve.js";
import { onEveryEngine } from "./engines.js";

// Issue 29's pages on fw/db, on PGlite and on a real PostgreSQL: the same suite as in memory
// (spec/resource/relations-pages.test.ts), here with foreign keys, uniques and the readableWith
// subquery in SQL; and the number of queries a page costs, counted at the database.

let runs = 0;

/** The four models' tables (and a users table the posts' owners point at), fresh: `p<n>_posts`, … */
async function relationsTables(db: Database): Promise<Record<"users" | "authors" | "posts" | "comments" | "reviews", TableSpec>> {
  const n = ++runs;
  const name = (table: string) => `p${n}_${table}`;
  const key = { field: "id", column: "id" };
  const users: TableSpec = { name: name("users"), key, columns: [{ field: "email", column: "email", type: "text", nullable: false }] };
  const authors: TableSpec = { name: name("authors"), key, columns: [{ field: "name", column: "name", type: "text", nullable: false, unique: true }] };
  const posts: TableSpec = {
    name: name("posts"),
    key,
    owner: "owner",
    columns: [
      { field: "owner", column: "owner_id", type: "bigint", nullable: false, references: { table: users.name, column: "id" } },
      { field: "title", column: "title", type: "text", nullable: false },
      { field: "author", column: "author_id", type: "bigint", nullable: false, references: { table: authors.name, column: "id" } },
      { field: "published", column: "published", type: "boolean", nullable: false },
    ],
    search: { language: "english", columns: ["title"] },
  };
  const comments: TableSpec = {
    name: name("comments"),
    key,
    columns: [
      { field: "post", column: "post_id", type: "bigint", nullable: false, references: { table: posts.name, column: "id", onDelete: "cascade" } },
      { field: "body", column: "body", type: "text", nullable: false },
      { field: "seeAlso", column: "see_also_id", type: "bigint", nullable: true, references: { table: posts.name, column: "id", onDelete: "set null" } },
    ],
  };
  const reviews: TableSpec = {
    name: name("reviews"),
    key,
    columns: [
      { field: "post", column: "post_id", type: "bigint", nullable: false, references: { table: posts.name, column: "id" } },
      { field: "reviewer", column: "reviewer", type: "text", nullable: false },
      { field: "stars", column: "stars", type: "double precision", nullable: false },
    ],
    unique: [["post_id", "reviewer"]],
  };
  for (const table of [users, authors, posts, comments, reviews]) await db.script(createTableSql(table));
  await db.query(`INSERT INTO "${users.name}" (email) VALUES ('alice@example.com'), ('bob@example.com')`);
  return { users, authors, posts, comments, reviews };
}

/** The app on fresh tables of `db`. */
async function relationsOn(db: Database): Promise<RelationsSetup> {
  const t = await relationsTables(db);
  const specs = relationsSpecs((model) => t[model as keyof typeof t]?.name);
  return {
    specs,
    stores: {
      authors: new SqlStore<Author>(db, t.authors),
      posts: new SqlScopedStore(new SqlStore<Post>(db, t.posts), FromPath.int),
      comments: new SqlStore<Comment>(db, t.comments),
      reviews: new SqlStore<Review>(db, t.reviews),
    },
  };
}

/** `db` with every statement sent through it recorded (in transactions and held connections too). */
function counting(db: Database): { readonly db: Database; readonly sent: string[] } {
  const sent: string[] = [];
  const wrap = (q: Queryable): Queryable => ({
    query: <R extends Row = Row>(sql: string, params?: readonly unknown[]) => {
      sent.push(sql);
      return q.query<R>(sql, params);
    },
    script: (sql) => q.script(sql),
  });
  const counted: Database = {
    engine: db.engine,
    description: db.description,
    ...wrap(db),
    transaction: (work) => db.transaction((tx) => work(wrap(tx))),
    withConnection: (work) => db.withConnection((connection) => work({ ...wrap(connection), transaction: (inner) => connection.transaction((tx) => inner(wrap(tx))) })),
    close: () => db.close(),
  };
  return { db: counted, sent };
}

onEveryEngine((engine) => {
  relationsPagesSuite(`fw/db on ${engine.name}`, () => relationsOn(engine.db()));

  describe(`issue 29, item 5: queries per page on ${engine.name}`, () => {
    let app: Served;
    let setup: RelationsSetup;
    let database: ReturnType<typeof counting>;
    const ids = { first: 0, second: 0 };
    /** Posts the comments name in their second reference, one each: 50 different labels to load. */
    const others: number[] = [];

    beforeAll(async () => {
      database = counting(engine.db());
      setup = await relationsOn(database.db);
      app = await serve({ routes: relationsTable(setup.specs, setup.stores) });
      const author = (await setup.stores.authors.insert({ name: "Ada" })).id;
      ids.first = (await setup.stores.posts.for("1").insert({ title: "First", author, published: true })).id;
      ids.second = (await setup.stores.posts.for("2").insert({ title: "Second", author, published: true })).id;
      for (let n = 0; n < 50; n++) others.push((await setup.stores.posts.for("2").insert({ title: `Other ${n}`, author, published: true })).id);
    }, 60_000);
    afterAll(() => app?.close());

    /** The statements one page costs, as Bob. */
    async function queriesOf(path: string): Promise<string[]> {
      const before = database.sent.length;
      const page = await new Visitor(app.url, { "x-user": "2" }).get(path);
      expect(page.status, page.html).toBe(200);
      return database.sent.slice(before);
    }

    let made = 0;
    async function comments(count: number): Promise<void> {
      for (let n = 0; n < count; n++, made++) await setup.stores.comments.insert({ post: ids.first, body: `comment ${made}`, seeAlso: others[made] });
    }

    it("an Index of 50 rows with two reference columns and a Show with 20 children cost the same queries as with 5: labels are batched, readableWith is a subquery", async () => {
      await comments(5);
      const index5 = await queriesOf("/comments");
      const show5 = await queriesOf(`/posts/${ids.first}`);
      await comments(45);
      const index50 = await queriesOf("/comments");
      const show20 = await queriesOf(`/posts/${ids.first}`);
      expect((await new Visitor(app.url).get("/comments")).html.match(/<tr><td><a href="\/posts\/\d+">First<\/a><\/td>/g)).toHaveLength(50);
      console.log(`${engine.name}: queries per page: Index of 50 comments (2 reference columns) ${index50.length}, Show of a post with 20 of its 50 comments ${show20.length}`);
      // The same statements (a page's sections ask in parallel: on PostgreSQL's pool, in any order).
      expect([...index50].sort()).toEqual([...index5].sort());
      expect([...show20].sort()).toEqual([...show5].sort());
      // The comments with their readable posts in one statement, the posts its two reference
      // filters offer (one statement for both: they point at one model), then the labels of every post they name in one.
      expect(index50).toHaveLength(3);
      const statement = (pattern: RegExp): string | undefined => index50.find((sql) => pattern.test(sql));
      expect(statement(/"post_id" IN \(SELECT "id" FROM "p\d+_posts" WHERE \("published" = \$\d+ OR "owner_id" = \$\d+\)\)/)).toBeDefined();
      expect(statement(/FROM "p\d+_posts" WHERE \("published" = \$\d+ OR "owner_id" = \$\d+\) ORDER BY "title" COLLATE "C" ASC, "id" LIMIT/)).toBeDefined();
      expect(statement(/"id" = ANY\(\$\d+::bigint\[\]\)/)).toBeDefined();
      expect(show20.length).toBeLessThanOrEqual(8);
    });
  });
});
