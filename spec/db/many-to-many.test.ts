import { describe, expect, it } from "vitest";
import { FromPath, Relations, resourceRoutes, RouteTable, type FieldSpec, type ModelSpec } from "../../runtime/index.js";
import { createTableSql, linkTableSql, SqlScopedStore, SqlStore, type Database, type Queryable, type Row, type TableSpec } from "../../runtime/db/index.js";
import { Visitor } from "../support/browser.js";
import { serve } from "../support/serve.js";
import { schemaDrift } from "../../runtime/db/schema-diff.js";
import { listConformance, type Article, type Label } from "../resource/list-conformance.js";
import { onEveryEngine } from "./engines.js";

// Issue 43, item 5: a list of references (`tags: Id<Tag>[]`) kept in a join table, on PGlite and
// on a real PostgreSQL: the same conformance suite as in memory, the join table's DDL, and what
// drift (and so `db new`) makes of it.

let runs = 0;

/** The conformance models' tables, fresh: `m<n>_labels`, `m<n>_articles` and its two join tables. */
function listTables(): { labels: TableSpec; articles: TableSpec } {
  const n = ++runs;
  const key = { field: "id", column: "id" };
  const labels: TableSpec = { name: `m${n}_labels`, key, columns: [{ field: "name", column: "name", type: "text", nullable: false }] };
  const articles: TableSpec = {
    name: `m${n}_articles`,
    key,
    columns: [{ field: "title", column: "title", type: "text", nullable: false }],
    links: [
      { field: "tags", table: `m${n}_articles_tags`, from: "article_id", to: "label_id", target: { table: labels.name, column: "id" } },
      { field: "related", table: `m${n}_articles_related`, from: "article_id", to: "related_id", target: { table: `m${n}_articles`, column: "id" } },
    ],
  };
  return { labels, articles };
}

async function create(db: Database, tables: { labels: TableSpec; articles: TableSpec }): Promise<void> {
  await db.script(createTableSql(tables.labels) + createTableSql(tables.articles));
  for (const link of tables.articles.links ?? []) await db.script(linkTableSql(tables.articles, link));
}

