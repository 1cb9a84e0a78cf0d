import { DuplicateValue, MissingReference, StillReferenced } from "../resource/store-errors.js";
import type { Database } from "./database.js";
import { foreignKeyName, uniqueName } from "./ddl.js";
import type { ColumnSpec, TableSpec } from "./table.js";

/** What the drivers of both engines put on a failed statement's error (PostgreSQL's error fields). */
interface PgError {
  readonly code?: unknown;
  readonly detail?: unknown;
  readonly constraint?: unknown;
  readonly table?: unknown;
}

/**
 * The tables each database's stores were made for: a delete refused by another table's foreign
 * key names that table's model field (`post`), not only its column (`post_id`).
 */
const knownTables = new WeakMap<Database, Map<string, TableSpec>>();

/** The tables `db`'s stores were made for (every table model's, once the generated route module has loaded). */
export function tablesOf(db: Database): readonly TableSpec[] {
  return [...(knownTables.get(db)?.values() ?? [])];
}

/** Remembers that `table` has a store on `db` (the SqlTable constructor calls it). */
export function rememberTable(db: Database, table: TableSpec): void {
  let tables = knownTables.get(db);
  if (tables === undefined) {
    tables = new Map();
    knownTables.set(db, tables);
  }
  tables.set(table.name, table);
}

/**
 * A write's constraint violation as the store error the resource layer answers, or undefined
 * for any other error:
 * - 23505 (unique) → `DuplicateValue` naming the field, or every field of a composite unique;
 * - 23503 on an insert or update (a foreign key names no row) → `MissingReference`, the field and the key it named;
 * - 23503 on a delete (PostgreSQL up to 16), 23001 (RESTRICT, PostgreSQL 17 and PGlite) →
 *   `StillReferenced`, naming the table and field that still point at the row.
 * The constraint is found by the name fw gave it (ddl.ts), else from the error's detail.
 */
export function storeError(error: unknown, db: Database, table: TableSpec, write: { readonly delete: true; readonly key: unknown } | { readonly delete: false; readonly draft: Record<string, unknown> }): Error | undefined {
  const e = (error ?? {}) as PgError;
  const constraint = typeof e.constraint === "string" ? e.constraint : undefined;
  const detailColumns = typeof e.detail === "string" ? /^Key \(([^)]*)\)=/.exec(e.detail)?.[1]?.split(", ").map((c) => c.replace(/"/g, "")) : undefined;
  if (e.code === "23505") return duplicate(table, constraint, detailColumns);
  if (write.delete && (e.code === "23503" || e.code === "23001")) {
    const child = typeof e.table === "string" ? e.table : typeof e.detail === "string" ? /from table "([^"]+)"/.exec(e.detail)?.[1] : undefined;
    return new StillReferenced(table.name, write.key, [{ table: child ?? "another table", field: referencingField(db, child, constraint) }]);
  }
  if (!write.delete && e.code === "23503") {
    const column = table.columns.find((c) => c.references !== undefined && constraint === foreignKeyName(table.name, c.column)) ?? byColumn(table, detailColumns?.[0]);
    const field = column?.field ?? detailColumns?.[0] ?? constraint ?? "a reference";
    const key = column === undefined ? undefined : write.draft[column.field];
    return new MissingReference(table.name, field, key ?? (typeof e.detail === "string" ? /\)=\(([^)]*)\)/.exec(e.detail)?.[1] : undefined));
  }
  return undefined;
}

function duplicate(table: TableSpec, constraint: string | undefined, detailColumns: readonly string[] | undefined): DuplicateValue {
  const single = table.columns.filter((c) => c.unique === true).map((c) => [c.column]);
  const columns = [...single, ...(table.unique ?? [])].find((cs) => constraint === uniqueName(table.name, cs)) ?? detailColumns ?? [constraint ?? "a unique column"];
  const fields = columns.map((column) => byColumn(table, column)?.field ?? column);
  return new DuplicateValue(table.name, fields[0] as string, fields);
}

function byColumn(table: TableSpec, column: string | undefined): ColumnSpec | undefined {
  return column === undefined ? undefined : table.columns.find((c) => c.column === column);
}

/**
 * The model field of the other table's foreign key: found in that table's spec when it has a
 * store on the same database, else read from the column as fw names it (`blog_post_id` → `blogPost`).
 */
function referencingField(db: Database, child: string | undefined, constraint: string | undefined): string {
  const spec = child === undefined ? undefined : knownTables.get(db)?.get(child);
  const column = spec?.columns.find((c) => c.references !== undefined && constraint === foreignKeyName(spec.name, c.column));
  if (column !== undefined) return column.field;
  const name = child !== undefined && constraint?.startsWith(`${child}_`) && constraint.endsWith("_fkey") ? constraint.slice(child.length + 1, -"_fkey".length) : constraint;
  return name === undefined ? "a reference" : name.replace(/_id$/, "").replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}
