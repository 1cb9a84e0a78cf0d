import { Conflict } from "../resource/store-errors.js";
import { effectiveOrders, keysetWhere } from "../resource/keyset.js";
import type { Hit, ListPage, Page, SearchPage, SearchResults, Where } from "../resource/query.js";
import { MARK_START, MARK_STOP, markedHtml, MAX_RANKED, searchFieldsOf, searchText } from "../resource/text-search.js";
import type { Draft, Versioned } from "../resource/store.js";
import type { Connection, Database, Queryable, Row } from "./database.js";
import { joinedConnection, type Joined } from "./joined.js";
import { loadLinks, writeLinks } from "./sql-links.js";
import { quoteIdentifier as q } from "./identifier.js";
import { rememberTable, storeError } from "./sql-errors.js";
import { columnOfField, queryConditions, queryShape } from "./sql-query.js";
import { statementOf } from "./sql-statements.js";
import { checkTable, SEARCH_COLUMN, VERSION_COLUMN, type ColumnSpec, type TableSpec } from "./table.js";

export type { Versioned } from "../resource/store.js";

/** `column = value`, its value sent as a parameter. */
export interface ColumnEquals {
  readonly column: string;
  readonly value: unknown;
}

/**
 * `column IN (SELECT key FROM … WHERE …)`: the column holds a key of some rows of a table of
 * the same database (a `readableWith` model's rows, readable when the row they point at is).
 */
export interface ColumnIn {
  readonly column: string;
  readonly in: { readonly table: SqlTable<unknown>; readonly scope: Scope };
}

/** One alternative of a scope's group. */
export type ColumnCondition = ColumnEquals | ColumnIn;

/**
 * Rows narrowed by conditions added to every statement: a row is in when it matches every
 * group of `where`, a group matching when any of its conditions holds (`column = value`, or
 * `column IN (subquery)`; an empty group matches nothing). `stamp` (an owner) is written into
 * every inserted row.
 */
export interface Scope {
  readonly where: readonly (readonly ColumnCondition[])[];
  readonly stamp?: ColumnEquals;
}

/**
 * The SQL behind `SqlStore` and its owner narrowing, for one table. Every statement is built
 * from the table spec's checked identifiers and `$n` parameters; values never enter the text.
 */
export class SqlTable<A> {
  private readonly table: string;
  private readonly key: string;
  private readonly selected: string;
  /** How each column is read into the model, decided once (every listed row is read with it). */
  private readonly readers: readonly ColumnReader[];
  /** The statement reading one row by its key, outside any scope: written once. */
  private readonly byKey: string;
  /** The table's column names, the key's too: a scope's columns are among them for its statement to be kept by shape. */
  private readonly columnNames: ReadonlySet<string>;
  /** The column of each field a list sorts by (the key's too; not jsonb): an order's shape names columns. */
  private readonly sortColumns: ReadonlyMap<string, string>;

  /** Where statements go: the database, or the transaction a write joined (`on`). */
  private readonly via: Connection;

  constructor(
    /** @internal the database, so a subquery is only made of a table of the same one. */
    readonly db: Database,
    readonly spec: TableSpec,
    joined?: Joined,
  ) {
    this.via = joined === undefined ? db : joinedConnection(joined.tx);
    // A joined copy's table was checked and remembered when the table's store was made.
    if (joined === undefined) {
      checkTable(spec);
      rememberTable(db, spec);
    }
    this.table = q(spec.name);
    this.key = q(spec.key.column);
    this.selected = [this.key, ...spec.columns.map((column) => q(column.column)), q(VERSION_COLUMN)].join(", ");
    this.readers = spec.columns.map(readerOf);
    this.byKey = `SELECT ${this.selected} FROM ${this.table} WHERE ${this.key} = $1`;
    this.columnNames = new Set([spec.key.column, ...spec.columns.map((column) => column.column)]);
    this.sortColumns = new Map([[spec.key.field, spec.key.column], ...spec.columns.filter((column) => column.type !== "jsonb").map((column): [string, string] => [column.field, column.column])]);
  }

