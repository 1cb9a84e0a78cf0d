import { describe, expect, it } from "vitest";
import { createTableSql, quoteIdentifier, type TableSpec } from "../../runtime/db/index.js";

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
        '  "slug" text NOT NULL UNIQUE,',
        '  "published_at" date,',
        '  "author_id" bigint NOT NULL REFERENCES "users" ("id") ON DELETE RESTRICT,',
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
