import type { OnDelete } from "../resource/types.js";
import { quoteIdentifier as q } from "./identifier.js";
import { checkTable, SEARCH_COLUMN, VERSION_COLUMN, type ColumnSpec, type LinkSpec, type TableSpec } from "./table.js";

/**
 * The comment fw puts on a model's table: the drift page proposes to drop a table only when it
 * carries it and no model declares the table any more (never a table a migration made by hand).
 */
export const MODEL_TABLE_COMMENT = "fw/db: the table of a model";

/**
 * The statements that create a model's table: what `db new` puts in a first migration and the
 * tests create. The key is `bigint generated always as identity` (never reused, never written
 * by a client); a reference column (a reference field, or an owner column pointing at the users
 * table) has a foreign key with its on-delete rule (`RESTRICT` by default: a user who still owns
 * rows cannot be deleted) and an index, since pages list by it (a user's rows, a post's
 * comments). Single and composite uniques become named constraints. Every constraint and index
 * carries the name PostgreSQL would give it (`comments_post_id_fkey`, `tags_name_key`,
 * `comments_post_id_idx`), written out so the schema diff can find it by name.
 */
export function createTableSql(table: TableSpec): string {
  checkTable(table);
  const lines = [
    `  ${q(table.key.column)} bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY`,
    ...table.columns.map((column) => `  ${columnSql(column, table.name)}`),
    `  ${q(VERSION_COLUMN)} integer NOT NULL DEFAULT 1`,
    ...(table.search === undefined ? [] : [`  ${searchColumnSql(table.search)}`]),
    ...(table.unique ?? []).map((columns) => `  ${uniqueConstraintSql(table.name, columns)}`),
  ];
  checkNames(table);
  const statements = [`CREATE TABLE ${q(table.name)} (\n${lines.join(",\n")}\n);`, `COMMENT ON TABLE ${q(table.name)} IS '${MODEL_TABLE_COMMENT}';`];
  for (const column of table.columns) {
    if (column.references !== undefined) {
      statements.push(ownerIndexSql(table.name, column.column));
    }
  }
  for (const columns of table.indexes ?? []) statements.push(indexSql(table.name, columns));
  if (table.search !== undefined) statements.push(searchCommentSql(table.name, table.search), searchStatisticsSql(table.name), searchIndexSql(table.name));
  return statements.join("\n") + "\n";
}

/**
 * The comment fw puts on a join table (`fw/db: the join table of posts.tags`): drift drops one no
 * model's list field declares any more, as it drops a model's table, and never a table without it.
 */
export const LINK_TABLE_COMMENT = "fw/db: the join table of";

/** A join table's own comment: `fw/db: the join table of posts.tags`. */
export function linkComment(table: string, link: LinkSpec): string {
  return `${LINK_TABLE_COMMENT} ${table}.${link.field}`;
}

/**
 * The statements that create a list field's join table (many-to-many, issue 43), once both the
 * model's table and the listed model's exist: the pair of keys its primary key (no link twice,
 * and the index that finds a row's links), each a foreign key `ON DELETE CASCADE` (deleting
 * either row deletes the link), and an index on the listed column then the row's key (the rows
 * of a tag in key order, `posts_tags_tag_id_post_id_idx`):
 *
 *     CREATE TABLE "posts_tags" ("post_id" bigint NOT NULL CONSTRAINT "posts_tags_post_id_fkey"
 *       REFERENCES "posts" ("id") ON DELETE CASCADE, "tag_id" …, CONSTRAINT "posts_tags_pkey"
 *       PRIMARY KEY ("post_id", "tag_id"));
 */
export function linkTableSql(table: TableSpec, link: LinkSpec): string {
  checkTable(table);
  const from = { table: table.name, column: table.key.column, onDelete: "cascade" as const };
  const to = { ...link.target, onDelete: "cascade" as const };
  const lines = [
    `  ${q(link.from)} bigint NOT NULL CONSTRAINT ${q(foreignKeyName(link.table, link.from))} ${referencesSql(from)}`,
    `  ${q(link.to)} bigint NOT NULL CONSTRAINT ${q(foreignKeyName(link.table, link.to))} ${referencesSql(to)}`,
    `  CONSTRAINT ${q(primaryKeyName(link.table))} PRIMARY KEY (${q(link.from)}, ${q(link.to)})`,
  ];
  return [
    `CREATE TABLE ${q(link.table)} (\n${lines.join(",\n")}\n);`,
    `COMMENT ON TABLE ${q(link.table)} IS '${linkComment(table.name, link)}';`,
    // The rows of a tag, in the listing table's key order (`/posts?tags=3` pages and counts by it
    // without reading the join table's rows: an index-only scan, merged with the posts' own order).
    indexSql(link.table, [link.to, link.from]),
  ].join("\n") + "\n";
}