  /** The same table, its statements sent through a transaction of its database that a write joined (fw/admin's audited writes). */
  on(joined: Joined): SqlTable<A> {
    return new SqlTable<A>(this.db, this.spec, joined);
  }

  /**
   * One statement: the page's rows and, beside each, the total. Exact (`count(*) OVER ()`, which
   * reads every matching row) unless the page gives `countUpTo`: then a subquery counts at most
   * that many (`LIMIT`), run once for the statement, so a page's cost does not grow with its table.
   */
  list(page: ListPage<A>, scope?: Scope): Promise<Page<A>> {
    if (page.after !== undefined || page.before !== undefined) return this.keysetList(page, scope);
    const params: unknown[] = [page.limit, page.offset ?? 0];
    let listed: Promise<{ readonly rows: readonly Row[] }>;
    try {
      listed = this.via.query(this.listStatement(page, scope, params), params);
    } catch (error) {
      // A field the table lacks, a malformed condition: a rejection, as from an async function.
      return Promise.reject(error);
    }
    // One `then` on the statement (an async function would add its own promise, generator and
    // awaits, held while the statement waits for the pool: bench/FINDINGS.md 37); a page with
    // rows and no lists to load is answered inside it.
    return listed.then(({ rows }) => {
      const first = rows[0];
      if (first === undefined) return this.count(page, scope).then((counted) => ({ rows: [], total: counted }));
      const models = rows.map((row) => this.toModel(row));
      const counted = Number(first["fw_total"]);
      if (!this.hasLinks) return { rows: models, total: counted };
      return loadLinks(this.via, this.spec, models as Record<string, unknown>[], { rows: models, total: counted });
    });
  }

  /**
   * A first page's statement, its values pushed onto `params` (`$1` the limit, `$2` the offset
   * already there): the text kept for the page's shape (sql-statements.ts) when it has one,
   * else written as `listSql` writes it.
   */
  private listStatement(page: ListPage<A>, scope: Scope | undefined, params: unknown[]): string {
    const shape = this.listShape(page, scope, params);
    if (shape !== undefined) return statementOf(this.spec, shape, params, 2, (fresh) => this.listSql(page, scope, fresh));
    params.length = 2;
    return this.listSql(page, scope, params);
  }

  /**
   * The shape of a first page's statement, pushing its values as `listSql` does: the scope's
   * columns, the where's and search's (queryShape), whether the count is capped, the order.
   * Undefined when the text hangs on more (a scope with a subquery, a column outside the table,
   * a sort by a field with no column, queryShape's cases): the statement is written, not kept.
   * The key names columns, checked identifiers, between its marks.
   */
  private listShape(page: ListPage<A>, scope: Scope | undefined, params: unknown[]): string | undefined {
    let key = "";
    if (scope !== undefined) {
      for (const group of scope.where) {
        key += "(";
        for (const condition of group) {
          if ("in" in condition || !this.columnNames.has(condition.column)) return undefined;
          params.push(condition.value);
          key += `${condition.column},`;
        }
        key += ")";
      }
    }
    const conditions = queryShape(page, this.spec, params);
    if (conditions === undefined) return undefined;
    key += `|${conditions}|`;
    const cap = countCap(page);
    if (cap !== undefined) {
      params.push(cap);
      key += "#";
    }
    for (const one of effectiveOrders(page.order, this.spec.key.field)) {
      const column = this.sortColumns.get(one.field);
      if (column === undefined) return undefined;
      key += `${column}${one.descending !== false ? "-" : "+"}`;
    }
    return key;
  }

  /** A first page's statement (`$1` the limit, `$2` the offset, already in `params`): the rows and the total beside each; its values pushed onto `params`. */
  private listSql(page: ListPage<A>, scope: Scope | undefined, params: unknown[]): string {
    const where = this.listWhere(page, scope, params);
    const cap = countCap(page);
    let total = "count(*) OVER ()";
    if (cap !== undefined) {
      params.push(cap);
      total = `(SELECT count(*) FROM (SELECT 1 FROM ${this.table}${where} LIMIT $${params.length}) AS fw_counted)`;
    }
    return `SELECT ${this.selected}, ${total} AS fw_total FROM ${this.table}${where} ORDER BY ${this.orderBy(page.order)}LIMIT $1 OFFSET $2`;
  }

