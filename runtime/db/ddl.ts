import { quoteIdentifier as q } from "./identifier.js";
import { checkTable, VERSION_COLUMN, type ColumnSpec, type TableSpec } from "./table.js";

/**
 * The comment fw puts on a model's table: the drift page proposes to drop a table only when it
 * carries it and no model declares the table any more (never a table a migration made by hand).
 */
export const MODEL_TABLE_COMMENT = "fw/db: the table of a model";

/**
 * The statements that create a model's table: what `db new` puts in a first migration and the
 * tests create. The key is `bigint generated always as identity` (never reused, never written
 * by a client); an owner column references the users table (a user who still owns rows cannot
 * be deleted: ON DELETE RESTRICT) and is indexed, since owned pages list by owner.
 */
export function createTableSql(table: TableSpec): string {
  checkTable(table);
  const lines = [
    `  ${q(table.key.column)} bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY`,
    ...table.columns.map((column) => `  ${columnSql(column)}`),
    `  ${q(VERSION_COLUMN)} integer NOT NULL DEFAULT 1`,
  ];
  const statements = [`CREATE TABLE ${q(table.name)} (\n${lines.join(",\n")}\n);`, `COMMENT ON TABLE ${q(table.name)} IS '${MODEL_TABLE_COMMENT}';`];
  for (const column of table.columns) {
    if (column.references !== undefined) {
      statements.push(ownerIndexSql(table.name, column.column));
    }
  }
  return statements.join("\n") + "\n";
}

/** A column's definition as CREATE TABLE and ADD COLUMN write it: name, type, NOT NULL, UNIQUE, REFERENCES. */
export function columnSql(column: ColumnSpec): string {
  const parts = [q(column.column), columnType(column)];
  if (!column.nullable) parts.push("NOT NULL");
  if (column.unique === true) parts.push("UNIQUE");
  if (column.references !== undefined) parts.push(`REFERENCES ${q(column.references.table)} (${q(column.references.column)}) ON DELETE RESTRICT`);
  return parts.join(" ");
}

/** The column's SQL type: its `type`, or `varchar(n)` for a text column with a maximum length. */
export function columnType(column: ColumnSpec): string {
  return column.maxLength === undefined ? column.type : `varchar(${column.maxLength})`;
}

/** The index an owner (foreign key) column gets: owned pages list by owner. */
export function ownerIndexSql(table: string, column: string): string {
  return `CREATE INDEX ${q(`${table}_${column}_idx`)} ON ${q(table)} (${q(column)});`;
}
