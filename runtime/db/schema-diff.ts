import { createHash } from "node:crypto";
import type { Queryable } from "./database.js";
import { columnSql, columnType, createTableSql, MODEL_TABLE_COMMENT, ownerIndexSql } from "./ddl.js";
import { quoteIdentifier as q } from "./identifier.js";
import { DataProbe, readSchema, type ActualColumn, type ActualTable } from "./schema-read.js";
import { USERS_TABLE, usersTableSql } from "./sql-users.js";
import { checkTable, VERSION_COLUMN, type ColumnSpec, type ColumnType, type TableSpec } from "./table.js";

/** What one change does to the schema. */
export type ChangeKind = "create table" | "drop table" | "add column" | "drop column" | "change type" | "set not null" | "drop not null";

/** One difference between the tables the models derive and the database, and the SQL that removes it. */
export interface SchemaChange {
  readonly kind: ChangeKind;
  readonly table: string;
  /** The column, for a column change. */
  readonly column?: string;
  /** What the database has now (`character varying(80)`, `NULL allowed`), for a changed column. */
  readonly was?: string;
  /** What the models want. */
  readonly wanted?: string;
  /** In words, for the drift page and the terminal. */
  readonly summary: string;
  /** The statements, each ending with `;`. */
  readonly sql: string;
  /** Why the change can lose data that is there now; undefined when it cannot. */
  readonly destructive?: string;
}

/** Every change, in the order they apply, and the script that applies them. */
export interface SchemaDrift {
  readonly changes: readonly SchemaChange[];
  /** The changes' SQL, one commented block per change: what Sync runs and Freeze writes. */
  readonly sql: string;
  readonly destructive: boolean;
  /** A short hash of `sql`: a form posted from a page that showed other changes is refused. */
  readonly fingerprint: string;
}

/** The SQL type `format_type` prints for each column type fw/db declares. */
const FORMAT_TYPE: Record<ColumnType, string> = {
  text: "text",
  integer: "integer",
  bigint: "bigint",
  "double precision": "double precision",
  numeric: "numeric",
  boolean: "boolean",
  date: "date",
  timestamptz: "timestamp with time zone",
  jsonb: "jsonb",
};

/**
 * The value existing rows get when a NOT NULL column is added or a nullable one made NOT NULL:
 * a fixed literal per type (never anything from a request). A foreign key has none.
 */
const FILL: Record<ColumnType, string> = {
  text: "''",
  integer: "0",
  bigint: "0",
  "double precision": "0",
  numeric: "0",
  boolean: "false",
  date: "CURRENT_DATE",
  timestamptz: "now()",
  jsonb: "'{}'::jsonb",
};

/** Changes of type that keep every value as it is (`from` → the `to`s listed). */
const WIDENINGS: Record<string, readonly string[]> = {
  integer: ["bigint", "numeric", "double precision"],
  bigint: ["numeric"],
  date: ["timestamp with time zone"],
};

/**
 * Compares the tables the models derive with the database's schema: missing tables (the users
 * table too, when an owned model references it), missing and extra columns, changed types,
 * nullability and maximum lengths, and tables fw made for a model no model declares any more.
 * Reads the rows only to tell whether a drop or a narrowing would lose data.
 */
export async function schemaDrift(db: Queryable, tables: readonly TableSpec[]): Promise<SchemaDrift> {
  for (const table of tables) checkTable(table);
  const actual = await readSchema(db);
  const probe = new DataProbe(db);
  const changes: SchemaChange[] = [];
  if (!actual.has(USERS_TABLE) && tables.some((t) => t.columns.some((c) => c.references?.table === USERS_TABLE))) {
    changes.push({ kind: "create table", table: USERS_TABLE, summary: `creates the users table ${USERS_TABLE} (an owned model references it)`, sql: usersTableSql() });
  }
  for (const table of tables) {
    const found = actual.get(table.name);
    if (found === undefined) changes.push({ kind: "create table", table: table.name, summary: `creates the table ${table.name}`, sql: createTableSql(table) });
    else changes.push(...(await tableChanges(table, found, probe)));
  }
  const declared = new Set(tables.map((table) => table.name));
  for (const orphan of [...actual.values()].filter((table) => !declared.has(table.name) && isModelTable(table))) {
    changes.push(await dropTable(orphan, probe));
  }
  return driftOf(changes);
}

