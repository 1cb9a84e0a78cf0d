/**
 * A sort: by one field, ascending unless `descending`; rows that tie keep key order, absent
 * values last. The field is a name at run time (a sort link's `?sort=`): a field the model lacks
 * throws, naming it, on every store.
 */
export interface Order {
  readonly field: string;
  readonly descending: boolean;
}

/** One field's value in a query: the field's type without `undefined` (an absent value is `null: true`). */
type ValueOf<T> = NonNullable<T>;

/**
 * The conditions on one field a `where` may give in an object, all of which must hold
 * (`{ stars: { gte: 2, lt: 5 } }`). Each is typed from the field: ranges on numbers, texts and
 * dates (not on yes/no fields), `contains` and `like` on text alone, `null` on an optional
 * field alone. A row whose field is absent (SQL's NULL) meets no comparison, and is `not` any value.
 */
export interface FieldConditions<T> {
  /** Equals the value (as `{ field: value }` does). */
  readonly eq?: ValueOf<T>;
  /** Is one of the values (SQL's `= ANY`; as `{ field: [a, b] }` does): an empty list matches nothing. */
  readonly in?: readonly ValueOf<T>[];
  /** Is not the value (or none of the values of a list): a row without a value is not it, so it matches (SQL's `IS DISTINCT FROM`). */
  readonly not?: ValueOf<T> | readonly ValueOf<T>[];
  /** Greater than (texts by code point, as the "C" collation compares; instants and days by their time). */
  readonly gt?: [ValueOf<T>] extends [boolean] ? never : ValueOf<T>;
  /** Greater than or equal to. */
  readonly gte?: [ValueOf<T>] extends [boolean] ? never : ValueOf<T>;
  /** Less than. */
  readonly lt?: [ValueOf<T>] extends [boolean] ? never : ValueOf<T>;
  /** Less than or equal to. */
  readonly lte?: [ValueOf<T>] extends [boolean] ? never : ValueOf<T>;
  /** `true`: the field has no value (SQL's `IS NULL`); `false`: it has one. Optional fields only. */
  readonly null?: undefined extends T ? boolean : never;
  /** The text holds this text, ignoring case (the folding `search` uses); `%` and `_` are plain characters. Text fields only. */
  readonly contains?: [ValueOf<T>] extends [string] ? string : never;
  /**
   * The text matches an SQL `LIKE` pattern, ignoring case: `%` any run of characters, `_` one
   * character, `\` before either (or itself) takes it literally. Text fields only.
   */
  readonly like?: [ValueOf<T>] extends [string] ? string : never;
}

/**
 * One field's condition in a `where`: a value the field must equal, a list of values it must be
 * one of (`{ post: [1, 2, 3] }`, SQL's `= ANY`: the keys of a page's rows; an empty list matches
 * nothing), or an object of conditions (`{ stars: { gte: 3 } }`, `FieldConditions`).
 */
export type WhereValue<V> = V | readonly V[];

/**
 * The condition on a list field (`tags: Id<Tag>[]`, many-to-many): `has`, the list holds this
 * key (`{ tags: { has: 3 } }`: the posts tagged 3).
 */
export interface ListConditions<E> {
  readonly has?: E;
}

/** What `where` takes for a field of type `T`: a list field's `ListConditions`, else a value, a list of values or `FieldConditions`. */
export type FieldCondition<T> = [ValueOf<T>] extends [readonly (infer E)[]] ? ListConditions<E> : WhereValue<ValueOf<T>> | FieldConditions<T>;

/**
 * Conditions on a model's fields, all of which must hold (`{ post: 7, published: true, stars: {
 * gte: 3 } }`), typed from the model so an unknown field, a value of the wrong type or a
 * condition the field's type does not take (`contains` on a number) is a compile error. `or`
 * holds when any of its `where`s does (`or: [{ category: "news" }, { stars: { gte: 4 } }]`; an
 * empty list matches nothing), beside the other fields, which must hold too; `and` when all of
 * its `where`s do. A row whose field
 * is absent matches no equality or comparison on it; a field given as `undefined` is no
 * condition. At run time every store refuses a field the model lacks, or a condition it does not
 * know, by throwing, naming it; a value outside what the column holds (a key of 1.5, "7", past the
 * column's range) equals no row, and compares as its place among the values the column holds.
 */