  /** Whether the table has list fields (many-to-many) whose join tables a read loads. */
  private get hasLinks(): boolean {
    return this.spec.links !== undefined && this.spec.links.length > 0;
  }

  /**
   * A keyset page (`after` or `before`): the rows past the cursor in the sort (a where on the sort's
   * columns, its first bounded so an index on the sort finds them), one more than the page to
   * know whether more follow, read backwards for `before` and put back in order; the whole list
   * counted by a subquery beside them (up to `countUpTo`).
   */
  private async keysetList(page: ListPage<A>, scope: Scope | undefined): Promise<Page<A>> {
    const backwards = page.after === undefined;
    const orders = effectiveOrders(page.order, this.spec.key.field);
    const cursor = (page.after ?? page.before) as Readonly<Record<string, unknown>>;
    const nullable = (field: string): boolean => this.sortColumn(field).nullable;
    const past = keysetWhere(orders, cursor, backwards ? "before" : "after", nullable);
    const params: unknown[] = [page.limit + 1, page.offset ?? 0];
    const where = this.listWhere({ ...page, where: page.where === undefined ? past : ({ and: [page.where, past] } as unknown as Where<A>) }, scope, params);
    const counted = this.listWhere(page, scope, params);
    const cap = countCap(page);
    if (cap !== undefined) params.push(cap);
    const total = `(SELECT count(*) FROM (SELECT 1 FROM ${this.table}${counted}${cap === undefined ? "" : ` LIMIT $${params.length}`}) AS fw_counted)`;
    const { rows } = await this.db.query(`SELECT ${this.selected}, ${total} AS fw_total FROM ${this.table}${where} ORDER BY ${this.orderBy(orders, backwards)}LIMIT $1 OFFSET $2`, params);
    const more = rows.length > page.limit;
    const kept = await this.withLinks(this.db, rows.slice(0, page.limit).map((row) => this.toModel(row)));
    const first = rows[0];
    const totalCount = first === undefined ? await this.count(page, scope) : Number(first["fw_total"]);
    return { rows: backwards ? kept.reverse() : kept, total: totalCount, more };
  }

