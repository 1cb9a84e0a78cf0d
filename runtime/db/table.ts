import { SEARCH_LANGUAGES, type SearchLanguage } from "../resource/text-search.js";
import type { OnDelete } from "../resource/types.js";
import { checkIdentifier } from "./identifier.js";

/** The SQL types a model field maps to (the transformer picks one per field from its type). */
export const COLUMN_TYPES = ["text", "integer", "bigint", "double precision", "numeric", "boolean", "date", "timestamptz", "jsonb"] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

/** One model field stored in one column. */
export interface ColumnSpec {
  /** The model's property (`publishedAt`). */
  readonly field: string;
  /** The column (`published_at`). */
  readonly column: string;
  readonly type: ColumnType;
  /** `x?: T` or `T | undefined`: NULL allowed, read back as an absent field. */
  readonly nullable: boolean;
  /** A text column with a maximum length (a `MaxLength<n>` tag) becomes `varchar(n)`. */
  readonly maxLength?: number;
  /** No two rows may share a value: a write that would is refused with `DuplicateValue`. */
  readonly unique?: boolean;
  /**
   * A `date` column whose model field is a `Date` (what the build generates for a `Date` field):
   * read back as a `Date` at UTC midnight, as the form reads one. Without it a date reads as
   * its text (`"2026-11-25"`), for a model field typed `string`.
   */
  readonly asDate?: boolean;
  /**
   * A foreign key: a reference field (`post: Id<Post>`) points at its model's table, the owner
   * field of an owned model at the users table. The column is indexed. `onDelete` is what
   * deleting the target does here (`restrict` when absent).
   */
  readonly references?: { readonly table: string; readonly column: string; readonly onDelete?: OnDelete };
  /**
   * A file field's column (jsonb: the stored file's key, name, type, size and checksum; issue 40):
   * the model's path, where its rows' files are served. A row read back carries the file's `url`
   * (`/posts/7/cover/<key>`), which is never stored.
   */
  readonly fileAt?: string;
}

/**
 * A model's table, as the transformer will generate it from the model's type: the key (an
 * identity the database assigns and never reuses), the columns, and for an owned model the
 * owner field (one of the columns, a foreign key to the users table).
 */
export interface TableSpec {
  /** The table (`posts`). */
  readonly name: string;
  /** The key field and its column (`id`); `bigint generated always as identity`. */
  readonly key: { readonly field: string; readonly column: string };
  /** Every stored field but the key, in declaration order. */
  readonly columns: readonly ColumnSpec[];
  /** An owned model's owner field: names a column that has `references`. */
  readonly owner?: string;
  /**
   * The model whose rows the table keeps (its name and derived path, `{ name: "TimeEntry", path:
   * "/time-entries" }`): how a page about a user's own data names them ("your time entries").
   */
  readonly model?: { readonly name: string; readonly path: string };
  /** Columns no two rows may share together (a unique of several columns; one column's is `ColumnSpec.unique`). */
  readonly unique?: readonly (readonly string[])[];
  /**
   * Plain indexes beyond those of the references, each a list of columns (the key column may be
   * one): what the pages' queries need, as the build derives them (a read scope's field and the
   * key, `["published", "id"]`: the rows everyone reads, in key order). Named `indexName`.
   */
  readonly indexes?: readonly (readonly string[])[];
  /**
   * Full-text search (issue 43): the text columns it reads, most important first (weights A, B,
   * C, D), and their language (a PostgreSQL text search configuration). The table then has
   * fw's generated `fw_search` tsvector column and a GIN index on it.
   */
  readonly search?: { readonly language: SearchLanguage; readonly columns: readonly string[] };
  /**
   * Many-to-many (issue 43): each list field of the model (`tags: Id<Tag>[]`) kept in a join table
   * of its own rather than a column. Read back as the list of keys, in key order.
   */
  readonly links?: readonly LinkSpec[];
}

/**
 * A list field's join table (`posts_tags`): one row per (row, listed row), the pair its primary
 * key, both columns foreign keys `ON DELETE CASCADE` (deleting a post drops its links, deleting a
 * tag takes it out of every list), the listed column indexed (the posts of a tag).
 */
export interface LinkSpec {
  /** The model's list field (`tags`). */
  readonly field: string;
  /** The join table (`posts_tags`). */
  readonly table: string;
  /** The column holding the row's key (`post_id`). */
  readonly from: string;
  /** The column holding a listed row's key (`tag_id`). */
  readonly to: string;
  /** The listed model's table and key column (`tags`, `id`). */
  readonly target: { readonly table: string; readonly column: string };
}


/** fw's generated column holding a searchable table's words (`tsvector`), kept by the database on every write. */
export const SEARCH_COLUMN = "fw_search";

/**
 * The column fw keeps on every table for optimistic concurrency: 1 on insert, one more on each
 * update. The `fw_` prefix is reserved: no model column may start with it.
 */
export const VERSION_COLUMN = "fw_version";

/** What deleting a referenced row does to the rows pointing at it (`ColumnSpec.references.onDelete`). */
const ON_DELETE_RULES: readonly OnDelete[] = ["restrict", "cascade", "set null"];

