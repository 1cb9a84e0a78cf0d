import { describe, expect, it } from "vitest";
import { createTableSql, SqlStore, type Database, type TableSpec } from "../../runtime/db/index.js";
import { columnSql, foreignKeyName, indexName, ownerIndexSql, uniqueName } from "../../runtime/db/ddl.js";
import { storeError } from "../../runtime/db/sql-errors.js";
import { referenceConformance, type Comment, type Flag, type Post, type Tag, type Vote } from "../resource/reference-conformance.js";
import { onEveryEngine } from "./engines.js";

let runs = 0;

/** The reference conformance models as tables (what the transformer generates), created fresh: `r<n>_posts`, … */
async function referenceTables(db: Database): Promise<{ [K in "posts" | "comments" | "votes" | "flags" | "tags"]: TableSpec }> {
  const n = ++runs;
  const name = (table: string) => `r${n}_${table}`;
  const key = { field: "id", column: "id" };
  const posts: TableSpec = { name: name("posts"), key, columns: [{ field: "title", column: "title", type: "text", nullable: false }] };
  const comments: TableSpec = {
    name: name("comments"),
    key,
    columns: [
      { field: "post", column: "post_id", type: "bigint", nullable: false, references: { table: posts.name, column: "id", onDelete: "cascade" } },
      { field: "parent", column: "parent_id", type: "bigint", nullable: true, references: { table: name("comments"), column: "id", onDelete: "set null" } },
      { field: "body", column: "body", type: "text", nullable: false },
    ],
  };
  const votes: TableSpec = {
    name: name("votes"),
    key,
    columns: [
      { field: "comment", column: "comment_id", type: "bigint", nullable: false, references: { table: comments.name, column: "id", onDelete: "cascade" } },
      { field: "voter", column: "voter", type: "integer", nullable: false },
    ],
    unique: [["comment_id", "voter"]],
  };
  const flags: TableSpec = {
    name: name("flags"),
    key,
    columns: [
      { field: "comment", column: "comment_id", type: "bigint", nullable: false, references: { table: comments.name, column: "id" } },
      { field: "reason", column: "reason", type: "text", nullable: false },
    ],
  };
  const tags: TableSpec = {
    name: name("tags"),
    key,
    columns: [
      { field: "name", column: "name", type: "text", nullable: false, unique: true },
      { field: "code", column: "code", type: "text", nullable: true, maxLength: 10, unique: true },
    ],
  };
  for (const table of [posts, comments, votes, flags, tags]) await db.script(createTableSql(table));
  return { posts, comments, votes, flags, tags };
}

onEveryEngine((engine) => {
  referenceConformance(`SqlStore on ${engine.name}`, async () => {
    const db = engine.db();
    const t = await referenceTables(db);
    return {
      posts: new SqlStore<Post>(db, t.posts),
      comments: new SqlStore<Comment>(db, t.comments),
      votes: new SqlStore<Vote>(db, t.votes),
      flags: new SqlStore<Flag>(db, t.flags),
      tags: new SqlStore<Tag>(db, t.tags),
      names: { posts: t.posts.name, comments: t.comments.name, votes: t.votes.name, flags: t.flags.name, tags: t.tags.name },
    };
  });

  describe(`issue 29: the DDL's names on ${engine.name}`, () => {
    it("foreign keys, uniques and indexes are in the database under the names fw computes, which are PostgreSQL's own defaults (long names cut alike)", async () => {
      const db = engine.db();
      const t = await referenceTables(db);
      const names = async (table: string) =>
        (
          await db.query<{ name: string }>(
            `SELECT conname AS name FROM pg_constraint WHERE conrelid = $1::regclass AND contype IN ('f', 'u')
             UNION SELECT indexrelid::regclass::text FROM pg_index WHERE indrelid = $1::regclass AND NOT indisunique ORDER BY 1`,
            [table],
          )
        ).rows.map((row) => row.name);
      expect(await names(t.votes.name)).toEqual([foreignKeyName(t.votes.name, "comment_id"), indexName(t.votes.name, "comment_id"), uniqueName(t.votes.name, ["comment_id", "voter"])].sort());
      // Let PostgreSQL name them itself (no CONSTRAINT clause) on names long enough to be cut: fw's names must be the same.
      const long = `l${runs}_${"t".repeat(40)}`;
      const column = { field: "x", column: `c_${"c".repeat(40)}`, type: "bigint" as const, nullable: true, unique: true, references: { table: t.posts.name, column: "id" } };
      const other = `d_${"d".repeat(30)}`;
      await db.script(`CREATE TABLE "${long}" (${columnSql(column)}, "${other}" integer, UNIQUE ("${other}", "${column.column}")); CREATE INDEX ON "${long}" ("${column.column}");`);
      expect(await names(long)).toEqual([foreignKeyName(long, column.column), indexName(long, column.column), uniqueName(long, [column.column]), uniqueName(long, [other, column.column])].sort());
      expect(ownerIndexSql(long, column.column)).toContain(`"${indexName(long, column.column)}"`);
    });
  });
});

describe("issue 29: a constraint violation as the store's error, from what the engine reports", () => {
  const posts: TableSpec = { name: "blog_posts", key: { field: "id", column: "id" }, columns: [{ field: "title", column: "title", type: "text", nullable: false }] };
  const unknownDb = {} as Database;

  it("a delete blocked by a table no store was made for: the field read from fw's constraint name (blog_post_id → blogPost)", () => {
    const error = { code: "23001", table: "blog_comments", constraint: "blog_comments_blog_post_id_fkey", detail: 'Key (id)=(4) is referenced from table "blog_comments".' };
    expect(storeError(error, unknownDb, posts, { delete: true, key: 4 })).toMatchObject({ name: "StillReferenced", table: "blog_posts", key: 4, by: [{ table: "blog_comments", field: "blogPost" }] });
    const older = { code: "23503", detail: 'Key (id)=(4) is still referenced from table "blog_comments".' };
    expect(storeError(older, unknownDb, posts, { delete: true, key: 4 })).toMatchObject({ by: [{ table: "blog_comments", field: "a reference" }] });
  });

  it("anything but a unique or foreign-key violation is left as it is", () => {
    expect(storeError({ code: "22001" }, unknownDb, posts, { delete: false, draft: {} })).toBeUndefined();
    expect(storeError(new Error("boom"), unknownDb, posts, { delete: true, key: 1 })).toBeUndefined();
    expect(storeError(undefined, unknownDb, posts, { delete: true, key: 1 })).toBeUndefined();
    expect(storeError({ code: "23001" }, unknownDb, posts, { delete: false, draft: {} })).toBeUndefined();
  });
});
