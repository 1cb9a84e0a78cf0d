/**
 * Keyset paging (issue 43, item 4): the rows after (or before) a row in a sort, as a `where`
 * every store can answer, so a page is found by the sort key rather than counted to with OFFSET:
 * page 10,000 costs what page 1 costs (with an index in the sort's order), and a row added
 * meanwhile never shifts a page. The stores (in memory, fw/db) use it for `ListPage.after` and
 * `before`; a list's cursor is its boundary row (runtime/resource/cursor.ts writes it in a URL).
 */
import { ordersOf } from "./order.js";
import type { ListPage, Order, Where } from "./query.js";

/** A list's sort as it is applied: its orders, then the key ascending unless one of them is the key (whose rows are unique). */
export function effectiveOrders(order: ListPage<unknown>["order"], key: string): readonly Order[] {
  const orders = ordersOf(order);
  return orders.some((one) => one.field === key) ? orders : [...orders, { field: key, descending: false }];
}

/**
 * The rows strictly after (or before) `cursor` in `orders` (absent values last, as `Store.list`
 * sorts), as a where: for each order, rows equal on the ones before it and past the cursor on
 * it. When the first order's field always has a value, a bound on it comes first (`created_at <=
 * $1 AND (…)`), which a database answers from an index on the sort. `nullable` says whether a
 * field may be absent (a NULL to sort last).
 */
export function keysetWhere(orders: readonly Order[], cursor: Readonly<Record<string, unknown>>, direction: "after" | "before", nullable: (field: string) => boolean): Where<unknown> {
  const alternatives: Record<string, unknown>[] = [];
  const equal: Record<string, unknown>[] = [];
  for (const order of orders) {
    const value = cursor[order.field];
    const absent = value === undefined || value === null;
    const past = pastOn(order, absent ? undefined : value, direction, nullable(order.field));
    if (past !== undefined) alternatives.push({ and: [...equal, past] });
    equal.push({ [order.field]: absent ? { null: true } : value });
  }
  const first = orders[0];
  const lead = first === undefined ? undefined : cursor[first.field];
  const within = { or: alternatives };
  if (first === undefined || lead === undefined || lead === null || nullable(first.field)) return within as Where<unknown>;
  // Rows past the cursor are on its side of the first field's value (or at it): an index's range.
  const upward = (direction === "after") !== first.descending;
  return { and: [{ [first.field]: upward ? { gte: lead } : { lte: lead } }, within] } as Where<unknown>;
}

/** The rows past the cursor's value on one order (undefined: none, as past the absent values that sort last). */
function pastOn(order: Order, value: unknown, direction: "after" | "before", nullable: boolean): Record<string, unknown> | undefined {
  const field = order.field;
  if (value === undefined) return direction === "after" ? undefined : { [field]: { null: false } };
  const upward = (direction === "after") !== order.descending;
  const strictly = { [field]: upward ? { gt: value } : { lt: value } };
  // Absent values sort last: after every value, before none.
  return direction === "after" && nullable ? { or: [strictly, { [field]: { null: true } }] } : strictly;
}