  /**
   * Full-text search (issue 43): one statement. The rows whose `fw_search` matches
   * `websearch_to_tsquery` of the text (in the table's language: web-search syntax, which never
   * fails on what is typed) in scope and `where`, found by the GIN index, ranked by `ts_rank_cd`
   * (ties in key order), a page of them; then, for those rows only, each searched column's
   * snippet (`ts_headline`, around its matches) and the count beside them (up to `countUpTo`).
   */
  async search(text: string, page: SearchPage<A> = {}, scope?: Scope): Promise<SearchResults<A>> {
    const search = this.spec.search;
    const { fields } = searchFieldsOf(this.spec.name, search === undefined ? undefined : { fields: search.columns, language: search.language });
    const language = `'${search?.language}'::regconfig`;
    const typed = searchText(text);
    // The rows the search matches (in scope and `where`), their values pushed onto `params`.
    const matching = (params: unknown[]): { readonly sql: string; readonly query: string } => {
      params.push(typed);
      const query = `websearch_to_tsquery(${language}, $${params.length})`;
      const where = this.listWhere({ ...(page.where === undefined ? {} : { where: page.where }) }, scope, params);
      return { query, sql: `${q(SEARCH_COLUMN)} @@ ${query}${where === "" ? "" : ` AND ${where.slice(" WHERE ".length)}`}` };
    };
    const cap = countCap(page);
    const counted = (params: unknown[]): string => {
      const { sql } = matching(params);
      if (cap !== undefined) params.push(cap);
      return `SELECT count(*) FROM (SELECT 1 FROM ${this.table} WHERE ${sql}${cap === undefined ? "" : ` LIMIT $${params.length}`}) AS fw_counted`;
    };
    const params: unknown[] = [page.limit ?? 20, page.offset ?? 0];
    const found = matching(params);
    const total = counted(params);
    // Every searched field's headline, for the page's rows only; one holding none of the words has no mark and is left out (snippetsOf).
    const snippets = fields.map((column, i) => `ts_headline(${language}, coalesce(fw_hits.${q(column)}, ''), ${found.query}, '${HEADLINE}') AS fw_snippet_${i}`);
    // The newest `rankUpTo` matches are ranked (the key's index reads them newest first, or the GIN index finds a rare word's few).
    params.push(rankCap(page));
    const candidates = `SELECT ${this.selected}, ${q(SEARCH_COLUMN)} FROM ${this.table} WHERE ${found.sql} ORDER BY ${this.key} DESC LIMIT $${params.length}`;
    const hits = `SELECT ${this.selected}, ts_rank_cd(${q(SEARCH_COLUMN)}, ${found.query}) AS fw_rank FROM (${candidates}) AS fw_candidates ORDER BY fw_rank DESC, ${this.key} LIMIT $1 OFFSET $2`;
    const { rows } = await this.db.query(`SELECT fw_hits.*, ${snippets.join(", ")}, (${total}) AS fw_total FROM (${hits}) AS fw_hits ORDER BY fw_rank DESC, fw_hits.${this.key}`, params);
    const first = rows[0];
    let all = first === undefined ? undefined : Number(first["fw_total"]);
    if (all === undefined) {
      // A page past the last holds no row to carry the count.
      const alone: unknown[] = [];
      all = Number((await this.db.query(counted(alone).replace("SELECT count(*) FROM", "SELECT count(*) AS n FROM"), alone)).rows[0]?.["n"] ?? 0);
    }
    const models = await this.withLinks(this.db, rows.map((row) => this.toModel(row)));
    return {
      hits: rows.map((row, i) => ({ row: models[i] as A, rank: Number(row["fw_rank"]), snippets: this.snippetsOf(row, fields) as Hit<A>["snippets"] })),
      total: all,
    };
  }

  /** A hit's snippets: each searched column holding one of the words searched, as HTML (escaped, matches in `<mark>`), by field. */
  private snippetsOf(row: Row, columns: readonly string[]): Record<string, string> {
    const snippets: Record<string, string> = {};
    columns.forEach((column, i) => {
      const text = row[`fw_snippet_${i}`];
      const field = this.spec.columns.find((c) => c.column === column)?.field;
      if (typeof text === "string" && text.includes(MARK_START) && field !== undefined) snippets[field] = markedHtml(text);
    });
    return snippets;
  }

  /**
   * The WHERE clause of a list (`""` when nothing narrows it): the scope's groups and the page's
   * `where` and `search`, all of which must hold, their values pushed onto `params` as `$n`.
   */
  private listWhere(page: Pick<ListPage<A>, "where" | "search">, scope: Scope | undefined, params: unknown[]): string {
    const conditions = (scope?.where ?? []).map((group) => scopeGroup(group, params));
    conditions.push(...queryConditions(page, this.spec, params));
    return conditions.length === 0 ? "" : ` WHERE ${conditions.join(" AND ")}`;
  }

  /**
   * `Store.list`'s order: each field's column in turn (text by code point, `COLLATE "C"`, as the
   * in-memory store compares; NULLs last either way, which a column that holds no NULL need not
   * say, so an index on it serves either direction), then the key. A field with no column is the
   * caller's mistake, named.
   */
  private orderBy(order: ListPage<A>["order"], backwards = false): string {
    const orders = effectiveOrders(order, this.spec.key.field);
    const terms = orders.map((one) => {
      const column = this.sortColumn(one.field);
      const collate = column.type === "text" ? ' COLLATE "C"' : "";
      // Backwards (a keyset page before its cursor): every direction turned, absent values first.
      const descending = one.descending !== backwards;
      if (one.field === this.spec.key.field) return descending ? `${this.key} DESC` : this.key;
      return `${q(column.column)}${collate} ${descending ? "DESC" : "ASC"}${column.nullable ? (backwards ? " NULLS FIRST" : " NULLS LAST") : ""}`;
    });
    return terms.join(", ") + " ";
  }

