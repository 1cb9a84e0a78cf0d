import { describe, expect, it } from "vitest";
import { FromPath } from "../../runtime/index.js";
import type { RowFilter } from "../../runtime/resource/query.js";
import { narrowed, matches } from "../../runtime/resource/row-filter.js";
import { createTableSql, SqlRows, SqlScopedStore, SqlStore, type Database, type TableSpec } from "../../runtime/db/index.js";
import { onEveryEngine } from "./engines.js";

interface Post {
  id: number;
  title: string;
  published?: boolean;
  author?: number;
}

let tables = 0;

async function postsTable(db: Database): Promise<TableSpec> {
  const n = ++tables;
  const users = `where_users_${n}`;
  await db.script(`CREATE TABLE ${users} (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY); INSERT INTO ${users} (id) OVERRIDING SYSTEM VALUE VALUES (7), (8);`);
  const spec: TableSpec = {
    name: `where_posts_${n}`,
    key: { field: "id", column: "id" },
    columns: [
      { field: "title", column: "title", type: "text", nullable: false },
      { field: "published", column: "is_published", type: "boolean", nullable: true },
      { field: "author", column: "author_id", type: "bigint", nullable: true, references: { table: users, column: "id" } },
    ],
    owner: "author",
  };
  await db.script(createTableSql(spec));
  return spec;
}

