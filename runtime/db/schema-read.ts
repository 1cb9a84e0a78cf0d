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
}

/** A table of the current schema, its columns in their order. */
export interface ActualTable {
  readonly name: string;
  readonly columns: ReadonlyMap<string, ActualColumn>;
  /** Another table's foreign key points at this one. */
  readonly referenced: boolean;
  /** The table's comment (`COMMENT ON TABLE`), if any. */
  readonly comment: string | undefined;
}

/**
 * The tables of the current schema (`public`, unless the search path says otherwise) and their
 * columns, read from pg_catalog: the same query on PGlite and on PostgreSQL.
 */
export async function readSchema(db: Queryable): Promise<ReadonlyMap<string, ActualTable>> {
  const { rows } = await db.query<{ table_name: string; comment: string | null; column_name: string; type: string; not_null: boolean; identity: boolean }>(
    `SELECT c.relname AS table_name, obj_description(c.oid, 'pg_class') AS comment, a.attname AS column_name, format_type(a.atttypid, a.atttypmod) AS type,
            a.attnotnull AS not_null, a.attidentity <> '' AS identity
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
  const tables = new Map<string, { name: string; columns: Map<string, ActualColumn>; referenced: boolean; comment: string | undefined }>();
  for (const row of rows) {
    let table = tables.get(row.table_name);
    if (table === undefined) {
      table = { name: row.table_name, columns: new Map(), referenced: referenced.has(row.table_name), comment: row.comment ?? undefined };
      tables.set(row.table_name, table);
    }
    table.columns.set(row.column_name, { name: row.column_name, type: row.type, nullable: !row.not_null, identity: row.identity });
  }
  return tables;
}

/**
 * What the rows of the database hold, asked only for the tables and columns a change touches
 * (and each asked once): whether a drop or a narrowing would lose something.
 */
export class DataProbe {
  readonly #asked = new Map<string, Promise<boolean>>();

  constructor(private readonly db: Queryable) {}

  /** The table has at least one row. */
  hasRows(table: string): Promise<boolean> {
    return this.#ask(table, `SELECT EXISTS (SELECT 1 FROM ${q(table)}) AS found`);
  }

  /** At least one row holds a value (not NULL) in the column. */
  hasValues(table: string, column: string): Promise<boolean> {
    return this.#ask(`${table}.${column}`, `SELECT EXISTS (SELECT 1 FROM ${q(table)} WHERE ${q(column)} IS NOT NULL) AS found`);
  }

  #ask(key: string, sql: string): Promise<boolean> {
    let answer = this.#asked.get(key);
    if (answer === undefined) {
      answer = this.db.query<{ found: boolean }>(sql).then((result) => result.rows[0]?.found === true);
      this.#asked.set(key, answer);
    }
    return answer;
  }
}