/** The drift made of `changes`: its script and fingerprint. */
export function driftOf(changes: readonly SchemaChange[]): SchemaDrift {
  const sql = changes.map((change) => `-- ${change.table}: ${change.summary}${change.destructive === undefined ? "" : ` (destructive: ${change.destructive})`}\n${change.sql.trimEnd()}\n`).join("\n");
  return {
    changes,
    sql,
    destructive: changes.some((change) => change.destructive !== undefined),
    fingerprint: createHash("sha256").update(sql).digest("hex").slice(0, 16),
  };
}

/**
 * A table fw made for a model (`createTableSql` marks it with its comment) that no model
 * declares now. A table without the mark (made by a hand-written migration, or by fw before it
 * marked its tables), the users tables, and a table another one references are never dropped:
 * fw cannot tell whether something still needs them.
 */
function isModelTable(table: ActualTable): boolean {
  return table.comment === MODEL_TABLE_COMMENT && !table.referenced && table.name !== USERS_TABLE;
}

async function dropTable(table: ActualTable, probe: DataProbe): Promise<SchemaChange> {
  const rows = await probe.hasRows(table.name);
  return {
    kind: "drop table",
    table: table.name,
    summary: `drops the table ${table.name}, which no model declares`,
    sql: `DROP TABLE ${q(table.name)};\n`,
    ...(rows ? { destructive: `deletes the table's rows` } : {}),
  };
}

/** A declared table that exists: its columns, compared one by one. */
async function tableChanges(table: TableSpec, actual: ActualTable, probe: DataProbe): Promise<SchemaChange[]> {
  const changes: SchemaChange[] = [];
  const t = table.name;
  if (!actual.columns.has(table.key.column)) {
    const sql = `ALTER TABLE ${q(t)} ADD COLUMN ${q(table.key.column)} bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY;\n`;
    changes.push({ kind: "add column", table: t, column: table.key.column, wanted: "bigint identity", summary: `adds the key column ${table.key.column}`, sql });
  }
  for (const column of table.columns) {
    const found = actual.columns.get(column.column);
    if (found === undefined) changes.push(addColumn(t, column));
    else changes.push(...(await columnChanges(t, column, found, probe)));
  }
  if (!actual.columns.has(VERSION_COLUMN)) {
    const sql = `ALTER TABLE ${q(t)} ADD COLUMN ${q(VERSION_COLUMN)} integer NOT NULL DEFAULT 1;\n`;
    changes.push({ kind: "add column", table: t, column: VERSION_COLUMN, wanted: "integer", summary: `adds fw's version column ${VERSION_COLUMN}`, sql });
  }
  const wanted = new Set([table.key.column, VERSION_COLUMN, ...table.columns.map((column) => column.column)]);
  for (const extra of [...actual.columns.values()].filter((column) => !wanted.has(column.name))) {
    const values = await probe.hasValues(t, extra.name);
    changes.push({
      kind: "drop column",
      table: t,
      column: extra.name,
      was: extra.type,
      summary: `drops the column ${extra.name}, which no field of the model stores`,
      sql: `ALTER TABLE ${q(t)} DROP COLUMN ${q(extra.name)};\n`,
      ...(values ? { destructive: `deletes the values rows hold in ${extra.name}` } : {}),
    });
  }
  return changes;
}

/**
 * A new column. A NOT NULL one gets the type's fill value as a default while it is added, so a
 * table with rows takes it (in a migration applied to production too), then the default goes.
 */
function addColumn(table: string, column: ColumnSpec): SchemaChange {
  const fill = column.nullable || column.references !== undefined ? undefined : FILL[column.type];
  const statements = [`ALTER TABLE ${q(table)} ADD COLUMN ${columnSql(column)}${fill === undefined ? "" : ` DEFAULT ${fill}`};`];
  if (fill !== undefined) statements.push(`ALTER TABLE ${q(table)} ALTER COLUMN ${q(column.column)} DROP DEFAULT;`);
  if (column.references !== undefined) statements.push(ownerIndexSql(table, column.column));
  const rows = fill === undefined ? "" : `; rows already there get ${fill}`;
  return {
    kind: "add column",
    table,
    column: column.column,
    wanted: described(column),
    summary: `adds the column ${column.column} (${described(column)})${rows}`,
    sql: statements.join("\n") + "\n",
  };
}

