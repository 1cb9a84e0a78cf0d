import { CASE_FOLD, fold } from "../resource/case-fold.js";
import type { ListPage, Search } from "../resource/query.js";
import { quoteIdentifier as q } from "./identifier.js";
import type { ColumnSpec, TableSpec } from "./table.js";

/**
 * `Store.list`'s `where` and `search` as SQL conditions, every value a `$n` parameter. What
 * they match is what the in-memory store matches (resource/query-match.ts): a value of another
 * type than the column's, or one the column cannot hold (a key of 1.5, "7", 2^63, a text with
 * a NUL), matches no row and is never sent, so no query fails on it.
 */
export function queryConditions(page: Pick<ListPage<unknown>, "where" | "search">, table: TableSpec, params: unknown[]): string[] {
  const conditions: string[] = [];
  for (const [field, wanted] of Object.entries((page.where ?? {}) as Record<string, unknown>)) {
    const column = columnOfField(table, field, "a where");
    if (wanted === undefined) continue;
    if (column.type === "jsonb") {
      throw new Error(`fw/db: a where names the field ${JSON.stringify(field)} of ${table.name}, a jsonb column, which where cannot compare: filter by a field of a plain type.`);
    }
    const values = (Array.isArray(wanted) ? wanted : [wanted]).map((value) => sqlValue(column, value)).filter((value) => value !== undefined);
    if (values.length === 0) {
      conditions.push("FALSE");
    } else if (!Array.isArray(wanted)) {
      params.push(values[0]);
      conditions.push(`${q(column.column)} = $${params.length}`);
    } else {
      params.push(arrayLiteral(values));
      conditions.push(`${q(column.column)} = ANY($${params.length}::${column.type}[])`);
    }
  }
  if (page.search !== undefined) conditions.push(searchCondition(page.search, table, params));
  return conditions;
}

/**
 * A case-insensitive prefix match: both sides folded by the same table (case-fold.ts) with
 * `translate`, whatever the database's locale, and compared with `starts_with`, so `%`, `_` and
 * `\` in the prefix are plain characters.
 */
function searchCondition(search: Search, table: TableSpec, params: unknown[]): string {
  const column = columnOfField(table, search.field, "a search");
  if (column.type !== "text") {
    throw new Error(`fw/db: a search names the field ${JSON.stringify(search.field)} of ${table.name}, which holds no text (its column is ${column.type}): search a text field.`);
  }
  if (typeof search.prefix !== "string" || search.prefix.includes("\u0000")) return "FALSE";
  params.push(CASE_FOLD.from, CASE_FOLD.to, fold(search.prefix));
  const n = params.length;
  return `starts_with(translate(${q(column.column)}, $${n - 2}, $${n - 1}), $${n})`;
}

/** The column of a model field (the key's too, as a bigint); throws naming the field and `what` named it when there is none. */
export function columnOfField(table: TableSpec, field: string, what: string): ColumnSpec {
  if (field === table.key.field) return { field, column: table.key.column, type: "bigint", nullable: false };
  const column = table.columns.find((c) => c.field === field);
  if (column === undefined) {
    throw new Error(`fw/db: the table ${table.name} has no column for the field ${JSON.stringify(field)} ${what} names (fields: ${[table.key.field, ...table.columns.map((c) => c.field)].join(", ")}).`);
  }
  return column;
}

const INT4 = 2 ** 31;

/** A where value as sent for the column, or undefined when no row's value can equal it (not sent). */
function sqlValue(column: ColumnSpec, value: unknown): string | number | boolean | undefined {
  switch (column.type) {
    case "text":
      return typeof value === "string" && !value.includes("\u0000") ? value : undefined;
    case "bigint":
      return Number.isSafeInteger(value) ? (value as number) : undefined;
    case "integer":
      return Number.isInteger(value) && (value as number) >= -INT4 && (value as number) < INT4 ? (value as number) : undefined;
    case "double precision":
    case "numeric":
      return typeof value === "number" && !Number.isNaN(value) ? value : undefined;
    case "boolean":
      return typeof value === "boolean" ? value : undefined;
    case "date":
      return column.asDate === true ? dayOf(value) : typeof value === "string" && isDay(value) ? value : undefined;
    case "timestamptz":
      return value instanceof Date && inYears(value) ? value.toISOString() : undefined;
    case "jsonb":
      return undefined;
  }
}

/** A `Date` at UTC midnight (what a form's date reads as) as its day; any other value matches no stored day. */
function dayOf(value: unknown): string | undefined {
  if (!(value instanceof Date) || !inYears(value)) return undefined;
  const text = value.toISOString();
  return text.endsWith("T00:00:00.000Z") ? text.slice(0, 10) : undefined;
}

/** `YYYY-MM-DD`, a real calendar day from year 1 to 9999. */
function isDay(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || text.startsWith("0000")) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
}

function inYears(date: Date): boolean {
  const year = date.getUTCFullYear();
  return !Number.isNaN(year) && year >= 1 && year <= 9999;
}

/** Values as a PostgreSQL array literal (`{"1","2"}`), each element quoted: the same text on either engine's driver. */
function arrayLiteral(values: readonly (string | number | boolean)[]): string {
  return `{${values.map((value) => `"${String(value).replace(/[\\"]/g, "\\$&")}"`).join(",")}}`;
}