onEveryEngine((engine) => {
  describe(`issue 20: SqlStore.where (the read scope in SQL) on ${engine.name}`, () => {
    /** 12 posts: authors 7 and 8 (and none), published or not (or unset). */
    const seeded = async (spy?: string[]): Promise<SqlStore<Post>> => {
      const db = engine.db();
      const spec = await postsTable(db);
      const seen: Database = spy === undefined ? db : ({ ...db, query: (sql, params) => (spy.push(sql), db.query(sql, params)), transaction: (work) => db.transaction(work) } as Database);
      const store = new SqlStore<Post>(seen, spec);
      for (let i = 0; i < 12; i++) {
        const author = [7, 8, undefined][i % 3];
        const published = [true, false, undefined, false][i % 4];
        await store.insert({ title: `p${i}`, ...(author === undefined ? {} : { author }), ...(published === undefined ? {} : { published }) });
      }
      if (spy !== undefined) spy.length = 0;
      return store;
    };

    it("lists exactly the rows the filter matches, in key order, paged, counted, with one query", async () => {
      const sent: string[] = [];
      const store = await seeded(sent);
      const filter: RowFilter = { anyOf: [{ field: "published", equals: true }, { field: "author", equals: 7 }] };
      const all = (await store.list({ offset: 0, limit: 100 })).rows;
      const expected = all.filter((row) => matches(row, filter));
      expect(expected.length).toBeGreaterThan(2);
      sent.length = 0;
      const narrowedRows = narrowed(store, filter);
      expect(narrowedRows).toBeInstanceOf(SqlRows);
      const page = await narrowedRows.list({ offset: 1, limit: 2 });
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatch(/WHERE \("is_published" = \$3 OR "author_id" = \$4\)/);
      expect(page).toEqual({ rows: expected.slice(1, 3), total: expected.length });
    });

    it("get sees only matching rows; update and delete touch only them; insert goes to the table", async () => {
      const store = await seeded();
      const rows = (await store.list({ offset: 0, limit: 100 })).rows;
      const visible = store.where({ anyOf: [{ field: "published", equals: true }] });
      const open = rows.find((row) => row.published === true) as Post;
      const hidden = rows.find((row) => row.published !== true) as Post;
      expect(await visible.get(open.id)).toEqual(open);
      expect(await visible.get(hidden.id)).toBeUndefined();
      expect(await visible.update(hidden.id, { title: "changed" })).toBeUndefined();
      expect(await visible.delete(hidden.id)).toBe(false);
      expect(await store.get(hidden.id)).toEqual(hidden);
      expect(await visible.update(open.id, { title: "edited", published: true, author: open.author })).toMatchObject({ title: "edited" });
      const added = await visible.insert({ title: "draft", published: false });
      expect(await store.get(added.id)).toMatchObject({ title: "draft", published: false });
      expect(await visible.get(added.id)).toBeUndefined();
      expect(await visible.delete(open.id)).toBe(true);
    });

    it("a row whose field is NULL matches no condition on it; an empty filter matches nothing; filters narrow each other", async () => {
      const store = await seeded();
      const rows = (await store.list({ offset: 0, limit: 100 })).rows;
      const unpublished = store.where({ anyOf: [{ field: "published", equals: false }] });
      expect((await unpublished.list({ offset: 0, limit: 100 })).rows).toEqual(rows.filter((row) => row.published === false));
      expect(await store.where({ anyOf: [] }).list({ offset: 0, limit: 100 })).toEqual({ rows: [], total: 0 });
      const both = store.where({ anyOf: [{ field: "published", equals: false }] }).where?.({ anyOf: [{ field: "author", equals: 8 }] });
      expect((await both?.list({ offset: 0, limit: 100 }))?.rows).toEqual(rows.filter((row) => row.published === false && row.author === 8));
      expect((await store.where({ anyOf: [{ field: "id", equals: rows[3]?.id as number }] }).list({ offset: 0, limit: 9 })).rows).toEqual([rows[3]]);
    });

    it("the owned model's read scope (publicWhen OR own rows) is one query through SqlScopedStore.readableBy", async () => {
      const sent: string[] = [];
      const whole = await seeded(sent);
      const scoped = new SqlScopedStore<Post>(whole, FromPath.int);
      const rows = (await whole.list({ offset: 0, limit: 100 })).rows;
      sent.length = 0;
      const page = await scoped.readableBy("published", "8").list({ offset: 0, limit: 100 });
      expect(sent).toHaveLength(1);
      expect(page.rows).toEqual(rows.filter((row) => row.published === true || row.author === 8));
      expect((await scoped.readableBy("published", undefined).list({ offset: 0, limit: 100 })).rows).toEqual(rows.filter((row) => row.published === true));
      // The owner's narrowing, narrowed again: both hold.
      const own = scoped.for("7").where?.({ anyOf: [{ field: "published", equals: false }] });
      expect((await own?.list({ offset: 0, limit: 100 }))?.rows).toEqual(rows.filter((row) => row.author === 7 && row.published === false));
    });

    it("a filter value travels as a parameter; a field the table lacks is refused, naming it", async () => {
      const store = await seeded();
      await store.insert({ title: "x' OR '1'='1" });
      expect((await store.where({ anyOf: [{ field: "title", equals: "x' OR '1'='1" }] }).list({ offset: 0, limit: 100 })).total).toBe(1);
      expect(() => store.where({ anyOf: [{ field: "secret", equals: 1 }] })).toThrow(/no column for the field "secret"/);
    });
  });

  describe(`issue 29: Store.list's where and search in SQL on ${engine.name}`, () => {
    it("one statement, every value a parameter (never in the text); a list as = ANY of a typed array; the scope and the where both hold", async () => {
      const sent: { sql: string; params: readonly unknown[] }[] = [];
      const db = engine.db();
      const spying: Database = { ...db, query: (sql, params) => (sent.push({ sql, params: params ?? [] }), db.query(sql, params)), transaction: (work) => db.transaction(work) } as Database;
      const spec = await postsTable(db);
      const store = new SqlScopedStore<Post>(new SqlStore<Post>(spying, spec), FromPath.int);
      const sneaky = "x' OR '1'='1";
      const mine = await store.for("7").insert({ title: sneaky, published: true });
      const other = await store.for("7").insert({ title: "Other", published: false });
      await store.for("8").insert({ title: sneaky, published: true });
      sent.length = 0;
      const page = await store.for("7").list({ offset: 0, limit: 10, where: { title: [sneaky, "nope"], id: [mine.id, other.id] }, search: { field: "title", prefix: "X'" } });
      expect(page).toEqual({ rows: [mine], total: 1 });
      expect(sent).toHaveLength(1);
      const [query] = sent;
      expect(query?.sql).toMatch(/WHERE "author_id" = \$3 AND "title" = ANY\(\$4::text\[\]\) AND "id" = ANY\(\$5::bigint\[\]\) AND starts_with\(translate\("title", \$6, \$7\), \$8\)/);
      expect(query?.sql).not.toContain("OR '1'");
      expect(query?.params.slice(0, 5)).toEqual([10, 0, 7, `{"${sneaky}","nope"}`, `{"${mine.id}","${other.id}"}`]);
      expect(query?.params[7]).toBe("x'");
      // One value: a plain equality. A key no bigint holds: FALSE, not sent.
      sent.length = 0;
      expect((await store.list({ offset: 0, limit: 10, where: { published: false, id: 2 ** 63 } })).total).toBe(0);
      expect(sent[0]?.sql).toMatch(/WHERE "is_published" = \$3 AND FALSE ORDER BY/);
      expect(sent[0]?.params).toEqual([10, 0, false]);
    });

    it("issue 43: typed filters are one parameterised statement, AND-ed with the read scope: ranges, not, null, contains, like, or, several sorts", async () => {
      const sent: { sql: string; params: readonly unknown[] }[] = [];
      const db = engine.db();
      const spying: Database = { ...db, query: (sql, params) => (sent.push({ sql, params: params ?? [] }), db.query(sql, params)), transaction: (work) => db.transaction(work) } as Database;
      const store = new SqlScopedStore<Post>(new SqlStore<Post>(spying, await postsTable(db)), FromPath.int);
      const sneaky = "x' OR '1'='1";
      const rows = [];
      for (const [title, published, author] of [[sneaky, true, "7"], ["Beta", false, "7"], ["gamma", undefined, "8"], ["Delta%", true, "8"]] as const) {
        rows.push(await store.for(author).insert({ title, ...(published === undefined ? {} : { published }) }));
      }
      const readable = store.readableBy("published", "7");
      sent.length = 0;
      const page = await readable.list({
        limit: 10,
        where: { title: { gte: "B", not: "zzz", contains: "' or '" }, or: [{ published: { null: true } }, { id: { gt: 0, lte: 2 ** 40 } }] },
        order: [{ field: "published", descending: true }, { field: "title", descending: false }],
      });
      expect(page.rows.map((row) => row.title)).toEqual([sneaky]);
      expect(sent).toHaveLength(1);
      const [query] = sent;
      expect(query?.sql).toContain('WHERE ("is_published" = $3 OR "author_id" = $4) AND "title" IS DISTINCT FROM $5 AND "title" COLLATE "C" >= $6 AND strpos(translate("title", $7, $8), $9) > 0 AND ("is_published" IS NULL OR ("id" > $10 AND "id" <= $11))');
      expect(query?.sql).toContain('ORDER BY "is_published" DESC NULLS LAST, "title" COLLATE "C" ASC, "id" LIMIT $1 OFFSET $2');
      expect(query?.sql).not.toContain("OR '1'");
      expect(query?.params.slice(0, 6)).toEqual([10, 0, true, 7, "zzz", "B"]);
      expect(query?.params[8]).toBe("' or '");
      // like: the pattern folded, compared under "C"; not of a list: NULL rows kept.
      sent.length = 0;
      const liked = await store.list({ limit: 10, where: { title: { like: "DELTA\\%" }, published: { not: [false] } } });
      expect(liked.rows.map((row) => row.title)).toEqual(["Delta%"]);
      expect(sent[0]?.sql).toContain('translate("title", $3, $4) COLLATE "C" LIKE $5 AND ("is_published" IS NULL OR "is_published" <> ALL($6::boolean[]))');
      expect(sent[0]?.params[4]).toBe("delta\\%");
      expect(await store.count({ where: { title: { like: "%a%" } } })).toBe(3);
    });

    it("where and search on a field the table lacks, or a search of a column that is not text, throw naming the field before any query", async () => {
      const store = new SqlStore<Post>(engine.db(), await postsTable(engine.db()));
      await expect(store.list({ offset: 0, limit: 1, where: { secret: 1 } as never })).rejects.toThrow(/the table where_posts_\d+ has no column for the field "secret" a where names/);
      await expect(store.list({ offset: 0, limit: 1, search: { field: "published", prefix: "t" } })).rejects.toThrow(/a search names the field "published" of where_posts_\d+, which holds no text \(its column is boolean\)/);
    });
  });
});
