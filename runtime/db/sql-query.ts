import { CASE_FOLD, fold } from "../resource/case-fold.js";
import type { ListPage, Search, Where } from "../resource/query.js";
import { orList } from "../resource/query-match.js";
import { CONDITION_NAMES, conditionsOf, likePattern, type ConditionName } from "../resource/where-conditions.js";
import { quoteIdentifier as q } from "./identifier.js";
import { hasSql } from "./sql-links.js";
import type { ColumnSpec, TableSpec } from "./table.js";

/**
 * `Store.list`'s `where` and `search` as SQL conditions, every value a `$n` parameter. What
 * they match is what the in-memory store matches (resource/query-match.ts): a value of another
 * type than the column's, or one the column cannot hold (a key of 1.5, "7", 2^63, a text with
 * a NUL), equals no row and is never sent, so no query fails on it; a range's bound compares as
 * its place among the values the column holds (`id > 5.5` is `id > 5`).
 */
export function queryConditions(page: Pick<ListPage<unknown>, "where" | "search">, table: TableSpec, params: unknown[]): string[] {
  const conditions = page.where === undefined ? [] : whereConditions(page.where, table, params);
  if (page.search !== undefined) conditions.push(searchCondition(page.search, table, params));
  return conditions;
}

/** A where's conditions, each a condition of its own (all must hold); an `or` one of them. */
function whereConditions(where: Where<unknown>, table: TableSpec, params: unknown[]): string[] {
  const conditions: string[] = [];
  for (const [field, wanted] of Object.entries(where as Record<string, unknown>)) {
    if (field === "or") {
      if (wanted === undefined) continue;
      const alternatives = orList(wanted, table.name).map((one) => all(whereConditions(one, table, params)));
      conditions.push(alternatives.length === 0 ? "FALSE" : alternatives.length === 1 ? (alternatives[0] as string) : `(${alternatives.join(" OR ")})`);
      continue;
    }
    if (field === "and") {
      if (wanted !== undefined) for (const one of orList(wanted, table.name, "and")) conditions.push(...whereConditions(one, table, params));
      continue;
    }
    const link = table.links?.find((one) => one.field === field);
    if (link !== undefined) {
      if (wanted !== undefined) conditions.push(...listConditions(table, link, wanted, params));
      continue;
    }
    const column = columnOfField(table, field, "a where");
    if (wanted === undefined) continue;
    if (column.type === "jsonb") {
      throw new Error(`fw/db: a where names the field ${JSON.stringify(field)} of ${table.name}, a jsonb column, which where cannot compare: filter by a field of a plain type.`);
    }
    const given = conditionsOf(wanted, `${table.name}.${field}`);
    for (const name of CONDITION_NAMES) {
      const value = given[name];
      if (value === undefined) continue;
      const sql = conditionSql(name, column, value, table, params);
      if (sql !== undefined) conditions.push(sql);
    }
  }
  return conditions;
}

/** A list field's conditions (many-to-many): `has` alone, through its join table. */
function listConditions(table: TableSpec, link: NonNullable<TableSpec["links"]>[number], wanted: unknown, params: unknown[]): string[] {
  const given = conditionsOf(wanted, `${table.name}.${link.field}`);
  const others = Object.keys(given).filter((name) => name !== "has" && given[name as keyof typeof given] !== undefined);
  if (others.length > 0) throw new Error(`fw/db: a where names the list field ${JSON.stringify(link.field)} of ${table.name} with ${others.join(", ")}: a list takes \`has\` (${link.field}: { has: 3 }).`);
  return given.has === undefined ? [] : [hasSql(table, link, given.has, params)];
}

/** Conditions that must all hold, as one: `TRUE` for none. */
function all(conditions: readonly string[]): string {
  if (conditions.length === 0) return "TRUE";
  return conditions.length === 1 ? (conditions[0] as string) : `(${conditions.join(" AND ")})`;
}