/** Checks a spec before any SQL is built from it, naming what is wrong and where. */
export function checkTable(table: TableSpec): void {
  checkIdentifier(table.name, "table name");
  checkIdentifier(table.key.column, `key column of ${table.name}`);
  const seen = new Set([table.key.column]);
  for (const column of table.columns) {
    const where = `column ${JSON.stringify(column.column)} of ${table.name}`;
    checkIdentifier(column.column, where);
    if (column.column.startsWith("fw_")) throw new Error(`fw/db: the ${where} starts with fw_, which fw reserves for its own columns. Rename the field.`);
    if (seen.has(column.column)) throw new Error(`fw/db: the table ${table.name} has the column ${column.column} twice.`);
    seen.add(column.column);
    if (!(COLUMN_TYPES as readonly string[]).includes(column.type)) {
      throw new Error(`fw/db: the ${where} has the type ${JSON.stringify(column.type)}; fw/db knows ${COLUMN_TYPES.join(", ")}.`);
    }
    if (column.maxLength !== undefined && (!Number.isSafeInteger(column.maxLength) || column.maxLength < 1 || column.type !== "text")) {
      throw new Error(`fw/db: the ${where} has maxLength ${column.maxLength}: only a text column takes one, a whole number from 1 up.`);
    }
    if (column.references !== undefined) {
      checkIdentifier(column.references.table, `table referenced by ${where}`);
      checkIdentifier(column.references.column, `column referenced by ${where}`);
      const rule = column.references.onDelete;
      if (rule !== undefined && !(ON_DELETE_RULES as readonly string[]).includes(rule)) {
        throw new Error(`fw/db: the ${where} has the on-delete rule ${JSON.stringify(rule)}; fw/db knows ${ON_DELETE_RULES.map((r) => JSON.stringify(r)).join(", ")}.`);
      }
      if (rule === "set null" && !column.nullable) {
        throw new Error(`fw/db: the ${where} is NOT NULL, so deleting the row it references cannot set it to NULL ("set null"). Make the field optional, or choose "restrict" or "cascade".`);
      }
    }
  }
  for (const columns of table.unique ?? []) {
    const what = `unique (${columns.join(", ")}) of ${table.name}`;
    if (columns.length === 0) throw new Error(`fw/db: the table ${table.name} has a unique of no columns; name at least one.`);
    for (const name of columns) {
      if (!seen.has(name)) throw new Error(`fw/db: the ${what} names the column ${JSON.stringify(name)}, which the table does not have (columns: ${[...seen].join(", ")}).`);
    }
    if (new Set(columns).size !== columns.length) throw new Error(`fw/db: the ${what} names a column twice.`);
  }
  for (const columns of table.indexes ?? []) {
    const what = `index (${columns.join(", ")}) of ${table.name}`;
    if (columns.length === 0) throw new Error(`fw/db: the table ${table.name} has an index of no columns; name at least one.`);
    for (const name of columns) {
      if (!seen.has(name)) throw new Error(`fw/db: the ${what} names the column ${JSON.stringify(name)}, which the table does not have (columns: ${[...seen].join(", ")}).`);
    }
    if (new Set(columns).size !== columns.length) throw new Error(`fw/db: the ${what} names a column twice.`);
  }
  if (table.search !== undefined) checkSearch(table, table.search);
  for (const link of table.links ?? []) checkLink(table, link);
  if (table.owner !== undefined && table.columns.find((column) => column.field === table.owner)?.references === undefined) {
    throw new Error(`fw/db: the owner field ${JSON.stringify(table.owner)} of ${table.name} must be one of its columns, with \`references\` (the users table).`);
  }
}

/** A join table's names are plain SQL names, its two columns differ, and its field is no column of the table. */
function checkLink(table: TableSpec, link: LinkSpec): void {
  const where = `join table of ${table.name}.${link.field}`;
  checkIdentifier(link.table, where);
  checkIdentifier(link.from, `first column of the ${where}`);
  checkIdentifier(link.to, `second column of the ${where}`);
  checkIdentifier(link.target.table, `table referenced by the ${where}`);
  checkIdentifier(link.target.column, `column referenced by the ${where}`);
  if (link.from === link.to) throw new Error(`fw/db: the ${where} names the column ${link.from} twice: the row's key and the listed row's key need a column each.`);
  if (link.table === table.name) throw new Error(`fw/db: the ${where} is named ${link.table}, as the table itself: name it apart (${table.name}_${link.field}).`);
  if (table.columns.some((c) => c.field === link.field)) throw new Error(`fw/db: the field ${link.field} of ${table.name} is both a column and a join table: a list field is kept in its join table alone.`);
}

/** A search's language is one both engines know, and its columns are text columns of the table. */
function checkSearch(table: TableSpec, search: NonNullable<TableSpec["search"]>): void {
  if (!(SEARCH_LANGUAGES as readonly string[]).includes(search.language)) {
    throw new Error(`fw/db: the search of ${table.name} is in ${JSON.stringify(search.language)}, which is no text search configuration fw knows (${SEARCH_LANGUAGES.join(", ")}).`);
  }
  if (search.columns.length === 0) throw new Error(`fw/db: the search of ${table.name} names no column: name the text columns it reads.`);
  for (const name of search.columns) {
    const column = table.columns.find((c) => c.column === name);
    if (column === undefined || column.type !== "text") {
      throw new Error(`fw/db: the search of ${table.name} names ${JSON.stringify(name)}, which is not a text column of the table (text columns: ${table.columns.filter((c) => c.type === "text").map((c) => c.column).join(", ") || "none"}).`);
    }
  }
}
