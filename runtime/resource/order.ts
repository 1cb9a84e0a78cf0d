import type { Order } from "./query.js";

/**
 * `rows` sorted by `order` (a copy), as `Store.list` promises: by the field, ascending unless
 * `descending`, absent values last either way, ties kept in the order given (key order). Text
 * compares by code point, as a database's "C" collation does, so every store agrees.
 */
export function sortedRows<A>(rows: readonly A[], order: Order | undefined): A[] {
  if (order === undefined) return [...rows];
  const value = (row: A): unknown => (row as Record<string, unknown>)[order.field];
  const sign = order.descending ? -1 : 1;
  return [...rows].sort((a, b) => {
    const x = value(a);
    const y = value(b);
    const absentX = x === undefined || x === null;
    const absentY = y === undefined || y === null;
    if (absentX || absentY) return absentX === absentY ? 0 : absentX ? 1 : -1;
    return sign * compare(x, y);
  });
}

function compare(x: unknown, y: unknown): number {
  const a = x instanceof Date ? x.getTime() : typeof x === "boolean" ? Number(x) : x;
  const b = y instanceof Date ? y.getTime() : typeof y === "boolean" ? Number(y) : y;
  if (typeof a === "number" && typeof b === "number") return a - b;
  const s = String(a);
  const t = String(b);
  return s < t ? -1 : s > t ? 1 : 0;
}
