/** A sort: by one field, ascending unless `descending`; rows that tie keep key order, absent values last. */
export interface Order {
  readonly field: string;
  readonly descending: boolean;
}

/**
 * One field's condition in a `where`: a value the field must equal, or a list of values it must
 * be one of (`{ post: [1, 2, 3] }`, SQL's `= ANY`: the keys of a page's rows), an empty list
 * matching nothing.
 */
export type WhereValue<V> = V | readonly V[];

/**
 * Equalities on a model's fields, all of which must hold (`{ post: 7, published: true }`), typed
 * from the model so an unknown field or a value of the wrong type is a compile error. A row
 * whose field is absent matches no equality on it; a field given as `undefined` is no condition. At run time every store refuses a field
 * the model lacks by throwing, naming it; a key value outside what the column holds (not a
 * whole number from 1, or past the column's range) matches no row.
 */
export type Where<A> = { readonly [K in keyof A]?: WhereValue<NonNullable<A[K]>> };

/** A case-insensitive match of the start of one text field (a reference picker's search). */
export interface Search {
  readonly field: string;
  readonly prefix: string;
}

/**
 * Which rows `list` answers: those `where` matches (all rows without it), sorted by `order`
 * (key order without it), then `offset` and `limit` as in SQL.
 */
export interface ListPage<A = unknown> {
  readonly offset: number;
  readonly limit: number;
  readonly order?: Order;
  readonly where?: Where<A>;
  /** Only rows whose `field` starts with `prefix`, ignoring case (the picker of a reference). */
  readonly search?: Search;
  /**
   * How far the caller needs `total` counted (a whole number from 1): a store may stop counting
   * there and answer `total: countUpTo` when at least that many rows match, so a page of a big
   * table does not read every matching row to count them (the derived Index counts 20 pages
   * ahead of the one it shows). Absent, `total` is exact; a store may always answer exactly.
   */
  readonly countUpTo?: number;
}

/** One page of rows, and how many there are in all (with `countUpTo`, at most that many: see `ListPage`). */
export interface Page<A> {
  readonly rows: readonly A[];
  readonly total: number;
}

/** A value a row's field is compared with: what a column holds (a key, a flag, a text). */
export type FieldValue = string | number | boolean;

/** The keys of another model's rows, as a row filter's `in` reads them: a store (some rows of a table) and its key field. */
export interface KeysOf {
  /** The rows (a `Store`, seen structurally so this module imports nothing above it). */
  readonly rows: { list(page: ListPage<unknown>): Promise<Page<unknown>> };
  /** The key field of those rows (`id`). */
  readonly key: string;
}

/**
 * One condition of a row filter: the field equals a value (`published = true`), or holds a key
 * of one of another store's rows (`post IN (SELECT id FROM posts WHERE …)`: the rows of a model
 * declaring `readableWith`, readable only when the row they point at is).
 */
export type RowCondition = { readonly field: string; readonly equals: FieldValue } | { readonly field: string; readonly in: KeysOf };

/**
 * Which rows a reader may see, written as data rather than as a function so a database store
 * can turn it into a WHERE clause: a row matches when ANY condition holds, each condition
 * being `field = equals` (`published = true OR author = 7`) or `field IN (keys of rows)`. An
 * empty `anyOf` matches no row. A row whose field is absent (undefined, or SQL's NULL) matches
 * no condition on that field.
 */
export interface RowFilter {
  readonly anyOf: readonly RowCondition[];
}