/** One condition of a where's field as SQL, its values pushed onto `params`; undefined for one that holds for every row (`not` a value no row holds). */
function conditionSql(name: ConditionName, column: ColumnSpec, value: unknown, table: TableSpec, params: unknown[]): string | undefined {
  const c = q(column.column);
  const push = (v: unknown): string => {
    params.push(v);
    return `$${params.length}`;
  };
  switch (name) {
    case "eq": {
      const v = sqlValue(column, value);
      return v === undefined ? "FALSE" : `${c} = ${push(v)}`;
    }
    case "in": {
      const values = sendable(column, value as readonly unknown[]);
      return values.length === 0 ? "FALSE" : `${c} = ANY(${push(arrayLiteral(values))}::${column.type}[])`;
    }
    case "not": {
      if (!Array.isArray(value)) {
        const v = sqlValue(column, value);
        return v === undefined ? undefined : `${c} IS DISTINCT FROM ${push(v)}`;
      }
      const values = sendable(column, value);
      return values.length === 0 ? undefined : `(${c} IS NULL OR ${c} <> ALL(${push(arrayLiteral(values))}::${column.type}[]))`;
    }
    case "null":
      return value === true ? `${c} IS NULL` : `${c} IS NOT NULL`;
    case "gt":
    case "gte":
    case "lt":
    case "lte":
      return rangeSql(column, name, value, push);
    case "contains":
    case "like":
      return textConditionSql(name, column, value as string, table, push);
    case "has":
      throw new Error(`fw/db: a where's has names the field ${JSON.stringify(column.field)} of ${table.name}, which is no list: has is for a list field (tags: Id<Tag>[]).`);
  }
}

/** The values of a list the column can hold (the others equal no row), as sent. */
function sendable(column: ColumnSpec, values: readonly unknown[]): (string | number | boolean)[] {
  return values.map((value) => sqlValue(column, value)).filter((value) => value !== undefined);
}

/**
 * `contains` (`strpos`, so `%` and `_` are plain) or `like` (`LIKE`, escape `\`) on a text
 * column, both sides folded by the table `search` uses (case-fold.ts); a text holding a NUL
 * matches nothing. A column that holds no text throws, naming the field.
 */
function textConditionSql(name: "contains" | "like", column: ColumnSpec, text: string, table: TableSpec, push: (v: unknown) => string): string {
  if (column.type !== "text") {
    throw new Error(`fw/db: a where's ${name} names the field ${JSON.stringify(column.field)} of ${table.name}, which holds no text (its column is ${column.type}): name a text field.`);
  }
  if (text.includes("\u0000")) return "FALSE";
  const folded = `translate(${q(column.column)}, ${push(CASE_FOLD.from)}, ${push(CASE_FOLD.to)})`;
  return name === "contains" ? `strpos(${folded}, ${push(fold(text))}) > 0` : `${folded} COLLATE "C" LIKE ${push(fold(likePattern(text)))}`;
}

type Range = "gt" | "gte" | "lt" | "lte";

const OPERATORS: Readonly<Record<Range, string>> = { gt: ">", gte: ">=", lt: "<", lte: "<=" };

/**
 * A range condition: the column against its bound, as the in-memory store compares (texts by
 * code point, `COLLATE "C"`). A bound the column cannot hold is moved to the nearest values it
 * can (a fraction on a whole-number column, an instant on a day column, a text holding a NUL),
 * so the condition keeps its meaning; one of another type holds for no row; one past every value
 * the column holds leaves every row with a value, or none.
 */
function rangeSql(column: ColumnSpec, op: Range, bound: unknown, push: (v: unknown) => string): string {
  const bounded = boundFor(column, op, bound);
  if (bounded === "none") return "FALSE";
  if (bounded === "any") return `${q(column.column)} IS NOT NULL`;
  const collate = column.type === "text" ? ' COLLATE "C"' : "";
  return `${q(column.column)}${collate} ${OPERATORS[bounded.op]} ${push(bounded.value)}`;
}

/** A range's bound as the column can take it: the operator and value to send, or which rows it keeps (`none`, or `any` with a value). */
function boundFor(column: ColumnSpec, op: Range, bound: unknown): { readonly op: Range; readonly value: unknown } | "none" | "any" {
  const upward = op === "gt" || op === "gte";
  // Past every value the column holds: above them, `gt` keeps none and `lt` every row with a value.
  const past = (above: boolean): "none" | "any" => (above === upward ? "none" : "any");
  switch (column.type) {
    case "text":
    case "jsonb": {
      if (typeof bound !== "string" || column.type === "jsonb") return "none";
      const nul = bound.indexOf("\u0000");
      // No stored text holds a NUL: "a\0b" lies just above "a" and below everything above it.
      return nul === -1 ? { op, value: bound } : { op: upward ? "gt" : "lte", value: bound.slice(0, nul) };
    }
    case "bigint":
    case "integer": {
      if (typeof bound !== "number" || Number.isNaN(bound)) return "none";
      const limit = column.type === "integer" ? INT4 : Number.MAX_SAFE_INTEGER;
      const whole = Number.isInteger(bound) ? bound : op === "gt" || op === "lte" ? Math.floor(bound) : Math.ceil(bound);
      if (whole > limit || whole < -limit) return past(whole > 0);
      return { op, value: whole };
    }
    case "double precision":
    case "numeric":
      return typeof bound === "number" && !Number.isNaN(bound) ? { op, value: bound } : "none";
    case "boolean":
      return typeof bound === "boolean" ? { op, value: bound } : "none";
    case "timestamptz":
      if (!(bound instanceof Date) || Number.isNaN(bound.getTime())) return "none";
      return inYears(bound) ? { op, value: bound.toISOString() } : past(bound.getUTCFullYear() > 9999);
    case "date":
      return dayBound(column, op, bound, past);
  }
}