  /** The column a sort names (the key's too); throws naming a field the table has no column for. */
  private sortColumn(field: string): ColumnSpec {
    if (field === this.spec.key.field) return { field, column: this.spec.key.column, type: "bigint", nullable: false };
    const column = this.spec.columns.find((c) => c.field === field);
    if (column === undefined || column.type === "jsonb") {
      throw new Error(`fw/db: the rows of ${this.spec.name} cannot be sorted by ${JSON.stringify(field)}, which is not a column of the table that sorts (fields: ${[this.spec.key.field, ...this.spec.columns.filter((c) => c.type !== "jsonb").map((c) => c.field)].join(", ")}).`);
    }
    return column;
  }

  async read(key: unknown, scope?: Scope): Promise<Versioned<A> | undefined> {
    const row = (await this.selectKey(key, scope))?.rows[0];
    if (row === undefined) return undefined;
    const versioned = this.versioned(row);
    await this.withLinks(this.via, [versioned.row]);
    return versioned;
  }

  /**
   * The rows with their list fields (many-to-many) read from the join tables: one statement per
   * list field for all of them (sql-links.ts), none for a table without lists.
   */
  private withLinks(via: Queryable, models: A[]): Promise<A[]> {
    // The links' statements answer the models themselves: no `then` of its own (bench/FINDINGS.md 47).
    return loadLinks(via, this.spec, models as Record<string, unknown>[], models);
  }

  /**
   * `read`'s row alone, without its version: `Store.get`, as every Show reads its row. One
   * promise on top of the statement's: a Show's row is most of what its page waits for.
   */
  get(key: unknown, scope?: Scope): Promise<A | undefined> {
    const selected = this.selectKey(key, scope);
    if (selected === undefined) return Promise.resolve(undefined);
    if (this.hasLinks) {
      return selected.then(({ rows }) => {
        if (rows[0] === undefined) return undefined;
        const model = this.toModel(rows[0]);
        return loadLinks(this.via, this.spec, [model as Record<string, unknown>], model);
      });
    }
    return selected.then(({ rows }) => (rows[0] === undefined ? undefined : this.toModel(rows[0])));
  }

  /** The statement reading the row `key` (in `scope`); undefined for a key that is no key (no row has it). */
  private selectKey(key: unknown, scope: Scope | undefined): Promise<{ readonly rows: readonly Row[] }> | undefined {
    if (!isKey(key)) return undefined;
    if (scope === undefined || scope.where.length === 0) return this.via.query(this.byKey, [key]);
    const where = this.where(scope, 2);
    return this.via.query(`${this.byKey}${where.and}`, [key, ...where.params]);
  }

  async insert(draft: Draft<A>, scope?: Scope): Promise<A> {
    const values = this.values(draft, scope);
    const columns = [...values.keys()].map(q);
    const sql =
      columns.length === 0
        ? `INSERT INTO ${this.table} DEFAULT VALUES RETURNING ${this.selected}`
        : `INSERT INTO ${this.table} (${columns.join(", ")}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(", ")}) RETURNING ${this.selected}`;
    if (this.spec.links === undefined || this.spec.links.length === 0) {
      const { rows } = await this.write(() => this.via.query(sql, [...values.values()]), { delete: false, draft });
      return this.toModel(rows[0] as Row);
    }
    // A row with lists (many-to-many): the row and its links in one transaction, all or nothing.
    return this.write(
      () =>
        this.via.transaction(async (tx) => {
          const { rows } = await tx.query(sql, [...values.values()]);
          const model = this.toModel(rows[0] as Row);
          const key = (model as Record<string, unknown>)[this.spec.key.field] as number;
          return { ...model, ...(await writeLinks(tx, this.spec, key, draft, false)) };
        }),
      { delete: false, draft },
    );
  }