/** A column both sides have: its type (maximum length included) and its nullability. */
async function columnChanges(table: string, column: ColumnSpec, actual: ActualColumn, probe: DataProbe): Promise<SchemaChange[]> {
  const changes: SchemaChange[] = [];
  const type = columnType(column);
  const wantedType = column.maxLength === undefined ? FORMAT_TYPE[column.type] : `character varying(${column.maxLength})`;
  const c = column.column;
  if (actual.type !== wantedType) {
    const narrowing = !widens(actual.type, wantedType);
    const values = narrowing && (await probe.hasValues(table, c));
    changes.push({
      kind: "change type",
      table,
      column: c,
      was: actual.type,
      wanted: wantedType,
      summary: `changes the type of ${c} from ${actual.type} to ${wantedType}`,
      sql: `ALTER TABLE ${q(table)} ALTER COLUMN ${q(c)} TYPE ${type}${textual(actual.type) && textual(wantedType) ? "" : ` USING ${q(c)}::${type}`};\n`,
      ...(values ? { destructive: `narrows ${actual.type} to ${wantedType}: values rows hold may be cut, or refused` } : {}),
    });
  }
  if (actual.nullable && !column.nullable) {
    const fill = column.references === undefined ? FILL[column.type] : undefined;
    const update = fill === undefined ? "" : `UPDATE ${q(table)} SET ${q(c)} = ${fill} WHERE ${q(c)} IS NULL;\n`;
    const filled = fill === undefined ? "" : `; rows holding NULL get ${fill}`;
    changes.push({
      kind: "set not null",
      table,
      column: c,
      was: "NULL allowed",
      wanted: "NOT NULL",
      summary: `makes ${c} required (NOT NULL)${filled}`,
      sql: `${update}ALTER TABLE ${q(table)} ALTER COLUMN ${q(c)} SET NOT NULL;\n`,
    });
  }
  if (!actual.nullable && column.nullable) {
    changes.push({
      kind: "drop not null",
      table,
      column: c,
      was: "NOT NULL",
      wanted: "NULL allowed",
      summary: `makes ${c} optional (NULL allowed)`,
      sql: `ALTER TABLE ${q(table)} ALTER COLUMN ${q(c)} DROP NOT NULL;\n`,
    });
  }
  return changes;
}

/**
 * Text to text (a length changed): no USING, so PostgreSQL's assignment cast refuses a value
 * too long for the new length instead of cutting it, as an explicit cast would.
 */
function textual(type: string): boolean {
  return type === "text" || type.startsWith("character varying");
}

/** True when every value of type `from` is kept as it is in type `to`. */
function widens(from: string, to: string): boolean {
  if (to === "text") return true;
  const length = (type: string): number | undefined => {
    const match = /^character varying\((\d+)\)$/.exec(type);
    return match === null ? undefined : Number(match[1]);
  };
  const [a, b] = [length(from), length(to)];
  if (a !== undefined && b !== undefined) return b >= a;
  return WIDENINGS[from]?.includes(to) ?? false;
}

/** `character varying(80), NOT NULL`, as the page shows a column. */
function described(column: ColumnSpec): string {
  const type = column.maxLength === undefined ? FORMAT_TYPE[column.type] : `character varying(${column.maxLength})`;
  return `${type}, ${column.nullable ? "NULL allowed" : "NOT NULL"}${column.unique === true ? ", UNIQUE" : ""}`;
}

/** A migration name for the changes: `add_subtitle_to_posts`, `create_posts`, `update_posts_notes`. */
export function migrationName(changes: readonly SchemaChange[]): string {
  const only = changes.length === 1 ? changes[0] : undefined;
  if (only !== undefined) {
    switch (only.kind) {
      case "create table":
        return `create_${only.table}`;
      case "drop table":
        return `drop_${only.table}`;
      case "add column":
        return `add_${only.column}_to_${only.table}`;
      case "drop column":
        return `drop_${only.column}_from_${only.table}`;
      default:
        return `change_${only.column}_of_${only.table}`;
    }
  }
  const tables = [...new Set(changes.map((change) => change.table))];
  return `update_${tables.slice(0, 3).join("_")}${tables.length > 3 ? "_and_more" : ""}`.slice(0, 60);
}
