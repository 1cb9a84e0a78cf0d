import { quoteIdentifier as q } from "./identifier.js";
import { checkTable, VERSION_COLUMN, type ColumnSpec, type TableSpec } from "./table.js";

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
  const statements = [`CREATE TABLE ${q(table.name)} (\n${lines.join(",\n")}\n);`];
  for (const column of table.columns) {
    if (column.references !== undefined) {
      statements.push(`CREATE INDEX ${q(`${table.name}_${column.column}_idx`)} ON ${q(table.name)} (${q(column.column)});`);
    }
  }
  return statements.join("\n") + "\n";
}

function columnSql(column: ColumnSpec): string {
  const type = column.maxLength === undefined ? column.type : `varchar(${column.maxLength})`;
  const parts = [q(column.column), type];
  if (!column.nullable) parts.push("NOT NULL");
  if (column.unique === true) parts.push("UNIQUE");
  if (column.references !== undefined) parts.push(`REFERENCES ${q(column.references.table)} (${q(column.references.column)}) ON DELETE RESTRICT`);
  return parts.join(" ");
}