  /**
   * Replaces the row's fields with the draft's (a field the draft leaves out becomes NULL, as
   * a form that clears it would), except `keep` (the owner column, which a form never carries).
   * With `expected`, writes only if the row is still at that version, else throws `Conflict`.
   */
  async update(key: unknown, draft: Draft<A>, options: { scope?: Scope; keep?: string; expected?: number } = {}): Promise<A | undefined> {
    if (!isKey(key)) return undefined;
    const { sql, params } = this.updateStatement(key, draft, options);
    const expected = options.expected;
    if (this.hasLinks) return this.updateWithLinks(key, draft, { sql, params }, options);
    if (expected === undefined) {
      return this.write(async () => {
        const { rows } = await this.via.query(sql, params);
        return rows[0] === undefined ? undefined : this.toModel(rows[0]);
      }, { delete: false, draft });
    }
    return this.write(() =>
      this.via.transaction(async (tx) => {
        const { rows } = await tx.query(sql, params);
        if (rows[0] !== undefined) return this.toModel(rows[0]);
        // Nothing matched: either there is no such row (for this owner), or its version moved on.
        const where = this.where(options.scope, 2);
        const now = await tx.query(`SELECT ${q(VERSION_COLUMN)} AS v FROM ${this.table} WHERE ${this.key} = $1${where.and}`, [key, ...where.params]);
        if (now.rows[0] === undefined) return undefined;
        throw new Conflict(this.spec.name, key, expected, Number(now.rows[0]["v"]));
      }),
      { delete: false, draft },
    );
  }

  /**
   * An update of a row with lists (many-to-many): the row, then its links replaced, in one
   * transaction; with `expected`, a row at another version is not written (`Conflict`).
   */
  private updateWithLinks(key: number, draft: Draft<A>, statement: { sql: string; params: unknown[] }, options: { scope?: Scope; expected?: number }): Promise<A | undefined> {
    return this.write(
      () =>
        this.via.transaction(async (tx) => {
          const { rows } = await tx.query(statement.sql, statement.params);
          if (rows[0] === undefined) {
            if (options.expected === undefined) return undefined;
            const where = this.where(options.scope, 2);
            const now = await tx.query(`SELECT ${q(VERSION_COLUMN)} AS v FROM ${this.table} WHERE ${this.key} = $1${where.and}`, [key, ...where.params]);
            if (now.rows[0] === undefined) return undefined;
            throw new Conflict(this.spec.name, key, options.expected, Number(now.rows[0]["v"]));
          }
          return { ...this.toModel(rows[0]), ...(await writeLinks(tx, this.spec, key, draft, true)) };
        }),
      { delete: false, draft },
    );
  }

  private updateStatement(key: number, draft: Draft<A>, options: { scope?: Scope; keep?: string; expected?: number }): { sql: string; params: unknown[] } {
    const values = this.values(draft, undefined, options.keep);
    const sets = [...values.keys()].map((column, i) => `${q(column)} = $${i + 2}`);
    sets.push(`${q(VERSION_COLUMN)} = ${q(VERSION_COLUMN)} + 1`);
    const params: unknown[] = [key, ...values.values()];
    const where = this.where(options.scope, params.length + 1);
    params.push(...where.params);
    let condition = where.and;
    if (options.expected !== undefined) {
      params.push(options.expected);
      condition += ` AND ${q(VERSION_COLUMN)} = $${params.length}`;
    }
    return { sql: `UPDATE ${this.table} SET ${sets.join(", ")} WHERE ${this.key} = $1${condition} RETURNING ${this.selected}`, params };
  }

  async delete(key: unknown, scope?: Scope): Promise<boolean> {
    if (!isKey(key)) return false;
    const where = this.where(scope, 2);
    const { rowCount } = await this.write(() => this.via.query(`DELETE FROM ${this.table} WHERE ${this.key} = $1${where.and}`, [key, ...where.params]), { delete: true, key });
    return rowCount > 0;
  }

