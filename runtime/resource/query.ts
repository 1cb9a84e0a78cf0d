/** A sort: by one field, ascending unless `descending`; rows that tie keep key order, absent values last. */
export interface Order {
  readonly field: string;
  readonly descending: boolean;
}

/** Which rows `list` answers: `offset` and `limit` as in SQL, sorted by `order` (key order without it). */
export interface ListPage {
  readonly offset: number;
  readonly limit: number;
  readonly order?: Order;
}

/** One page of rows, and how many there are in all. */
export interface Page<A> {
  readonly rows: readonly A[];
  readonly total: number;
}

/** A value a row's field is compared with: what a column holds (a key, a flag, a text). */
export type FieldValue = string | number | boolean;

/**
 * Which rows a reader may see, written as data rather than as a function so a database store
 * can turn it into a WHERE clause: a row matches when ANY condition holds, each condition
 * being `field = equals` (`published = true OR author = 7`). An empty `anyOf` matches no row.
 * A row whose field is absent (undefined, or SQL's NULL) matches no condition on that field.
 */
export interface RowFilter {
  readonly anyOf: readonly { readonly field: string; readonly equals: FieldValue }[];
}
