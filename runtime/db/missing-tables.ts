import { readMigrations } from "./migrations.js";
import type { Queryable } from "./database.js";
import { createTableSql } from "./ddl.js";
import { USERS_TABLE, usersTableSql } from "./sql-users.js";
import type { TableSpec } from "./table.js";

/** What `db new` puts in a migration for the app's table models. */
export interface MissingTables {
  /** The tables it creates, in order (the users table first when a table references it). */
  readonly names: readonly string[];
  /** Their CREATE TABLE statements; empty when nothing is missing. */
  readonly sql: string;
}

/**
 * The CREATE TABLE statements of the app's table models (and of the users table, when an
 * owned table references it) that the database lacks and that no migration file on disk
 * creates already (a pending one included), so `db new` never writes a table twice.
 */
export async function missingTables(db: Queryable, tables: readonly TableSpec[], migrationsDirectory: string): Promise<MissingTables> {
  const wanted: { name: string; sql: () => string }[] = [];
  if (tables.some((table) => table.columns.some((column) => column.references?.table === USERS_TABLE))) {
    wanted.push({ name: USERS_TABLE, sql: () => usersTableSql() });
  }
  for (const table of tables) wanted.push({ name: table.name, sql: () => createTableSql(table) });
  if (wanted.length === 0) return { names: [], sql: "" };
  const { rows } = await db.query<{ relname: string }>(
    "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relname = ANY($1::text[])",
    [wanted.map((w) => w.name)],
  );
  const present = new Set(rows.map((row) => row.relname));
  const written = readMigrations(migrationsDirectory).map((migration) => migration.sql);
  const missing = wanted.filter((w) => !present.has(w.name) && !written.some((sql) => createsTable(sql, w.name)));
  return { names: missing.map((m) => m.name), sql: missing.map((m) => m.sql()).join("\n") };
}

/** The migration's text has a `CREATE TABLE name` (quoted or not, IF NOT EXISTS or not). */
function createsTable(sql: string, name: string): boolean {
  return new RegExp(`create\\s+table\\s+(if\\s+not\\s+exists\\s+)?(public\\.)?("${name}"|${name}\\b)`, "i").test(sql);
}
