import type { Queryable } from "./database.js";
import { quoteIdentifier as q } from "./identifier.js";

/** A column as the database has it. */
export interface ActualColumn {
  readonly name: string;
  /** As PostgreSQL's `format_type` writes it: `text`, `character varying(80)`, `timestamp with time zone`. */
  readonly type: string;
  readonly nullable: boolean;
  /** `GENERATED … AS IDENTITY`. */
  readonly identity: boolean;
  /** The column's comment (`COMMENT ON COLUMN`), if any: what fw's search column was made of. */
  readonly comment?: string;
}

/** A table of the current schema, its columns in their order. */
export interface ActualTable {
  readonly name: string;
  readonly columns: ReadonlyMap<string, ActualColumn>;
  /** Another table's foreign key points at this one. */
  readonly referenced: boolean;
  /** The table's comment (`COMMENT ON TABLE`), if any. */
  readonly comment: string | undefined;
  /** Its foreign keys, by name. */
  readonly foreignKeys: readonly ActualForeignKey[];
  /** Its unique constraints, and the unique indexes no constraint owns (made by hand), by name. */
  readonly uniques: readonly ActualUnique[];
  /** Its indexes on plain columns (no expression, no predicate): primary, unique and the rest. */
  readonly indexes: readonly ActualIndex[];
}

/** What deleting a referenced row does, as `pg_constraint.confdeltype` says it. */
export type ActualOnDelete = "no action" | "restrict" | "cascade" | "set null" | "set default";

/** A foreign key of a table. */
export interface ActualForeignKey {
  readonly name: string;
  /** Its columns in this table, in order. */
  readonly columns: readonly string[];
  /** The table it points at, and its columns there. */
  readonly target: string;
  readonly targetColumns: readonly string[];
  readonly onDelete: ActualOnDelete;
}

/** A set of columns no two rows may share. */
export interface ActualUnique {
  readonly name: string;
  readonly columns: readonly string[];
  /** A constraint (`UNIQUE`, `ALTER TABLE … DROP CONSTRAINT`), not an index alone (`CREATE UNIQUE INDEX`). */
  readonly constraint: boolean;
}

/** An index on plain columns. */
export interface ActualIndex {
  readonly name: string;
  /** Its key columns, in order. */
  readonly columns: readonly string[];
  readonly unique: boolean;
  readonly primary: boolean;
}

const ON_DELETE: Record<string, ActualOnDelete> = { a: "no action", r: "restrict", c: "cascade", n: "set null", d: "set default" };

/**
 * The tables of the current schema (`public`, unless the search path says otherwise), their
 * columns, foreign keys, uniques and indexes, read from pg_catalog: the same queries on PGlite
 * and on PostgreSQL.
 */