/**
 * A bound on a date column: a `Date` (a model's date field) by its UTC day, an instant within a
 * day lying between that day and the next (`day > 2026-01-05T12:00` is `day > 2026-01-05`); a
 * text (a field typed string) compared with the days' text when it is no day.
 */
function dayBound(column: ColumnSpec, op: Range, bound: unknown, past: (above: boolean) => "none" | "any"): { readonly op: Range; readonly value: unknown } | "none" | "any" {
  if (column.asDate !== true) return typeof bound === "string" && isDay(bound) ? { op, value: bound } : "none";
  if (!(bound instanceof Date) || Number.isNaN(bound.getTime())) return "none";
  if (!inYears(bound)) return past(bound.getUTCFullYear() > 9999);
  const text = bound.toISOString();
  const day = text.slice(0, 10);
  if (text.endsWith("T00:00:00.000Z")) return { op, value: day };
  return { op: op === "gt" || op === "gte" ? "gt" : "lte", value: day };
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
    const list = table.links?.some((link) => link.field === field) === true ? `: ${field} is a list, kept in its join table` : "";
    throw new Error(`fw/db: the table ${table.name} has no column for the field ${JSON.stringify(field)} ${what} names${list} (fields: ${[table.key.field, ...table.columns.map((c) => c.field)].join(", ")}).`);
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

/**
 * The shape of a list's `where` and `search`: a key naming the SQL text `queryConditions` writes
 * for them, their values pushed onto `params` in the order it pushes them, so a statement cached
 * by the key (sql-statements.ts) is the one it would write. Undefined when the text would hang
 * on more than the fields and conditions named — a value no row holds (`FALSE`), a bound past
 * every value, `not`, `contains`, `like`, `or`, `and`, a list field, a search that matches
 * nothing — and the caller writes the statement as before. Throws what `queryConditions` throws
 * for a field the table lacks or a malformed condition. The key names columns (checked
 * identifiers), so no two shapes share one.
 */
export function queryShape(page: Pick<ListPage<unknown>, "where" | "search">, table: TableSpec, params: unknown[]): string | undefined {
  let key = "";
  const where = page.where as Record<string, unknown> | undefined;
  if (where !== undefined) {
    for (const field of Object.keys(where)) {
      const wanted = where[field];
      if (field === "or" || field === "and" || table.links?.some((one) => one.field === field) === true) {
        if (wanted === undefined) continue;
        return undefined;
      }
      const column = columnOfField(table, field, "a where");
      if (wanted === undefined) continue;
      if (column.type === "jsonb") return undefined;
      const given = conditionsOf(wanted, `${table.name}.${field}`);
      for (const name of CONDITION_NAMES) {
        const value = given[name];
        if (value === undefined) continue;
        const token = conditionShape(name, column, value, params);
        if (token === undefined) return undefined;
        key += `${column.column}.${token};`;
      }
    }
  }
  const search = page.search;
  if (search !== undefined) {
    const column = columnOfField(table, search.field, "a search");
    if (column.type !== "text" || typeof search.prefix !== "string" || search.prefix.includes("\u0000")) return undefined;
    params.push(CASE_FOLD.from, CASE_FOLD.to, fold(search.prefix));
    key += `?${column.column}`;
  }
  return key;
}

/** One condition's token in a shape, its value pushed as `conditionSql` pushes it; undefined when its text hangs on the value. */
function conditionShape(name: ConditionName, column: ColumnSpec, value: unknown, params: unknown[]): string | undefined {
  switch (name) {
    case "eq": {
      const v = sqlValue(column, value);
      if (v === undefined) return undefined;
      params.push(v);
      return name;
    }
    case "in": {
      const values = sendable(column, value as readonly unknown[]);
      if (values.length === 0) return undefined;
      params.push(arrayLiteral(values));
      return name;
    }
    case "null":
      return value === true ? "null" : "set";
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      const bounded = boundFor(column, name, value);
      if (typeof bounded === "string") return undefined;
      params.push(bounded.value);
      return bounded.op;
    }
    default:
      return undefined;
  }
}
