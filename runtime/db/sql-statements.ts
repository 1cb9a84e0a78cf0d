import type { TableSpec } from "./table.js";

/**
 * Statement texts by the shape of their query (bench/FINDINGS.md 39): a list page's statement
 * depends on its table, the scope's columns, the where's fields and conditions, the count's cap
 * and the order, never on the values, which stay `$n` parameters; a page in steady state sends
 * the text written the first time and writes none. Bounded: past `MAX_SHAPES` shapes of one
 * table, a new shape's statement is written each time, as before, rather than kept.
 */
export const MAX_SHAPES = 256;

const byTable = new WeakMap<TableSpec, Map<string, string>>();

/**
 * The statement of `shape` for `table`, its values already in `params` (the shape's walk pushed
 * them after the first `fixed`); written by `write` into fresh parameters when the shape is new.
 * A text is kept only when `write` pushed the very values the walk did; otherwise (a walk that
 * disagrees with the writer, a defect) `params` takes the writer's values and nothing is kept.
 */
export function statementOf(table: TableSpec, shape: string, params: unknown[], fixed: number, write: (params: unknown[]) => string): string {
  let texts = byTable.get(table);
  const kept = texts?.get(shape);
  if (kept !== undefined) return kept;
  const written = params.slice(0, fixed);
  const sql = write(written);
  if (sameValues(written, params)) {
    if (texts === undefined) byTable.set(table, (texts = new Map()));
    if (texts.size < MAX_SHAPES) texts.set(shape, sql);
  } else {
    params.length = 0;
    params.push(...written);
  }
  return sql;
}

/** How many shapes of `table` have a kept statement (tests). @internal */
export function keptShapes(table: TableSpec): number {
  return byTable.get(table)?.size ?? 0;
}

function sameValues(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}
