import type { ListPage, Order } from "./query.js";

/** A page's `order` as a list (none, one or several sorts). */
export function ordersOf(order: ListPage<unknown>["order"]): readonly Order[] {
  if (order === undefined) return [];
  return isOrderList(order) ? order : [order as Order];
}

function isOrderList(order: NonNullable<ListPage<unknown>["order"]>): order is readonly Order[] {
  return Array.isArray(order);
}

/**
 * How two rows compare under `orders`, then by `key` ascending (negative: `a` first): each
 * field ascending unless `descending`, absent values last either way. What `Store.list`
 * promises, and what keyset paging compares a row with its cursor by.
 */
export function rowComparator(orders: readonly Order[], key: string | undefined): (a: unknown, b: unknown) => number {
  return (a, b) => {
    const x = a as Record<string, unknown>;
    const y = b as Record<string, unknown>;
    for (const order of orders) {
      const c = compareField(x[order.field], y[order.field], order.descending);
      if (c !== 0) return c;
    }
    return key === undefined ? 0 : compareValues(x[key], y[key]);
  };
}

/** Two values of one field in a sort: absent last whatever the direction, the rest by `compareValues`. */
function compareField(x: unknown, y: unknown, descending: boolean): number {
  const absentX = x === undefined || x === null;
  const absentY = y === undefined || y === null;
  if (absentX || absentY) return absentX === absentY ? 0 : absentX ? 1 : -1;
  return descending ? -compareValues(x, y) : compareValues(x, y);
}

/**
 * `rows` sorted by `order` (a copy), as `Store.list` promises: by each field, ascending unless
 * `descending`, absent values last either way, ties kept in the order given (key order). Text
 * compares by code point, as a database's "C" collation does, so every store agrees.
 */
export function sortedRows<A>(rows: readonly A[], order: ListPage<unknown>["order"]): A[] {
  const orders = ordersOf(order);
  if (orders.length === 0) return [...rows];
  return [...rows].sort(rowComparator(orders, undefined));
}

/**
 * Two present values of one field: numbers, instants (by time) and yes/no (false first) as
 * numbers, texts by code point. Values of different kinds compare by kind name (a store never
 * holds two kinds in one field; a query's value of another kind matches nothing).
 */
export function compareValues(x: unknown, y: unknown): number {
  const a = x instanceof Date ? x.getTime() : typeof x === "boolean" ? Number(x) : x;
  const b = y instanceof Date ? y.getTime() : typeof y === "boolean" ? Number(y) : y;
  if (typeof a === "number" && typeof b === "number") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "string" && typeof b === "string") return compareText(a, b);
  const s = typeof a;
  const t = typeof b;
  return s < t ? -1 : s > t ? 1 : 0;
}

/**
 * Two texts by code point (what PostgreSQL's "C" collation compares: UTF-8 bytes), which is not
 * JavaScript's `<` (UTF-16 units): a character past U+FFFF (a surrogate pair, 0xD800–0xDFFF)
 * sorts after U+E000–U+FFFF, not before.
 */
export function compareText(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** A UTF-16 unit moved so that surrogates rank above U+E000–U+FFFF, as their code points do. */
function codePointRank(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800) return unit + 0x2000;
  return unit;
}