  /**
   * Runs one write, turning a constraint it breaks into the store's error (sql-errors.ts): a
   * unique's `DuplicateValue`, a foreign key's `MissingReference` or, for a delete,
   * `StillReferenced`. A write is a single statement, which PostgreSQL runs as a transaction of
   * its own (all of it or nothing); the versioned update, a statement and a check, runs in an
   * explicit one.
   */
  private async write<T>(work: () => Promise<T>, write: Parameters<typeof storeError>[3]): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw storeError(error, this.db, this.spec, write) ?? error;
    }
  }

  /** The rows a list matches (in `scope`), counted up to the page's `countUpTo` when it gives one. */
  async count(page: Pick<ListPage<A>, "where" | "search" | "countUpTo"> = {}, scope?: Scope): Promise<number> {
    const params: unknown[] = [];
    const where = this.listWhere(page, scope, params);
    const cap = countCap(page);
    if (cap === undefined) {
      const { rows } = await this.via.query(`SELECT count(*) AS n FROM ${this.table}${where}`, params);
      return Number(rows[0]?.["n"] ?? 0);
    }
    params.push(cap);
    const { rows } = await this.via.query(`SELECT count(*) AS n FROM (SELECT 1 FROM ${this.table}${where} LIMIT $${params.length}) AS fw_counted`, params);
    return Number(rows[0]?.["n"] ?? 0);
  }

  /**
   * `SELECT key FROM table WHERE <scope>`: the keys of the scope's rows, as another table's
   * `IN (…)` reads them; the scope's values pushed onto `params`, numbered after `before`.
   */
  keysIn(scope: Scope, params: unknown[], before: number): string {
    const conditions = scope.where.map((group) => scopeGroup(group, params, before));
    return `SELECT ${this.key} FROM ${this.table}${conditions.length === 0 ? "" : ` WHERE ${conditions.join(" AND ")}`}`;
  }

  /** The scope as a WHERE clause (`sql`) or a further condition (`and`), its values from `$at` on. */
  private where(scope: Scope | undefined, at: number): { sql: string; and: string; params: unknown[] } {
    if (scope === undefined || scope.where.length === 0) return { sql: "", and: "", params: [] };
    const params: unknown[] = [];
    const condition = scope.where.map((group) => scopeGroup(group, params, at - 1)).join(" AND ");
    return { sql: ` WHERE ${condition}`, and: ` AND ${condition}`, params };
  }

  /** The column a model field is stored in (the key's too); throws naming the field when there is none. */
  columnOf(field: string): string {
    return columnOfField(this.spec, field, "a row filter").column;
  }

  /** The draft's stored fields, column to value (absent → NULL), the scope's owner stamped. */
  private values(draft: Draft<A>, scope: Scope | undefined, keep?: string): Map<string, unknown> {
    const values = new Map<string, unknown>();
    const fields = draft as Record<string, unknown>;
    for (const column of this.spec.columns) {
      if (column.column === keep) continue;
      const value = fields[column.field];
      values.set(column.column, columnValue(column, value));
    }
    if (scope?.stamp !== undefined) values.set(scope.stamp.column, scope.stamp.value);
    return values;
  }

  private versioned(row: Row): Versioned<A> {
    return { row: this.toModel(row), version: Number(row[VERSION_COLUMN]) };
  }

  /** A database row as the model: the key as a number, NULL as an absent field. */
  private toModel(row: Row): A {
    const model: Record<string, unknown> = {};
    model[this.spec.key.field] = Number(row[this.spec.key.column]);
    for (const reader of this.readers) {
      const value = row[reader.column];
      if (value === null || value === undefined) continue;
      model[reader.field] = reader.fileAt === undefined ? readValue(reader.kind, value) : fileValue(value, `${reader.fileAt}/${String(model[this.spec.key.field])}/${reader.field}/`);
    }
    return model as A;
  }
}

/** A column as `toModel` reads it: most are taken as the driver gives them ("plain"). */
interface ColumnReader {
  readonly column: string;
  readonly field: string;
  readonly kind: "plain" | "reference" | "date" | "instant";
  /** A file column: where its row's files are served. */
  readonly fileAt?: string;
}

function readerOf(column: ColumnSpec): ColumnReader {
  const kind = column.references !== undefined ? "reference" : column.asDate === true ? "date" : column.type === "timestamptz" ? "instant" : "plain";
  return { column: column.column, field: column.field, kind, ...(column.fileAt === undefined ? {} : { fileAt: column.fileAt }) };
}

