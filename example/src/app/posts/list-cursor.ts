import { BadRequest } from "fw";
import type { Post } from "../../models/Post.js";

/**
 * The keyset cursor of /posts (`?after=…`, `?before=…`): the boundary row's value of the field
 * the list is sorted by and its key, as base64url JSON, the way fw's derived Index writes its own
 * (runtime/resource/cursor.ts). The store pages from it (`ListPage.after`, `before`): page 100
 * costs what page 1 costs, and a post written meanwhile never shifts a page. A cursor this list
 * did not write for its sort (forged, cut, of another sort) is a 400 naming the parameter; a
 * made-up one that reads well only says where a page starts, and the rows are still the viewer's.
 */

/** The fields /posts sorts by (each then by the key, in the same direction). */
export const SORTABLE = ["title", "category", "published", "createdAt"] as const;
export type SortField = (typeof SORTABLE)[number];

/** Where a keyset page starts: the row's sorted value and its key, as `Store.list` reads `after` and `before`. */
export type Boundary = { readonly id: number } & { readonly [F in SortField]?: Post[F] };

/** The longest cursor read: a title of 200 characters fits many times over. */
const MAX_CURSOR = 4_096;

/** The largest key a row can have (keys are whole numbers from 1 to 4294967295). */
const MAX_KEY = 4_294_967_295;

/** The cursor of `row` in the list sorted by `field`. */
export function cursorOf(row: Pick<Post, "id" | SortField>, field: SortField): string {
  const value = row[field];
  return Buffer.from(JSON.stringify([value instanceof Date ? value.toISOString() : value, row.id]), "utf8").toString("base64url");
}

/** The boundary a cursor holds, read for the list sorted by `field`; a 400 naming `?parameter=` when it is not one. */
export function readCursor(text: string, field: SortField, parameter: "after" | "before"): Boundary {
  const refuse = (): never => {
    throw new BadRequest(`The page cursor ?${parameter}= is not one the list of posts wrote for its sort: follow its own Previous and Next links.`);
  };
  if (text.length === 0 || text.length > MAX_CURSOR || !/^[A-Za-z0-9_-]+$/.test(text)) return refuse();
  let pair: unknown;
  try {
    pair = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    return refuse();
  }
  if (!Array.isArray(pair) || pair.length !== 2) return refuse();
  const [raw, id] = pair as [unknown, unknown];
  if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 1 || id > MAX_KEY) return refuse();
  const value = valueOf(raw, field);
  return value === INVALID ? refuse() : { id, [field]: value };
}

const INVALID: unique symbol = Symbol("invalid");
/** The categories a post may have, in the form's order. */
export const CATEGORIES = ["news", "howto", "misc"] as const satisfies readonly Post["category"][];

/** A cursor's value as the field holds it (every sortable field of a post is required), or INVALID. */
function valueOf(value: unknown, field: SortField): unknown {
  switch (field) {
    case "title":
      return typeof value === "string" && !value.includes("\u0000") ? value : INVALID;
    case "category":
      return typeof value === "string" && (CATEGORIES as readonly string[]).includes(value) ? value : INVALID;
    case "published":
      return typeof value === "boolean" ? value : INVALID;
    case "createdAt": {
      if (typeof value !== "string" || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(value)) return INVALID;
      const date = new Date(value);
      return Number.isNaN(date.getTime()) ? INVALID : date;
    }
  }
}
