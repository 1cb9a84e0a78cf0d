/**
 * Which rows of a page show a control (Edit, Delete): display only, access is the write's check.
 * Asked of the model's access once for a page or a table, then of each row, so who is looking
 * is worked out once and not once a row (bench/FINDINGS.md 48). A method, not a function type,
 * so a model's pages typed for its rows are also pages of `unknown` rows, as their other methods are.
 */
export interface ShownRows<A> {
  has(row: A): boolean;
}

/** A control shown on every row. */
export const EVERY_ROW: ShownRows<unknown> = Object.freeze({ has: () => true });

/** A control shown on no row. */
export const NO_ROW: ShownRows<unknown> = Object.freeze({ has: () => false });