/**
 * fw's search column (issue 43): `fw_search tsvector GENERATED ALWAYS AS (…) STORED`, each searched
 * column's words in the table's language, weighted by its place (A, B, C, then D), kept by the
 * database on every write.
 */
export function searchColumnSql(search: NonNullable<TableSpec["search"]>): string {
  const language = `'${search.language}'::regconfig`;
  const parts = search.columns.map((column, i) => `setweight(to_tsvector(${language}, coalesce(${q(column)}, '')), '${"ABCD"[Math.min(i, 3)]}')`);
  return `${q(SEARCH_COLUMN)} tsvector GENERATED ALWAYS AS (${parts.join(" || ")}) STORED`;
}

/**
 * What the search column is made of, as its comment: the schema diff compares it to know the
 * column still reads the model's fields (PostgreSQL rewrites the expression it keeps).
 */
export function searchSignature(search: NonNullable<TableSpec["search"]>): string {
  return `fw/db: search ${search.language} ${search.columns.join(", ")}`;
}

export function searchCommentSql(table: string, search: NonNullable<TableSpec["search"]>): string {
  return `COMMENT ON COLUMN ${q(table)}.${q(SEARCH_COLUMN)} IS '${searchSignature(search)}';`;
}

/** How many of the words the search column holds ANALYZE keeps counts of (PostgreSQL's default is 100). */
export const SEARCH_STATISTICS = 1000;

/**
 * The search column's statistics target, raised (`ALTER … SET STATISTICS 1000`): with the
 * default, a word ANALYZE kept no count of is guessed in 0.5 % of the rows (5,000 of a million,
 * whatever it really is), and a search's "the newest matches, in key order" then walked the key's
 * index through the whole table for a rare word, thinking it would meet enough matches soon
 * (bench/FINDINGS.md 30). With 1,000 the rare words are counted, and an unknown one is guessed
 * as rare as the rarest counted: the GIN index finds it.
 */
export function searchStatisticsSql(table: string): string {
  return `ALTER TABLE ${q(table)} ALTER COLUMN ${q(SEARCH_COLUMN)} SET STATISTICS ${SEARCH_STATISTICS};`;
}

/** The GIN index searches find rows by: `posts_fw_search_idx`. */
export function searchIndexSql(table: string): string {
  return `CREATE INDEX ${q(indexName(table, SEARCH_COLUMN))} ON ${q(table)} USING gin (${q(SEARCH_COLUMN)});`;
}

/**
 * A column's definition as CREATE TABLE and ADD COLUMN write it: name, type, NOT NULL, UNIQUE,
 * REFERENCES … ON DELETE …. With `table`, the unique and foreign-key constraints are named
 * (`CONSTRAINT "posts_slug_key" UNIQUE`) with PostgreSQL's default names; without it PostgreSQL
 * picks those same names itself (unless they are taken).
 */
export function columnSql(column: ColumnSpec, table?: string): string {
  const parts = [q(column.column), columnType(column)];
  if (!column.nullable) parts.push("NOT NULL");
  if (column.unique === true) parts.push(table === undefined ? "UNIQUE" : `CONSTRAINT ${q(uniqueName(table, [column.column]))} UNIQUE`);
  if (column.references !== undefined) {
    parts.push(`${table === undefined ? "" : `CONSTRAINT ${q(foreignKeyName(table, column.column))} `}${referencesSql(column.references)}`);
  }
  return parts.join(" ");
}

/** The column's SQL type: its `type`, or `varchar(n)` for a text column with a maximum length. */
export function columnType(column: ColumnSpec): string {
  return column.maxLength === undefined ? column.type : `varchar(${column.maxLength})`;
}

/**
 * The index a reference column gets (an owner's or a reference field's): pages list by it. The
 * name is `indexName(table, column)`.
 */
export function ownerIndexSql(table: string, column: string): string {
  return `CREATE INDEX ${q(indexName(table, column))} ON ${q(table)} (${q(column)});`;
}

/**
 * A plain index of `TableSpec.indexes` (`CREATE INDEX "posts_published_id_idx" ON "posts"
 * ("published", "id");`), named as PostgreSQL would name it.
 */
export function indexSql(table: string, columns: readonly string[]): string {
  return `CREATE INDEX ${q(indexName(table, columns))} ON ${q(table)} (${columns.map(q).join(", ")});`;
}

/** `REFERENCES "posts" ("id") ON DELETE CASCADE`: a foreign key's target and rule (restrict when absent). */
export function referencesSql(references: NonNullable<ColumnSpec["references"]>): string {
  return `REFERENCES ${q(references.table)} (${q(references.column)}) ON DELETE ${onDeleteSql(references.onDelete)}`;
}

