import { fold } from "./case-fold.js";
import type { FieldSpec } from "./model.js";
import { compareValues, ordersOf } from "./order.js";
import type { ListPage, Search, Where } from "./query.js";
import { CONDITION_NAMES, conditionsOf, likeMatches, TEXT_CONDITIONS, type ConditionName } from "./where-conditions.js";

/** The fields a `where` or `search` may name: the model's (its key and owner too), and which hold text. */
export interface QueryFields {
  /** For messages: the model. */
  readonly model: string;
  readonly names: ReadonlySet<string>;
  /** The fields `search`, `contains` and `like` may name (text, textarea and select fields). */
  readonly text: ReadonlySet<string>;
  /** The list fields (`tags: Id<Tag>[]`): `has` is their one condition. */
  readonly lists?: ReadonlySet<string>;
}

/** What a model's spec says about the fields a query may name. */
export function queryFields(model: { readonly name: string; readonly key: string; readonly fields: readonly FieldSpec[]; readonly owner?: string | undefined }): QueryFields {
  const names = new Set([model.key, ...model.fields.map((field) => field.name)]);
  if (model.owner !== undefined) names.add(model.owner);
  const text = new Set(model.fields.filter((field) => field.input === "text" || field.input === "textarea" || field.input === "select").map((field) => field.name));
  const lists = new Set(model.fields.filter((field) => field.input === "references").map((field) => field.name));
  return { model: model.name, names, text, lists };
}

/**
 * Throws naming a field of `page.where` (its `or`s too) or `page.search` that the model lacks,
 * a condition `where` does not know, and a text condition (`search`, `contains`, `like`) on a
 * field that holds no text, as a database store does for a column the table lacks.
 */
export function checkQuery(page: Pick<ListPage<unknown>, "where" | "search">, fields: QueryFields): void {
  if (page.where !== undefined) checkWhere(page.where, fields);
  const search = page.search;
  if (search !== undefined) checkText(fields, search.field, "a search");
}

/** Throws naming a sort's field that the model lacks (as a database store does for a column the table lacks). */
export function checkOrder(order: ListPage<unknown>["order"], fields: QueryFields): void {
  for (const one of ordersOf(order)) {
    if (!fields.names.has(one.field)) throw new Error(`${fields.model}: the rows cannot be sorted by ${JSON.stringify(one.field)}, which the model does not have (fields: ${[...fields.names].join(", ")}).`);
  }
}

function checkWhere(where: Where<unknown>, fields: QueryFields): void {
  for (const [field, wanted] of Object.entries(where as Record<string, unknown>)) {
    if (field === "or" || field === "and") {
      for (const one of orList(wanted, fields.model, field)) checkWhere(one, fields);
      continue;
    }
    if (!fields.names.has(field)) {
      throw new Error(`${fields.model}: a where names the field ${JSON.stringify(field)}, which the model does not have (fields: ${[...fields.names].join(", ")}).`);
    }
    const conditions = wanted === undefined ? undefined : conditionsOf(wanted, `${fields.model}.${field}`);
    if (conditions !== undefined) checkList(fields, field, conditions);
    for (const name of TEXT_CONDITIONS) if (conditions?.[name] !== undefined) checkText(fields, field, `a where's ${name}`);
  }
}

/** A list field takes `has` alone, and only a list field takes it (as a database store's join table does). */
function checkList(fields: QueryFields, field: string, conditions: Readonly<Record<string, unknown>>): void {
  const list = fields.lists?.has(field) === true;
  const named = Object.keys(conditions).filter((name) => conditions[name] !== undefined);
  if (list && named.some((name) => name !== "has")) {
    throw new Error(`${fields.model}: a where names the list field ${JSON.stringify(field)} with ${named.filter((n) => n !== "has").join(", ")}: a list takes \`has\` (${field}: { has: 3 }).`);
  }
  if (!list && named.includes("has")) throw new Error(`${fields.model}: a where's has names the field ${JSON.stringify(field)}, which is no list: has is for a list field (tags: Id<Tag>[]).`);
}

function checkText(fields: QueryFields, field: string, what: string): void {
  if (fields.text.has(field)) return;
  throw new Error(
    fields.names.has(field)
      ? `${fields.model}: ${what} names the field ${JSON.stringify(field)}, which holds no text: name a text field (${[...fields.text].join(", ") || "the model has none"}).`
      : `${fields.model}: ${what} names the field ${JSON.stringify(field)}, which the model does not have (fields: ${[...fields.names].join(", ")}).`,
  );
}

