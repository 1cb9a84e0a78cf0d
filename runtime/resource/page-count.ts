import type { ListPage } from "./query.js";

/**
 * How many pages past the one shown a derived list counts its rows: beyond them it does not
 * count (a count reads every row it counts), and the pager says "of 11 or more". Ten, not more:
 * a filter matching one row in twenty reads twenty times the page's own rows to count each page
 * ahead, so the count, not the page, is what a filtered list costs (bench/FINDINGS.md 35);
 * "500 or more posts" tells a reader what "1,000 or more" did.
 */
export const PAGES_AHEAD = 10;

/** The `countUpTo` of a page at `offset`: the rows up to `PAGES_AHEAD` pages past it, and one more to tell whether there are others. */
export function countAhead(offset: number, pageSize: number): number {
  return offset + PAGES_AHEAD * pageSize + 1;
}

/** A total as a store answers it for `page`: capped at its `countUpTo` when it gives a whole number from 1. */
export function cappedTotal(total: number, page: Pick<ListPage<unknown>, "countUpTo">): number {
  const cap = page.countUpTo;
  return cap !== undefined && Number.isSafeInteger(cap) && cap > 0 ? Math.min(total, cap) : total;
}

/** The pages a list has as far as it was counted: the last known one, and whether more may follow it. */
export interface PagesCounted {
  readonly last: number;
  readonly more: boolean;
}

/**
 * The pages `total` rows fill, `total` having been counted up to `countUpTo`: a total that
 * reached it (a store may also answer past it) says only that at least that many rows exist.
 */
export function pagesCounted(total: number, countUpTo: number, pageSize: number): PagesCounted {
  if (total >= countUpTo) return { last: Math.ceil(countUpTo / pageSize), more: true };
  return { last: Math.max(1, Math.ceil(total / pageSize)), more: false };
}