/** A rule as SQL writes it: `RESTRICT` (also when absent), `CASCADE`, `SET NULL`. */
export function onDeleteSql(rule: OnDelete | undefined): "RESTRICT" | "CASCADE" | "SET NULL" {
  return rule === "cascade" ? "CASCADE" : rule === "set null" ? "SET NULL" : "RESTRICT";
}

/**
 * A unique of one or more columns as a table constraint, named: `CONSTRAINT
 * "comments_post_id_author_id_key" UNIQUE ("post_id", "author_id")` (CREATE TABLE's line, or
 * `ALTER TABLE … ADD` it).
 */
export function uniqueConstraintSql(table: string, columns: readonly string[]): string {
  return `CONSTRAINT ${q(uniqueName(table, columns))} UNIQUE (${columns.map(q).join(", ")})`;
}

/**
 * A reference column's foreign key as a table constraint, named: `CONSTRAINT
 * "comments_post_id_fkey" FOREIGN KEY ("post_id") REFERENCES "posts" ("id") ON DELETE CASCADE`
 * (for `ALTER TABLE … ADD`). Throws when the column has no `references`.
 */
export function foreignKeyConstraintSql(table: string, column: ColumnSpec): string {
  if (column.references === undefined) throw new Error(`fw/db: the column ${column.column} of ${table} is not a reference: it has no foreign key.`);
  return `CONSTRAINT ${q(foreignKeyName(table, column.column))} FOREIGN KEY (${q(column.column)}) ${referencesSql(column.references)}`;
}

/** PostgreSQL's default name of a table's primary key: `posts_tags_pkey`. */
export function primaryKeyName(table: string): string {
  return `${table.slice(0, MAX_NAME - "_pkey".length)}_pkey`;
}

/** PostgreSQL's default name of a column's foreign key: `comments_post_id_fkey`. */
export function foreignKeyName(table: string, column: string): string {
  return objectName(table, column, "fkey");
}

/** PostgreSQL's default name of a unique constraint (and its index): `tags_name_key`, `comments_post_id_author_id_key`. */
export function uniqueName(table: string, columns: readonly string[]): string {
  return objectName(table, columnsAddition(columns), "key");
}

/** PostgreSQL's default name of an index on one column or more: `comments_post_id_idx`, `posts_published_id_idx`. */
export function indexName(table: string, columns: string | readonly string[]): string {
  return objectName(table, typeof columns === "string" ? columns : columnsAddition(columns), "idx");
}

/**
 * Refuses a table whose constraints or indexes would get the same name: PostgreSQL's default
 * names are cut to 63 characters, so long table and column names can end alike.
 */
function checkNames(table: TableSpec): void {
  const names = new Map<string, string>();
  const add = (name: string, what: string): void => {
    const before = names.get(name);
    if (before !== undefined) {
      throw new Error(`fw/db: the ${before} and the ${what} of ${table.name} would both be named ${name} (names are cut to ${MAX_NAME} characters): shorten the table or column names.`);
    }
    names.set(name, what);
  };
  for (const column of table.columns) {
    if (column.unique === true) add(uniqueName(table.name, [column.column]), `unique ${column.column}`);
    if (column.references !== undefined) {
      add(foreignKeyName(table.name, column.column), `foreign key ${column.column}`);
      add(indexName(table.name, column.column), `index on ${column.column}`);
    }
  }
  for (const columns of table.unique ?? []) add(uniqueName(table.name, columns), `unique (${columns.join(", ")})`);
  for (const columns of table.indexes ?? []) add(indexName(table.name, columns), `index (${columns.join(", ")})`);
}

/** NAMEDATALEN - 1: the longest name PostgreSQL keeps. */
const MAX_NAME = 63;

/**
 * `table_part_label` cut to fit 63 characters as PostgreSQL's makeObjectName cuts a default
 * name: the longer of the two parts loses a character until both fit. Identifiers are plain
 * ASCII (identifier.ts), so characters are bytes.
 */
function objectName(table: string, part: string, label: string): string {
  const available = MAX_NAME - (label.length + 2);
  let a = table.length;
  let b = part.length;
  while (a + b > available) {
    if (a > b) a--;
    else b--;
  }
  return `${table.slice(0, a)}_${part.slice(0, b)}_${label}`;
}

/** The column names joined by `_`, as PostgreSQL's ChooseIndexNameAddition joins them (stopping once past the limit). */
function columnsAddition(columns: readonly string[]): string {
  let joined = "";
  for (const column of columns) {
    if (joined !== "") joined += "_";
    joined += column;
    if (joined.length >= MAX_NAME + 1) break;
  }
  return joined;
}
