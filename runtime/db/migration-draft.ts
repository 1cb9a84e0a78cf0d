import { relative } from "node:path";
import type { Database } from "./database.js";
import { MigrationError, migrationStatus, readMigrations } from "./migrations.js";
import { schemaDrift, type SchemaDrift } from "./schema-diff.js";
import type { TableSpec } from "./table.js";

/** Thrown inside the trial transaction to roll it back once the drift is read. */
const ROLL_BACK = Symbol("roll back");

/**
 * What `db new` writes for the app's table models: the changes between the models and the
 * database as the pending migrations (on disk, not applied yet) will leave it, so a change a
 * pending migration already makes is not written twice. The pending migrations are run in a
 * transaction that is always rolled back (PostgreSQL's DDL is transactional, on both engines):
 * nothing is applied. A new required column on a table with rows comes as SQL that stops the
 * migration until the value those rows get is written in (see `schemaDrift`).
 */
export async function migrationDraft(db: Database, tables: readonly TableSpec[], directory: string): Promise<SchemaDrift> {
  const { pending } = await migrationStatus(db, directory);
  if (pending.length === 0) return schemaDrift(db, tables);
  const migrations = readMigrations(directory).filter((migration) => pending.includes(migration.name));
  let drift: SchemaDrift | undefined;
  try {
    await db.transaction(async (tx) => {
      for (const migration of migrations) {
        try {
          await tx.script(migration.sql);
        } catch (cause) {
          const reason = cause instanceof Error ? cause.message : String(cause);
          throw new MigrationError(
            `fw/db: db new compares the models with the database as the pending migrations leave it, and the pending migration ${relative(process.cwd(), migration.path) || migration.path} fails: ${reason}. ` +
              "Fix or finish it first (nothing was applied).",
            { cause },
          );
        }
      }
      drift = await schemaDrift(tx, tables);
      throw ROLL_BACK;
    });
  } catch (error) {
    if (error !== ROLL_BACK) throw error;
  }
  return drift as SchemaDrift;
}