/** A where's `or` (or `and`): a list of wheres; anything else is the caller's mistake, named. */
export function orList(value: unknown, model: string, name: "or" | "and" = "or"): readonly Where<unknown>[] {
  if (!Array.isArray(value) || value.some((one) => typeof one !== "object" || one === null || Array.isArray(one))) {
    throw new Error(`${model}: a where's \`${name}\` is a list of wheres (${name}: [{ category: "news" }, { stars: { gte: 4 } }]), not ${JSON.stringify(value)?.slice(0, 60)}.`);
  }
  return value as readonly Where<unknown>[];
}

/** Whether a page's `where` and `search` both keep `row` (no `where`, no `search`: every row). */
export function queryMatches(row: unknown, page: Pick<ListPage<unknown>, "where" | "search">): boolean {
  return (page.where === undefined || whereMatches(row, page.where)) && (page.search === undefined || searchMatches(row, page.search));
}

/**
 * Every condition of `where` holds for `row` (and one of each `or`'s): a field equals the value,
 * or one of a list's values (an empty list: none), or meets each condition of an object
 * (`FieldConditions`). A field left undefined in `where` is no condition; a row whose field is
 * absent matches no equality or comparison on it (SQL's NULL), and is `not` any value.
 */
export function whereMatches(row: unknown, where: Where<unknown>): boolean {
  const record = row as Record<string, unknown>;
  for (const [field, wanted] of Object.entries(where as Record<string, unknown>)) {
    if (wanted === undefined) continue;
    if (field === "or") {
      if (!orList(wanted, "where").some((one) => whereMatches(row, one))) return false;
      continue;
    }
    if (field === "and") {
      if (!orList(wanted, "where", "and").every((one) => whereMatches(row, one))) return false;
      continue;
    }
    const conditions = conditionsOf(wanted, field);
    const value = record[field];
    for (const name of CONDITION_NAMES) {
      const given = conditions[name];
      if (given !== undefined && !holds(name, value, given)) return false;
    }
  }
  return true;
}

/** Whether one condition holds for a row's value (undefined or null: absent). */
function holds(name: ConditionName, value: unknown, given: unknown): boolean {
  const absent = value === undefined || value === null;
  switch (name) {
    case "null":
      return given === true ? absent : !absent;
    case "not":
      return absent || !(Array.isArray(given) ? given.some((one) => same(value, one)) : same(value, given));
    case "eq":
      return !absent && same(value, given);
    case "in":
      return !absent && (given as readonly unknown[]).some((one) => same(value, one));
    case "gt":
    case "gte":
    case "lt":
    case "lte":
      return !absent && compares(name, value, given);
    case "contains":
      return typeof value === "string" && typeof given === "string" && !given.includes("\u0000") && fold(value).includes(fold(given));
    case "like":
      return typeof value === "string" && typeof given === "string" && !given.includes("\u0000") && likeMatches(fold(value), fold(given));
    case "has":
      return Array.isArray(value) && value.some((one) => same(one, given));
  }
}

/**
 * A range condition between values of one kind (numbers, texts by code point, instants by their
 * time, yes/no); a value of another kind than the field's compares with none, as a database
 * cannot compare it with the column.
 */
function compares(name: "gt" | "gte" | "lt" | "lte", value: unknown, bound: unknown): boolean {
  if (kindOf(value) !== kindOf(bound) || kindOf(value) === undefined) return false;
  if (typeof bound === "number" && Number.isNaN(bound)) return false;
  if (bound instanceof Date && Number.isNaN(bound.getTime())) return false;
  const c = compareValues(value, bound);
  return name === "gt" ? c > 0 : name === "gte" ? c >= 0 : name === "lt" ? c < 0 : c <= 0;
}

function kindOf(value: unknown): string | undefined {
  if (value instanceof Date) return "date";
  const type = typeof value;
  return type === "number" || type === "string" || type === "boolean" ? type : undefined;
}

/**
 * The row's text field starts with `search.prefix`, ignoring case (case-fold.ts); a row
 * without the field, or a prefix holding a NUL (which no database text can), matches nothing.
 */
export function searchMatches(row: unknown, search: Search): boolean {
  const value = (row as Record<string, unknown>)[search.field];
  return typeof value === "string" && !search.prefix.includes("\u0000") && fold(value).startsWith(fold(search.prefix));
}

/** Two field values equal as a database compares them: instants by their time, the rest exactly. */
function same(value: unknown, wanted: unknown): boolean {
  if (value instanceof Date && wanted instanceof Date) return value.getTime() === wanted.getTime();
  return value === wanted;
}