export async function readSchema(db: Queryable): Promise<ReadonlyMap<string, ActualTable>> {
  const { rows } = await db.query<{ table_name: string; comment: string | null; column_name: string; type: string; not_null: boolean; identity: boolean; column_comment: string | null }>(
    `SELECT c.relname AS table_name, obj_description(c.oid, 'pg_class') AS comment, a.attname AS column_name, format_type(a.atttypid, a.atttypmod) AS type,
            a.attnotnull AS not_null, a.attidentity <> '' AS identity, col_description(c.oid, a.attnum) AS column_comment
       FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
      ORDER BY c.relname, a.attnum`,
  );
  const { rows: targets } = await db.query<{ name: string }>(
    `SELECT DISTINCT r.relname AS name
       FROM pg_constraint k
       JOIN pg_class r ON r.oid = k.confrelid
      WHERE k.contype = 'f' AND k.conrelid <> k.confrelid`,
  );
  const referenced = new Set(targets.map((row) => row.name));
  const tables = new Map<string, { name: string; columns: Map<string, ActualColumn>; referenced: boolean; comment: string | undefined; foreignKeys: ActualForeignKey[]; uniques: ActualUnique[]; indexes: ActualIndex[] }>();
  for (const row of rows) {
    let table = tables.get(row.table_name);
    if (table === undefined) {
      table = { name: row.table_name, columns: new Map(), referenced: referenced.has(row.table_name), comment: row.comment ?? undefined, foreignKeys: [], uniques: [], indexes: [] };
      tables.set(row.table_name, table);
    }
    table.columns.set(row.column_name, { name: row.column_name, type: row.type, nullable: !row.not_null, identity: row.identity, ...(row.column_comment === null ? {} : { comment: row.column_comment }) });
  }
  const { rows: constraints } = await db.query<{ table_name: string; name: string; type: string; columns: string[]; target: string | null; target_columns: string[]; on_delete: string }>(
    `SELECT c.relname AS table_name, k.conname AS name, k.contype AS type, ${attributes("k.conkey", "k.conrelid")} AS columns,
            r.relname AS target, ${attributes("k.confkey", "k.confrelid")} AS target_columns, k.confdeltype AS on_delete
       FROM pg_constraint k
       JOIN pg_class c ON c.oid = k.conrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
       LEFT JOIN pg_class r ON r.oid = k.confrelid
      WHERE n.nspname = current_schema() AND k.contype IN ('f', 'u')
      ORDER BY c.relname, k.conname`,
  );
  for (const row of constraints) {
    const table = tables.get(row.table_name);
    if (table === undefined) continue;
    if (row.type === "u") table.uniques.push({ name: row.name, columns: row.columns, constraint: true });
    else table.foreignKeys.push({ name: row.name, columns: row.columns, target: row.target ?? "", targetColumns: row.target_columns, onDelete: ON_DELETE[row.on_delete] ?? "no action" });
  }
  // Only the key columns of an index (not INCLUDE's), and no index on an expression or with a WHERE.
  const { rows: indexes } = await db.query<{ table_name: string; name: string; unique: boolean; primary: boolean; columns: string[]; owned: boolean }>(
    `SELECT c.relname AS table_name, i.relname AS name, x.indisunique AS "unique", x.indisprimary AS "primary",
            array(SELECT a.attname::text FROM unnest(x.indkey::int2[]) WITH ORDINALITY u(n, i) JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = u.n
                   WHERE u.i <= x.indnkeyatts ORDER BY u.i) AS columns,
            EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid AND k.conrelid = x.indrelid) AS owned
       FROM pg_index x
       JOIN pg_class c ON c.oid = x.indrelid
       JOIN pg_class i ON i.oid = x.indexrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND x.indexprs IS NULL AND x.indpred IS NULL
      ORDER BY c.relname, i.relname`,
  );
  for (const row of indexes) {
    const table = tables.get(row.table_name);
    if (table === undefined) continue;
    table.indexes.push({ name: row.name, columns: row.columns, unique: row.unique, primary: row.primary });
    if (row.unique && !row.primary && !row.owned) table.uniques.push({ name: row.name, columns: row.columns, constraint: false });
  }
  return tables;
}

/** The names of the attributes `numbers` (an int2 array column of pg_constraint) lists of the relation `relation`, in order, as text[]. */
function attributes(numbers: string, relation: string): string {
  return `array(SELECT a.attname::text FROM unnest(${numbers}) WITH ORDINALITY u(n, i) JOIN pg_attribute a ON a.attrelid = ${relation} AND a.attnum = u.n ORDER BY u.i)`;
}

/** Rows of a table whose column names a row another table does not have. */
export interface Orphans {
  /** How many rows. */
  readonly rows: number;
  /** How many distinct keys they name. */
  readonly keys: number;
  /** A few of those keys (at most five), smallest first. */
  readonly examples: readonly string[];
}

/** Values several rows share, where a unique would allow one. */
export interface Duplicates {
  /** How many distinct values (or combinations) are held by more than one row. */
  readonly values: number;
  /** How many rows hold them. */
  readonly rows: number;
}

/**
 * What the rows of the database hold, asked only for the tables and columns a change touches
 * (and each asked once): whether a drop or a narrowing would lose something, whether existing
 * rows would break a foreign key or a unique the models add, and how many rows a new required
 * column needs a value for.
 */
export class DataProbe {
  readonly #asked = new Map<string, Promise<unknown>>();

