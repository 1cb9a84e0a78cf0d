/**
 * A keyset page's cursor in a URL (`/posts?after=…`): the boundary row's values of the sort's
 * fields and its key, as base64url JSON. Read back against the model's fields: a cursor that is
 * not one a list of this sort wrote (forged, cut, of another sort, a value of the wrong type) is
 * a 400 saying to follow the list's own links. It only says where a page starts: the rows are
 * read through the viewer's read rules as always, so a made-up cursor shows nothing it should not.
 */
import { BadRequest } from "../http/failure.js";
import { UINT32_MAX } from "../http/number-text.js";
import type { FieldSpec } from "./model.js";
import type { Order } from "./query.js";

/** The longest cursor read: a sort by a long text could make one long, but not longer. */
const MAX_CURSOR = 16_384;

/** The cursor of `row` in a list sorted by `orders` (the key among them, last). */
export function cursorOf(row: unknown, orders: readonly Order[]): string {
  const record = row as Record<string, unknown>;
  const values = orders.map((order) => {
    const value = record[order.field];
    return value === undefined || value === null ? null : value instanceof Date ? value.toISOString() : value;
  });
  return Buffer.from(JSON.stringify(values), "utf8").toString("base64url");
}

/**
 * The values a cursor holds, by field, read as `fields` type them (`key` a whole number from 1);
 * a 400 naming `parameter` for anything that is not a cursor of this sort.
 */
export function readCursor(text: string, orders: readonly Order[], fields: readonly FieldSpec[], key: string, parameter: string): Record<string, unknown> {
  const refuse = (): never => {
    throw new BadRequest(`The page cursor ?${parameter}= is not one this list wrote for its sort: follow the list's own Previous and Next links.`);
  };
  if (text.length === 0 || text.length > MAX_CURSOR || !/^[A-Za-z0-9_-]+$/.test(text)) return refuse();
  let values: unknown;
  try {
    values = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    return refuse();
  }
  if (!Array.isArray(values) || values.length !== orders.length) return refuse();
  const cursor: Record<string, unknown> = {};
  orders.forEach((order, i) => {
    const field = fields.find((f) => f.name === order.field);
    const value = readValue(values[i], order.field === key ? "key" : field);
    if (value === INVALID) refuse();
    if (value !== null) cursor[order.field] = value;
  });
  return cursor;
}

const INVALID: unique symbol = Symbol("invalid");

/** One value of a cursor as the field holds it: null where the field may be absent, else of its type. */
function readValue(value: unknown, field: FieldSpec | "key" | undefined): unknown {
  if (field === undefined) return INVALID;
  if (field === "key") return Number.isSafeInteger(value) && (value as number) >= 1 && (value as number) <= UINT32_MAX ? value : INVALID;
  if (value === null) return field.optional ? null : INVALID;
  switch (field.input) {
    case "checkbox":
      return typeof value === "boolean" ? value : INVALID;
    case "number":
    case "reference":
      return typeof value === "number" && Number.isFinite(value) ? value : INVALID;
    case "date": {
      if (typeof value !== "string" || !/^[+-]?\d{4,6}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(value)) return INVALID;
      const date = new Date(value);
      return Number.isNaN(date.getTime()) ? INVALID : date;
    }
    case "text":
    case "textarea":
    case "select":
      return typeof value === "string" && !value.includes("\u0000") ? value : INVALID;
    case "file":
      return INVALID;
  }
}