/** `db` with every statement sent through it counted (in transactions too). */
function counting(db: Database): { readonly db: Database; readonly sent: () => number; readonly texts: string[] } {
  let sent = 0;
  const texts: string[] = [];
  const wrap = (q: Queryable): Queryable => ({
    query: <R extends Row = Row>(sql: string, params?: readonly unknown[]) => {
      sent++;
      texts.push(sql);
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
  return { db: counted, sent: () => sent, texts };
}

/** The specs of the conformance models as the generated module writes them, named after `tables`. */
function pageSpecs(tables: { labels: TableSpec; articles: TableSpec }): { labels: ModelSpec<Label>; articles: ModelSpec<Article> } {
  const base = { key: "id", validate: (input: unknown) => ({ success: true as const, data: input }), decodeKey: FromPath.int };
  const tags: FieldSpec = { name: "tags", label: "Tags", input: "references", optional: false, describe: "a list of labels", reference: { model: "Label", path: "/labels", onDelete: "cascade" } };
  return {
    labels: { ...base, name: "Label", fqn: "models.Label", path: "/labels", table: tables.labels.name, fields: [{ name: "name", label: "Name", input: "text", optional: false, describe: "text", maxLength: 200 }] } as ModelSpec<Label>,
    articles: { ...base, name: "Article", fqn: "models.Article", path: "/articles", table: tables.articles.name, fields: [{ name: "title", label: "Title", input: "text", optional: false, describe: "text", maxLength: 200 }, tags] } as ModelSpec<Article>,
  };
}

onEveryEngine((engine) => {
  listConformance(`SqlStore on ${engine.name}`, async () => {
    const tables = listTables();
    await create(engine.db(), tables);
    const { db, sent } = counting(engine.db());
    return { labels: new SqlStore<Label>(db, tables.labels), articles: new SqlStore<Article>(db, tables.articles), articlesName: tables.articles.name, statements: sent };
  });

  describe(`issue 43, item 5: statements per page and owned rows on ${engine.name}`, () => {
    it("an Index of 5 or of 40 articles with 3 tags each costs the same statements: the page, its lists, and one for every label", async () => {
      const tables = listTables();
      await create(engine.db(), tables);
      const counted = counting(engine.db());
      const specs = pageSpecs(tables);
      const labels = new SqlStore<Label>(counted.db, tables.labels);
      const articles = new SqlStore<Article>(counted.db, tables.articles);
      const relations = new Relations();
      const app = await serve({ routes: RouteTable.of(...resourceRoutes(specs.labels, labels, { relations, referenced: true }), ...resourceRoutes(specs.articles, articles, { relations })) });
      try {
        const made: number[] = [];
        for (let n = 0; n < 60; n++) made.push((await labels.insert({ name: `label ${n}` })).id);
        const add = async (count: number, from: number): Promise<void> => {
          for (let n = from; n < from + count; n++) await articles.insert({ title: `article ${n}`, tags: [made[n] as number, made[n + 1] as number, made[n + 2] as number] });
        };
        const statements = async (): Promise<string[]> => {
          const before = counted.texts.length;
          const page = await new Visitor(app.url).get("/articles");
          expect(page.status).toBe(200);
          return counted.texts.slice(before);
        };
        await add(5, 0);
        const five = await statements();
        await add(35, 5);
        const forty = await statements();
        const html = (await new Visitor(app.url).get("/articles")).html;
        expect(html).toContain(`<td>article 39</td><td><a href="/labels/${made[39]}">label 39</a>, <a href="/labels/${made[40]}">label 40</a>, <a href="/labels/${made[41]}">label 41</a></td>`);
        expect([...forty].sort()).toEqual([...five].sort());
        expect(forty.filter((sql) => sql.includes(tables.articles.links?.[0]?.table as string))).toHaveLength(1);
        console.log(`${engine.name}: statements of an Index of 40 articles with 3 tags each: ${forty.length}`);
      } finally {
        await app.close();
      }
    });

    it("a list's statement that fails (the second of two, or one thrown as it is sent) rejects the row's get and the page's list with its error", async () => {
      const db = engine.db();
      const tables = listTables();
      await create(db, tables);
      const labels = new SqlStore<Label>(db, tables.labels);
      const articles = new SqlStore<Article>(db, tables.articles);
      const a = await labels.insert({ name: "a" });
      const one = await articles.insert({ title: "one", tags: [a.id] });
      const refused = new Error("the join table is gone");
      // The second list field's statement fails: the first list's statement has answered by then.
      const failing = (how: "rejects" | "throws"): Queryable => ({
        query: <R extends Row = Row>(sql: string, params?: readonly unknown[]) => {
          if (!sql.includes(`"${tables.articles.name}_related"`)) return db.query<R>(sql, params);
          if (how === "throws") throw refused;
          return Promise.reject(refused);
        },
        script: (sql) => db.script(sql),
      });
      for (const how of ["rejects", "throws"] as const) {
        const broken = new SqlStore<Article>({ ...db, ...failing(how) }, tables.articles);
        const got = broken.get(one.id);
        const listed = broken.list({ limit: 10 });
        await expect(got).rejects.toBe(refused);
        await expect(listed).rejects.toBe(refused);
      }
    });

    it("an owner's rows (SqlScopedStore) write and read their lists, and has filters within them", async () => {
      const db = engine.db();
      const n = ++runs;
      const users: TableSpec = { name: `m${n}_users`, key: { field: "id", column: "id" }, columns: [{ field: "email", column: "email", type: "text", nullable: false }] };
      const tables = listTables();
      const owned: TableSpec = { ...tables.articles, owner: "owner", columns: [...tables.articles.columns, { field: "owner", column: "owner_id", type: "bigint", nullable: false, references: { table: users.name, column: "id" } }] };
      await db.script(createTableSql(users));
      await create(db, { labels: tables.labels, articles: owned });
      await db.query(`INSERT INTO "${users.name}" (email) VALUES ('a@example.com'), ('b@example.com')`);
      const labels = new SqlStore<Label>(db, tables.labels);
      const scoped = new SqlScopedStore(new SqlStore<Article & { owner?: number }>(db, owned), FromPath.int);
      const a = await labels.insert({ name: "a" });
      const mine = await scoped.for("1").insert({ title: "mine", tags: [a.id] });
      await scoped.for("2").insert({ title: "theirs", tags: [a.id] });
      expect(mine).toMatchObject({ title: "mine", tags: [a.id], owner: 1 });
      expect((await scoped.for("1").list({ limit: 10, where: { tags: { has: a.id } } })).rows.map((r) => r.title)).toEqual(["mine"]);
      expect((await scoped.for("1").update(mine.id, { title: "mine", tags: [] }))?.tags).toEqual([]);
      expect(await scoped.for("2").update(mine.id, { title: "stolen", tags: [a.id] })).toBeUndefined();
      expect(await scoped.for("1").get(mine.id)).toMatchObject({ title: "mine", tags: [] });
    });
  });

  describe(`issue 43, item 5: the join table on ${engine.name}`, () => {
    it("is (from, to) with that pair as its primary key, both foreign keys ON DELETE CASCADE, the listed column indexed, and fw's comment", async () => {
      const db = engine.db();
      const tables = listTables();
      await create(db, tables);
      const link = tables.articles.links?.[0];
      if (link === undefined) throw new Error("no link");
      const constraints = await db.query<{ name: string; type: string; def: string }>(
        `SELECT conname AS name, contype AS type, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = $1::regclass AND contype IN ('f', 'p', 'u') ORDER BY conname`,
        [link.table],
      );
      expect(constraints.rows).toEqual([
        { name: `${link.table}_article_id_fkey`, type: "f", def: `FOREIGN KEY (article_id) REFERENCES ${tables.articles.name}(id) ON DELETE CASCADE` },
        { name: `${link.table}_label_id_fkey`, type: "f", def: `FOREIGN KEY (label_id) REFERENCES ${tables.labels.name}(id) ON DELETE CASCADE` },
        { name: `${link.table}_pkey`, type: "p", def: "PRIMARY KEY (article_id, label_id)" },
      ]);
      const indexes = await db.query<{ name: string }>(`SELECT indexrelid::regclass::text AS name FROM pg_index WHERE indrelid = $1::regclass AND NOT indisprimary`, [link.table]);
      expect(indexes.rows.map((r) => r.name)).toEqual([`${link.table}_label_id_article_id_idx`]);
      const comment = await db.query<{ c: string }>(`SELECT obj_description($1::regclass, 'pg_class') AS c`, [link.table]);
      expect(comment.rows[0]?.c).toBe(`fw/db: the join table of ${tables.articles.name}.tags`);
    });

    it("gives a label's rows in the listing table's key order from the index alone: no sort, no read of the join table's rows (`?tags=3` pages and counts by it)", async () => {
      const db = engine.db();
      const tables = listTables();
      await create(db, tables);
      const link = tables.articles.links?.[0];
      if (link === undefined) throw new Error("no link");
      await db.script(`INSERT INTO "${tables.labels.name}" ("name") SELECT 'label ' || i FROM generate_series(1, 20) AS i;
        INSERT INTO "${tables.articles.name}" ("title") SELECT 'article ' || i FROM generate_series(1, 2000) AS i;
        INSERT INTO "${link.table}" ("article_id", "label_id") SELECT i, 1 + i % 20 FROM generate_series(1, 2000) AS i;
        ANALYZE "${link.table}";`);
      // A table this small is read whole unless told otherwise: the plan asked for is the one a big table gets.
      const plan = await db.transaction(async (tx) => {
        await tx.query("SET LOCAL enable_seqscan = off");
        await tx.query("SET LOCAL enable_bitmapscan = off");
        const { rows } = await tx.query<Row>(`EXPLAIN SELECT "article_id" FROM "${link.table}" WHERE "label_id" = 3 ORDER BY "article_id" LIMIT 51`);
        return rows.map((row) => String(row["QUERY PLAN"])).join("\n");
      });
      expect(plan).toContain(`Index Only Scan using ${link.table}_label_id_article_id_idx`);
      expect(plan).not.toContain("Sort");
    });

    it("drift (what db new writes) creates a missing join table after the tables it joins, sees nothing once it is there, makes one that points elsewhere again, and drops one no list declares", async () => {
      const db = engine.db();
      await db.script(`DROP SCHEMA IF EXISTS m2m_drift CASCADE; CREATE SCHEMA m2m_drift;`);
      await db.withConnection(async (c) => {
        await c.query(`SET search_path TO m2m_drift`);
        try {
        const key = { field: "id", column: "id" };
        const tags: TableSpec = { name: "tags", key, columns: [{ field: "name", column: "name", type: "text", nullable: false }] };
        const posts: TableSpec = { name: "posts", key, columns: [{ field: "title", column: "title", type: "text", nullable: false }], links: [{ field: "tags", table: "posts_tags", from: "post_id", to: "tag_id", target: { table: "tags", column: "id" } }] };
        const first = await schemaDrift(c, [posts, tags]);
        expect(first.changes.map((change) => `${change.kind} ${change.table}`)).toEqual(["create table posts", "create table tags", "create table posts_tags"]);
        expect(first.changes[2]?.summary).toBe("creates the join table posts_tags of posts.tags (post_id, tag_id)");
        for (const change of first.changes) await c.script(change.sql);
        expect((await schemaDrift(c, [posts, tags])).changes).toEqual([]);
        // A join table made before fw derived its (tag_id, post_id) index, or one whose index was dropped by hand, gets it back.
        await c.query(`DROP INDEX posts_tags_tag_id_post_id_idx`);
        const unindexed = await schemaDrift(c, [posts, tags]);
        expect(unindexed.changes.map((change) => `${change.kind} ${change.table}`)).toEqual(["add index posts_tags"]);
        expect(unindexed.changes[0]?.sql).toBe(`CREATE INDEX "posts_tags_tag_id_post_id_idx" ON "posts_tags" ("tag_id", "post_id");\n`);
        expect(unindexed.changes[0]?.summary).toBe("adds the index posts_tags_tag_id_post_id_idx on tag_id, post_id (a list filtered by tags reads its rows from it alone)");
        for (const change of unindexed.changes) await c.script(change.sql);
        expect((await schemaDrift(c, [posts, tags])).changes).toEqual([]);
        // The list now names other rows (a `topics` table): the join table is made again, its links lost, said so.
        const topics: TableSpec = { name: "topics", key, columns: [{ field: "name", column: "name", type: "text", nullable: false }] };
        await c.query(`INSERT INTO tags (name) VALUES ('a')`);
        await c.query(`INSERT INTO posts (title) VALUES ('p')`);
        await c.query(`INSERT INTO posts_tags VALUES (1, 1)`);
        const moved = { ...posts, links: [{ field: "tags", table: "posts_tags", from: "post_id", to: "topic_id", target: { table: "topics", column: "id" } }] };
        const again = await schemaDrift(c, [moved, tags, topics]);
        expect(again.changes.map((change) => `${change.kind} ${change.table}`)).toEqual(["create table topics", "create table posts_tags"]);
        expect(again.changes[1]).toMatchObject({ destructive: "deletes the links posts_tags holds" });
        expect(again.changes[1]?.sql).toMatch(/^DROP TABLE "posts_tags";\nCREATE TABLE "posts_tags"/);
        // The list field removed: its join table (fw's comment on it) is dropped; the posts table stays.
        const gone = await schemaDrift(c, [{ ...posts, links: [] }, tags]);
        expect(gone.changes.map((change) => `${change.kind} ${change.table}`)).toEqual(["drop table posts_tags"]);
        } finally {
          await c.query(`SET search_path TO public`);
        }
      });
    });
  });
});
