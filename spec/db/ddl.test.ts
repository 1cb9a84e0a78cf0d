import { describe, expect, it } from "vitest";
import { createTableSql, quoteIdentifier, type TableSpec } from "../../runtime/db/index.js";
import { columnSql, foreignKeyConstraintSql, foreignKeyName, indexName, uniqueConstraintSql, uniqueName } from "../../runtime/db/ddl.js";

const POSTS: TableSpec = {
  name: "posts",
  key: { field: "id", column: "id" },
  columns: [
    { field: "title", column: "title", type: "text", nullable: false, maxLength: 120 },
    { field: "slug", column: "slug", type: "text", nullable: false, unique: true },
    { field: "publishedAt", column: "published_at", type: "date", nullable: true },
    { field: "author", column: "author_id", type: "bigint", nullable: false, references: { table: "users", column: "id" } },
  ],
  owner: "author",
};

describe("issue 20: a table from its TableSpec", () => {
  it("key as a never-reused identity, varchar(n) for a max length, owner FK and its index, the version column", () => {
    expect(createTableSql(POSTS)).toBe(
      [
        'CREATE TABLE "posts" (',
        '  "id" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,',
        '  "title" varchar(120) NOT NULL,',
        '  "slug" text NOT NULL CONSTRAINT "posts_slug_key" UNIQUE,',
        '  "published_at" date,',
        '  "author_id" bigint NOT NULL CONSTRAINT "posts_author_id_fkey" REFERENCES "users" ("id") ON DELETE RESTRICT,',
        '  "fw_version" integer NOT NULL DEFAULT 1',
        ");",
        `COMMENT ON TABLE "posts" IS 'fw/db: the table of a model';`,
        'CREATE INDEX "posts_author_id_idx" ON "posts" ("author_id");',
        "",
      ].join("\n"),
    );
  });

  it("identifiers are checked before they are quoted: anything but a plain name is refused, naming it", () => {
    expect(quoteIdentifier("published_at")).toBe('"published_at"');
    for (const bad of ['a"b', "a b", "1st", "", "x;drop", "é", "a".repeat(64)]) {
      expect(() => quoteIdentifier(bad)).toThrow(`the identifier ${JSON.stringify(bad)} is not a plain SQL identifier`);
    }
    expect(() => createTableSql({ ...POSTS, name: 'posts"; DROP TABLE users; --' })).toThrow(/the table name "posts\\"; DROP TABLE users; --" is not a plain SQL identifier/);
  });

  it("a spec the transformer got wrong is refused with what is wrong and where", () => {
    const column = POSTS.columns[0] as TableSpec["columns"][number];
    expect(() => createTableSql({ ...POSTS, columns: [{ ...column, type: "varchar" as never }] })).toThrow(/column "title" of posts has the type "varchar"; fw\/db knows text, integer/);
    expect(() => createTableSql({ ...POSTS, columns: [{ ...column, maxLength: 0 }] })).toThrow(/maxLength 0: only a text column takes one/);
    expect(() => createTableSql({ ...POSTS, columns: [{ ...column, column: "fw_version" }] })).toThrow(/starts with fw_, which fw reserves/);
    expect(() => createTableSql({ ...POSTS, columns: [column, column] })).toThrow("the table posts has the column title twice");
    expect(() => createTableSql({ ...POSTS, owner: "title" })).toThrow(/owner field "title" of posts must be one of its columns, with `references`/);
  });
});

const COMMENTS: TableSpec = {
  name: "comments",
  key: { field: "id", column: "id" },
  columns: [
    { field: "post", column: "post_id", type: "bigint", nullable: false, references: { table: "posts", column: "id", onDelete: "cascade" } },
    { field: "parent", column: "parent_id", type: "bigint", nullable: true, references: { table: "comments", column: "id", onDelete: "set null" } },
    { field: "author", column: "author_id", type: "bigint", nullable: false, references: { table: "users", column: "id" } },
    { field: "body", column: "body", type: "text", nullable: false },
  ],
  owner: "author",
  unique: [["post_id", "author_id"]],
};

describe("issue 29: references and uniques in the DDL", () => {
  it("each reference a named foreign key with its on-delete rule and an index; a composite unique a named table constraint", () => {
    expect(createTableSql(COMMENTS)).toBe(
      [
        'CREATE TABLE "comments" (',
        '  "id" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,',
        '  "post_id" bigint NOT NULL CONSTRAINT "comments_post_id_fkey" REFERENCES "posts" ("id") ON DELETE CASCADE,',
        '  "parent_id" bigint CONSTRAINT "comments_parent_id_fkey" REFERENCES "comments" ("id") ON DELETE SET NULL,',
        '  "author_id" bigint NOT NULL CONSTRAINT "comments_author_id_fkey" REFERENCES "users" ("id") ON DELETE RESTRICT,',
        '  "body" text NOT NULL,',
        '  "fw_version" integer NOT NULL DEFAULT 1,',
        '  CONSTRAINT "comments_post_id_author_id_key" UNIQUE ("post_id", "author_id")',
        ");",
        `COMMENT ON TABLE "comments" IS 'fw/db: the table of a model';`,
        'CREATE INDEX "comments_post_id_idx" ON "comments" ("post_id");',
        'CREATE INDEX "comments_parent_id_idx" ON "comments" ("parent_id");',
        'CREATE INDEX "comments_author_id_idx" ON "comments" ("author_id");',
        "",
      ].join("\n"),
    );
  });

  it("the helpers the schema diff shares: a column without its table leaves the names to PostgreSQL; constraints for ALTER TABLE … ADD", () => {
    const post = COMMENTS.columns[0] as TableSpec["columns"][number];
    expect(columnSql(post)).toBe('"post_id" bigint NOT NULL REFERENCES "posts" ("id") ON DELETE CASCADE');
    expect(foreignKeyConstraintSql("comments", post)).toBe('CONSTRAINT "comments_post_id_fkey" FOREIGN KEY ("post_id") REFERENCES "posts" ("id") ON DELETE CASCADE');
    expect(uniqueConstraintSql("tags", ["name"])).toBe('CONSTRAINT "tags_name_key" UNIQUE ("name")');
    expect(() => foreignKeyConstraintSql("comments", COMMENTS.columns[3] as TableSpec["columns"][number])).toThrow("the column body of comments is not a reference");
  });

  it("names are PostgreSQL's defaults, cut to 63 characters the way PostgreSQL cuts them (the longer part first)", () => {
    expect(foreignKeyName("comments", "post_id")).toBe("comments_post_id_fkey");
    expect(uniqueName("comments", ["post_id", "author_id"])).toBe("comments_post_id_author_id_key");
    expect(indexName("comments", "post_id")).toBe("comments_post_id_idx");
    const table = "t".repeat(50);
    const column = "c".repeat(40);
    expect(foreignKeyName(table, column)).toBe(`${"t".repeat(29)}_${"c".repeat(28)}_fkey`);
    expect(foreignKeyName(table, column)).toHaveLength(63);
    expect(uniqueName("short", ["c".repeat(60)])).toBe(`short_${"c".repeat(53)}_key`);
    expect(indexName("t".repeat(60), "x")).toBe(`${"t".repeat(57)}_x_idx`);
  });

  it("refuses a set null on a NOT NULL column, an unknown rule and a unique naming a column the table lacks, naming each", () => {
    const post = COMMENTS.columns[0] as TableSpec["columns"][number] & { references: object };
    const setNull = { ...post, references: { ...post.references, onDelete: "set null" as const } };
    expect(() => createTableSql({ ...COMMENTS, columns: [setNull] , owner: undefined, unique: [] })).toThrow(
      'the column "post_id" of comments is NOT NULL, so deleting the row it references cannot set it to NULL ("set null"). Make the field optional',
    );
    const odd = { ...post, references: { ...post.references, onDelete: "no action" as never } };
    expect(() => createTableSql({ ...COMMENTS, columns: [odd], owner: undefined, unique: [] })).toThrow(/has the on-delete rule "no action"; fw\/db knows "restrict", "cascade", "set null"/);
    expect(() => createTableSql({ ...COMMENTS, unique: [["post_id", "title"]] })).toThrow('the unique (post_id, title) of comments names the column "title", which the table does not have');
    expect(() => createTableSql({ ...COMMENTS, unique: [["post_id", "post_id"]] })).toThrow("names a column twice");
    expect(() => createTableSql({ ...COMMENTS, unique: [[]] })).toThrow("a unique of no columns");
    const long = { field: "x", column: `c_${"c".repeat(40)}`, type: "text" as const, nullable: true, unique: true };
    expect(() => createTableSql({ name: "t".repeat(40), key: { field: "id", column: "id" }, columns: [long, { ...long, column: `${long.column}_2` }] })).toThrow(
      /the unique c_c+ and the unique c_c+_2 of t+ would both be named t+_c_c+_key \(names are cut to 63 characters\): shorten the table or column names/,
    );
  });
});