export type Where<A> = { readonly [K in keyof A]?: FieldCondition<A[K]> } & {
  readonly or?: readonly Where<A>[];
  /** Every one of these wheres holds too (`and: [pageFilters, myFilter]`: two wheres combined whatever fields they name). */
  readonly and?: readonly Where<A>[];
};

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
  /** Rows skipped before the page (0 when absent). */
  readonly offset?: number;
  readonly limit: number;
  /**
   * The sort: one field, or several (`[{ field: "category", descending: false }, { field:
   * "createdAt", descending: true }]`: by category, then newest first), each ascending unless
   * `descending`, absent values last either way; rows that tie on all of them keep key order.
   */
  readonly order?: Order | readonly Order[];
  readonly where?: Where<A>;
  /** Only rows whose `field` starts with `prefix`, ignoring case (the picker of a reference). */
  readonly search?: Search;
  /**
   * Keyset paging: only the rows after this one in the sort (`order`, then the key), as the next
   * page of a list whose last row it was. Its sorted fields and its key are read (a whole row, or
   * just those). `offset` and `limit` then count from it; `total` counts the rows of the whole
   * list, and `more` says whether rows follow the page. Stable when rows are added meanwhile, and
   * page 10,000 costs what page 1 costs (with an index in the sort's order).
   */
  readonly after?: object;
  /**
   * Keyset paging backwards: the `limit` rows nearest before this one (`offset` skipping the
   * nearest), in the sort's order, as the previous page of a list whose first row it was; `more`
   * says whether rows lie before them.
   */
  readonly before?: object;
  /**
   * How far the caller needs `total` counted (a whole number from 1): a store may stop counting
   * there and answer `total: countUpTo` when at least that many rows match, so a page of a big
   * table does not read every matching row to count them (the derived Index counts 20 pages
   * ahead of the one it shows). Absent, `total` is exact; a store may always answer exactly.
   */
  readonly countUpTo?: number;
}

/**
 * Which of the rows a full-text search finds a page holds (`Store.search`): those `where` keeps
 * too, best first, `offset` and `limit` as in SQL (20 when absent), `total` counted up to
 * `countUpTo` when given.
 */
export interface SearchPage<A = unknown> {
  readonly limit?: number;
  readonly offset?: number;
  readonly where?: Where<A>;
  readonly countUpTo?: number;
  /**
   * How many matching rows are ranked, the newest (highest keys) first: 2,000 when absent
   * (`MAX_RANKED`). A word in more rows than this finds the best of the newest 2,000, at the
   * cost of those alone; `total` still counts every match (up to `countUpTo`).
   */
  readonly rankUpTo?: number;
}

/** One row a search found: the row, how well it matched (higher is better), and its searched fields' snippets. */
export interface Hit<A> {
  readonly row: A;
  readonly rank: number;
  /**
   * Per searched field holding a match: a short passage around the matches, as HTML (the text
   * escaped, each match in `<mark>`), ready for a page.
   */
  readonly snippets: { readonly [K in keyof A]?: string };
}

/** A page of a search's hits, best first, and how many rows it found in all (up to `countUpTo`). */
export interface SearchResults<A> {
  readonly hits: readonly Hit<A>[];
  readonly total: number;
}

/** What `count` takes: the `where` and `search` of a list. */
export type Query<A = unknown> = Pick<ListPage<A>, "where" | "search">;

/** One page of rows, and how many there are in all (with `countUpTo`, at most that many: see `ListPage`). */
export interface Page<A> {
  readonly rows: readonly A[];
  readonly total: number;
  /** With `after` or `before`: whether rows lie past this page in that direction (a next, or a previous, page). */
  readonly more?: boolean;
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