  constructor(private readonly db: Queryable) {}

  /** The table has at least one row. */
  async hasRows(table: string): Promise<boolean> {
    return (await this.rows(table)) > 0;
  }

  /** How many rows the table has. */
  rows(table: string): Promise<number> {
    return this.#ask(`rows ${table}`, async () => {
      const { rows } = await this.db.query<{ n: string | number }>(`SELECT count(*) AS n FROM ${q(table)}`);
      return Number(rows[0]?.n ?? 0);
    });
  }

  /** At least one row holds a value (not NULL) in the column. */
  hasValues(table: string, column: string): Promise<boolean> {
    return this.#found(`values ${table}.${column}`, `SELECT EXISTS (SELECT 1 FROM ${q(table)} WHERE ${q(column)} IS NOT NULL) AS found`);
  }

  /** How many rows hold NULL in the column. */
  nulls(table: string, column: string): Promise<number> {
    return this.#ask(`nulls ${table}.${column}`, async () => {
      const { rows } = await this.db.query<{ n: string | number }>(`SELECT count(*) AS n FROM ${q(table)} WHERE ${q(column)} IS NULL`);
      return Number(rows[0]?.n ?? 0);
    });
  }

  /**
   * The rows whose `column` (not NULL) names no row of `target` (by `targetColumn`). With no
   * `target` table (one the same change creates, so still empty), every value is an orphan.
   */
  orphans(table: string, column: string, target: string, targetColumn: string, targetExists: boolean): Promise<Orphans> {
    return this.#ask(`orphans ${table}.${column} ${target}.${targetColumn} ${targetExists}`, async () => {
      const c = q(column);
      const missing = targetExists ? ` AND NOT EXISTS (SELECT 1 FROM ${q(target)} t WHERE t.${q(targetColumn)} = o.${c})` : "";
      const from = `FROM ${q(table)} o WHERE o.${c} IS NOT NULL${missing}`;
      const [{ rows: counted }, { rows: examples }] = [
        await this.db.query<{ n: string | number; keys: string | number }>(`SELECT count(*) AS n, count(DISTINCT o.${c}) AS keys ${from}`),
        await this.db.query<{ v: string }>(`SELECT DISTINCT o.${c}::text AS v, o.${c} AS k ${from} ORDER BY o.${c} LIMIT 5`),
      ];
      return { rows: Number(counted[0]?.n ?? 0), keys: Number(counted[0]?.keys ?? 0), examples: examples.map((row) => row.v) };
    });
  }

  /** The values (combinations, for several columns) more than one row holds; NULLs never clash. */
  duplicates(table: string, columns: readonly string[]): Promise<Duplicates> {
    return this.#ask(`duplicates ${table}.${columns.join(",")}`, async () => {
      const cs = columns.map(q);
      const { rows } = await this.db.query<{ values: string | number; rows: string | number | null }>(
        `SELECT count(*) AS values, sum(n) AS rows FROM (SELECT count(*) AS n FROM ${q(table)} WHERE ${cs.map((c) => `${c} IS NOT NULL`).join(" AND ")} GROUP BY ${cs.join(", ")} HAVING count(*) > 1) d`,
      );
      return { values: Number(rows[0]?.values ?? 0), rows: Number(rows[0]?.rows ?? 0) };
    });
  }

  /** A row of `table` has `value` (a key, sent as a parameter) in `column`. Never cached: it checks what a user typed. */
  async exists(table: string, column: string, value: string): Promise<boolean> {
    const { rows } = await this.db.query<{ found: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${q(table)} WHERE ${q(column)} = $1) AS found`, [value]);
    return rows[0]?.found === true;
  }

  #found(key: string, sql: string): Promise<boolean> {
    return this.#ask(key, async () => (await this.db.query<{ found: boolean }>(sql)).rows[0]?.found === true);
  }

  #ask<T>(key: string, query: () => Promise<T>): Promise<T> {
    let answer = this.#asked.get(key) as Promise<T> | undefined;
    if (answer === undefined) {
      answer = query();
      this.#asked.set(key, answer);
    }
    return answer;
  }
}