/** A file column's value as the row holds it, with where it is served (`url`: the row's path, the field, the key). */
function fileValue(value: unknown, at: string): unknown {
  const file = (typeof value === "string" ? JSON.parse(value) : value) as Record<string, unknown>;
  return typeof file["key"] === "string" ? { ...file, url: `${at}${file["key"]}` } : file;
}

/** A column's value as the model has it: as given, a reference's bigint as a number, a date column's day as a Date, a timestamptz as an instant. */
function readValue(kind: ColumnReader["kind"], value: unknown): unknown {
  if (kind === "plain") return value;
  if (kind === "reference") return typeof value === "bigint" ? Number(value) : value;
  if (kind === "date") return typeof value === "string" ? new Date(`${value}T00:00:00Z`) : value;
  if (kind === "instant") return typeof value === "string" ? instantOf(value) : value;
  return value;
}

/**
 * A field's value as sent: jsonb as JSON text; a `Date` into a date column as its UTC calendar
 * day (the driver would send local time, which moves the day west of Greenwich); absent → NULL.
 */
function columnValue(column: ColumnSpec, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (column.type === "jsonb") return JSON.stringify(column.fileAt === undefined ? value : withoutUrl(value));
  if (column.type === "date" && value instanceof Date) return value.toISOString().slice(0, 10);
  // An instant (createdAt, updatedAt) goes as ISO text with its zone: exact on either engine.
  if (column.type === "timestamptz" && value instanceof Date) return value.toISOString();
  return value;
}

/** A stored file as its column keeps it: where it is served is worked out on reading, never stored. */
function withoutUrl(value: unknown): unknown {
  if (typeof value !== "object" || value === null || !("url" in value)) return value;
  const { url: _url, ...kept } = value as Record<string, unknown>;
  return kept;
}

/** A timestamptz as PostgreSQL writes it (`2026-11-25 15:47:00.123+00`, `…+05:30`) read as a Date. */
function instantOf(text: string): Date {
  return new Date(text.replace(" ", "T").replace(/([+-]\d\d)$/, "$1:00"));
}

/**
 * One group of a scope: `column = $n` (or `column IN (SELECT …)`) alternatives (an empty group
 * matches nothing), its values pushed onto `params`, numbered after `before` parameters the
 * statement has ahead of them.
 */
function scopeGroup(group: readonly ColumnCondition[], params: unknown[], before = 0): string {
  if (group.length === 0) return "FALSE";
  const alternatives = group.map((condition) => {
    if ("in" in condition) return `${q(condition.column)} IN (${condition.in.table.keysIn(condition.in.scope, params, before)})`;
    params.push(condition.value);
    return `${q(condition.column)} = $${before + params.length}`;
  });
  return alternatives.length === 1 ? (alternatives[0] as string) : `(${alternatives.join(" OR ")})`;
}

/**
 * `ts_headline`'s options: the matches between fw's two marks (escaped, then made `<mark>`:
 * text-search.ts), in one passage of 15 to 35 words around the best of them.
 */
const HEADLINE = `StartSel=${MARK_START}, StopSel=${MARK_STOP}, MaxWords=35, MinWords=15`;

/** A search's `rankUpTo` when it is a whole number from 1, else `MAX_RANKED`. */
function rankCap(page: { readonly rankUpTo?: number }): number {
  const cap = page.rankUpTo;
  return typeof cap === "number" && Number.isSafeInteger(cap) && cap >= 1 ? cap : MAX_RANKED;
}

/** A page's `countUpTo` when it is one (a whole number from 1); anything else counts exactly. */
function countCap(page: Pick<ListPage<unknown>, "countUpTo">): number | undefined {
  const cap = page.countUpTo;
  return cap !== undefined && Number.isSafeInteger(cap) && cap > 0 ? cap : undefined;
}

/** Keys are positive whole numbers (an `Id`): anything else names no row and is not sent. */
function isKey(key: unknown): key is number {
  return typeof key === "number" && Number.isSafeInteger(key) && key > 0;
}
