import { fold } from "./case-fold.js";
import type { FieldSpec } from "./model.js";
import type { ListPage, Search, Where } from "./query.js";

/** The fields a `where` or `search` may name: the model's (its key and owner too), and which hold text. */
export interface QueryFields {
  /** For messages: the model. */
  readonly model: string;
  readonly names: ReadonlySet<string>;
  /** The fields `search` may name (text, textarea and select fields). */
  readonly text: ReadonlySet<string>;
}

/** What a model's spec says about the fields a query may name. */
export function queryFields(model: { readonly name: string; readonly key: string; readonly fields: readonly FieldSpec[]; readonly owner?: string | undefined }): QueryFields {
  const names = new Set([model.key, ...model.fields.map((field) => field.name)]);
  if (model.owner !== undefined) names.add(model.owner);
  const text = new Set(model.fields.filter((field) => field.input === "text" || field.input === "textarea" || field.input === "select").map((field) => field.name));
  return { model: model.name, names, text };
}

/**
 * Throws naming a field of `page.where` or `page.search` that the model lacks (and a search of
 * a field that holds no text), as a database store does for a column the table lacks.
 */
export function checkQuery(page: Pick<ListPage<unknown>, "where" | "search">, fields: QueryFields): void {
  for (const field of Object.keys(page.where ?? {})) {
    if (!fields.names.has(field)) {
      throw new Error(`${fields.model}: a where names the field ${JSON.stringify(field)}, which the model does not have (fields: ${[...fields.names].join(", ")}).`);
    }
  }
  const search = page.search;
  if (search !== undefined && !fields.text.has(search.field)) {
    throw new Error(
      fields.names.has(search.field)
        ? `${fields.model}: a search names the field ${JSON.stringify(search.field)}, which holds no text: search a text field (${[...fields.text].join(", ") || "the model has none"}).`
        : `${fields.model}: a search names the field ${JSON.stringify(search.field)}, which the model does not have (fields: ${[...fields.names].join(", ")}).`,
    );
  }
}

/** Whether a page's `where` and `search` both keep `row` (no `where`, no `search`: every row). */
export function queryMatches(row: unknown, page: Pick<ListPage<unknown>, "where" | "search">): boolean {
  return (page.where === undefined || whereMatches(row, page.where)) && (page.search === undefined || searchMatches(row, page.search));
}

/**
 * Every equality of `where` holds for `row`: its field equals the value, or one of a list's
 * values (an empty list: none). A field left undefined in `where` is no condition; a row whose
 * field is absent matches no equality on it (SQL's NULL).
 */
export function whereMatches(row: unknown, where: Where<unknown>): boolean {
  const record = row as Record<string, unknown>;
  for (const [field, wanted] of Object.entries(where as Record<string, unknown>)) {
    if (wanted === undefined) continue;
    const value = record[field];
    if (value === undefined || value === null) return false;
    if (Array.isArray(wanted) ? !wanted.some((one) => same(value, one)) : !same(value, wanted)) return false;
  }
  return true;
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
