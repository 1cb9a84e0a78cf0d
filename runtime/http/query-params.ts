/**
 * A handler's declared query parameters (issue 43, item 3: `Request<Params, { page?: number; q?:
 * string }>`), read from the query's text and checked by typia before the handler runs. The build
 * writes each parameter's kind (read from the declared type) and typia's validator of the type;
 * this module reads the text by kind (numbers in their one spelling, as a path does:
 * number-text.ts) and answers a 400 naming each parameter that does not hold.
 */
import { BadRequest } from "./failure.js";
import type { Fields } from "./fields.js";
import { isNumberText } from "./number-text.js";

/** How one declared parameter's text is read: its kind, and whether it is a list (`?tag=1&tag=2`). */
export interface QueryParamShape {
  readonly kind: "string" | "number" | "boolean" | "date";
  readonly list: boolean;
}

/** What typia's `createValidate<Q>()` answers (its errors' paths are `$input.page`). */
export type QueryValidation = { readonly success: true; readonly data: unknown } | { readonly success: false; readonly errors: readonly { readonly path: string; readonly expected: string; readonly value: unknown }[] };

/** What a route decodes its query with: each declared parameter's shape, and typia's check of the whole. */
export interface QueryDecoder {
  readonly shape: Readonly<Record<string, QueryParamShape>>;
  readonly validate: (input: unknown) => QueryValidation;
}

/** The build's query decoder for a route (the generated table writes `queryDecoder({ … }, typia.createValidate<…>())`). */
export function queryDecoder(shape: Readonly<Record<string, QueryParamShape>>, validate: (input: unknown) => QueryValidation): QueryDecoder {
  return { shape, validate };
}

/**
 * The declared parameters of `fields`, decoded and checked: a parameter left out is absent (a
 * list is empty), as is a number, yes/no or date given as empty text (what an empty form field
 * sends). Fields the declaration does not name are left for `request.query` (a tracking
 * parameter never refuses a page). Anything else is a 400 naming each parameter and what it takes.
 */
export function decodeQuery(fields: Fields, decoder: QueryDecoder): unknown {
  const read: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, shape] of Object.entries(decoder.shape)) {
    const texts = fields.getAll(name);
    if (!shape.list && texts.length > 1) {
      problems.push(`"${name}" is given ${texts.length} times; it takes one value`);
      continue;
    }
    const values: unknown[] = [];
    for (const text of texts) {
      const value = readText(text, shape.kind);
      if (value === INVALID) problems.push(`"${name}" is not ${KIND_WORDS[shape.kind]}: ${JSON.stringify(text.slice(0, 40))}`);
      else if (value !== undefined) values.push(value);
    }
    if (shape.list) read[name] = values;
    else if (values.length > 0) read[name] = values[0];
  }
  if (problems.length === 0) {
    const checked = decoder.validate(read);
    if (checked.success) return Object.freeze(checked.data);
    for (const error of checked.errors.slice(0, 10)) {
      const name = error.path.replace(/^\$input\.?/, "").replace(/\[\d+\]$/, "");
      problems.push(`"${name}" must be ${error.expected.replace(" | undefined)", ")")}${error.value === undefined ? " (it is missing)" : `, not ${JSON.stringify(textOf(error.value)).slice(0, 60)}`}`);
    }
  }
  throw new BadRequest(`${problems.length === 1 ? "The query parameter" : "The query parameters:"} ${problems.join("; ")}.`);
}

const INVALID: unique symbol = Symbol("invalid");

const KIND_WORDS: Readonly<Record<QueryParamShape["kind"], string>> = {
  string: "text",
  number: "a number (written as 7, -2 or 1.5)",
  boolean: "true or false",
  date: "a date (YYYY-MM-DD)",
};

/** One value's text as its kind reads it: undefined for empty text (absent), `INVALID` for text it cannot read. */
function readText(text: string, kind: QueryParamShape["kind"]): unknown {
  if (kind === "string") return text;
  if (text === "") return undefined;
  switch (kind) {
    case "number": {
      const value = Number(text);
      return Number.isFinite(value) && isNumberText(text, value) ? value : INVALID;
    }
    case "boolean":
      return text === "true" || text === "on" || text === "1" ? true : text === "false" || text === "0" ? false : INVALID;
    case "date":
      return dayOf(text) ?? INVALID;
  }
}

/** `YYYY-MM-DD`, a real day from year 1 to 9999, as a Date at UTC midnight (what a form's date field reads as). */
function dayOf(text: string): Date | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || text.startsWith("0000")) return undefined;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text ? date : undefined;
}

function textOf(value: unknown): unknown {
  return value instanceof Date ? value.toISOString().slice(0, 10) : value;
}
