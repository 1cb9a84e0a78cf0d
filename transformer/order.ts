/**
 * Spec 4.2, handwritten rows: most static first. Segment by segment a literal before `:name`
 * before `*rest`; on ties in rank a longer path before a shorter one; then the path text; then
 * the method. The sort is total, so the table is the same whatever order files were found in.
 */

const METHOD_ORDER = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "WS"];

export interface Sortable {
  readonly pattern: string;
  readonly method: string;
}

function ranks(pattern: string): number[] {
  if (pattern === "/") return [];
  return pattern
    .slice(1)
    .split("/")
    .map((segment) => (segment.startsWith(":") ? 1 : segment.startsWith("*") ? 2 : 0));
}

export function compareRows(a: Sortable, b: Sortable): number {
  const ra = ranks(a.pattern);
  const rb = ranks(b.pattern);
  const common = Math.min(ra.length, rb.length);
  for (let i = 0; i < common; i++) {
    const diff = (ra[i] as number) - (rb[i] as number);
    if (diff !== 0) return diff;
  }
  if (ra.length !== rb.length) return rb.length - ra.length;
  if (a.pattern !== b.pattern) return a.pattern < b.pattern ? -1 : 1;
  return METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method);
}

export function sortRows<T extends Sortable>(rows: readonly T[]): T[] {
  return [...rows].sort(compareRows);
}
