import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { Connection, Database } from "./database.js";

/** Where an app keeps its migrations, relative to its working directory. */
export const MIGRATIONS_DIRECTORY = "db/migrations";
/** `0001_create_posts.sql`: four digits, an underscore, a name of lowercase letters, digits and _. */
const FILE_NAME = /^(\d{4})_([a-z0-9_]+)\.sql$/;
/** The advisory lock every migrator takes on PostgreSQL, so two processes never migrate at once. */
const LOCK_KEY = 0x66_77_64_62; // "fwdb"

const CREATE_LEDGER = `CREATE TABLE IF NOT EXISTS fw_migrations (
  name text PRIMARY KEY,
  checksum text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

/** One migration file. */
export interface Migration {
  /** The file name without `.sql`: `0001_create_posts`. */
  readonly name: string;
  readonly path: string;
  /** What `migrate` runs: the file's text above its `-- fw:down` line (all of it without one). */
  readonly sql: string;
  /** What `rollback` runs: the text below the `-- fw:down` line; undefined when the file has none. */
  readonly down?: string;
  /** sha256 of the up part (a down may still be fixed once the migration is applied). */
  readonly checksum: string;
}

/**
 * The line that starts a migration's down (issue 43): what `db rollback` runs to undo the text
 * above it. `db new` writes it; a file without one cannot be rolled back.
 */
export const DOWN_MARKER = "-- fw:down";
const DOWN_LINE = /^-- fw:down\b.*$/m;

/** A migration file's up and down: split at its first `-- fw:down` line. */
export function splitMigration(text: string): { readonly up: string; readonly down?: string } {
  const match = DOWN_LINE.exec(text);
  if (match === null) return { up: text };
  return { up: text.slice(0, match.index), down: text.slice(match.index + match[0].length) };
}

/** Whether SQL holds a statement, not only comments and blank lines. */
export function holdsStatements(sql: string): boolean {
  return sql.split("\n").some((line) => line.trim() !== "" && !line.trim().startsWith("--"));
}

export interface MigrationStatus {
  /** Recorded in `fw_migrations`, in order. */
  readonly applied: readonly string[];
  /** On disk and not recorded yet, in the order `migrate` would apply them. */
  readonly pending: readonly string[];
}

/** A migration that cannot be applied (or an applied one that was changed): nothing more is applied. */
export class MigrationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "MigrationError";
  }
}

/**
 * The app's migrations in order. Refuses a `.sql` file whose name does not follow
 * `NNNN_name.sql` and two files with the same number, naming them.
 */
export function readMigrations(directory: string): Migration[] {
  if (!existsSync(directory)) return [];
  const files = readdirSync(directory).filter((file) => file.endsWith(".sql")).sort();
  const numbers = new Map<string, string>();
  return files.map((file) => {
    const match = FILE_NAME.exec(file);
    const path = join(directory, file);
    if (match === null) {
      throw new MigrationError(`fw/db: the migration ${path} is not named NNNN_name.sql (four digits, _, lowercase letters, digits and _). Rename it.`);
    }
    const other = numbers.get(match[1] as string);
    if (other !== undefined) throw new MigrationError(`fw/db: the migrations ${other} and ${file} share the number ${match[1]}. Renumber one.`);
    numbers.set(match[1] as string, file);
    const { up, down } = splitMigration(readFileSync(path, "utf8"));
    return { name: file.slice(0, -4), path, sql: up, ...(down === undefined ? {} : { down }), checksum: checksumOf(up) };
  });
}

export function checksumOf(sql: string): string {
  return createHash("sha256").update(sql).digest("hex");
}

/**
 * Applies the pending migrations in order, each in its own transaction with its record in
 * `fw_migrations`, so a failed one leaves nothing half-applied and is not recorded (the error
 * names it; the ones before it stay applied). Refuses to run at all when an applied migration's
 * file was edited (its checksum differs) or deleted. On PostgreSQL an advisory lock makes
 * concurrent migrators wait for each other; the second then finds nothing to do.
 * @returns the names applied by this call.
 */
export async function migrate(db: Database, directory: string): Promise<string[]> {
  const migrations = readMigrations(directory);
  return serialised(db, async (connection) => {
    const recorded = await ledger(connection);
    checkApplied(migrations, recorded, directory);
    const done: string[] = [];
    for (const migration of migrations) {
      if (recorded.has(migration.name)) continue;
      await apply(connection, migration);
      done.push(migration.name);
    }
    return done;
  });
}

/**
 * Undoes the last `steps` applied migrations (1 by default), newest first, each by its down in
 * its own transaction with its record removed from `fw_migrations`, so a failed down leaves that
 * migration applied (the error names it; those undone before it stay undone). Refuses before
 * undoing anything when one of them has no down (no `-- fw:down` line, or one with no statement
 * under an up that has some), or when an applied migration's file was edited or deleted.
 * @returns the names undone by this call, newest first.
 */
export async function rollback(db: Database, directory: string, steps = 1): Promise<string[]> {
  if (!Number.isInteger(steps) || steps < 1) throw new MigrationError(`fw/db: db rollback undoes a whole number of migrations from 1, not ${JSON.stringify(steps)}.`);
  const migrations = readMigrations(directory);
  return serialised(db, async (connection) => {
    const recorded = await ledger(connection);
    checkApplied(migrations, recorded, directory);
    const undone = migrations.filter((m) => recorded.has(m.name)).reverse().slice(0, steps);
    const stuck = undone.find((m) => !canRollBack(m));
    if (stuck !== undefined) {
      throw new MigrationError(
        `fw/db: the migration ${relative(process.cwd(), stuck.path) || stuck.path} has no down (${stuck.down === undefined ? `no \`${DOWN_MARKER}\` line` : `no statement under its \`${DOWN_MARKER}\` line`}), so it cannot be rolled back; nothing was. ` +
          `Write the SQL that undoes it under a \`${DOWN_MARKER}\` line at its end (editing the down of an applied migration is allowed).`,
      );
    }
    for (const migration of undone) await applyDown(connection, migration);
    return undone.map((m) => m.name);
  });
}

/** A migration can be rolled back when it has a down, holding a statement if its up holds one. */
export function canRollBack(migration: Migration): boolean {
  return migration.down !== undefined && (holdsStatements(migration.down) || !holdsStatements(migration.sql));
}

async function applyDown(connection: Connection, migration: Migration): Promise<void> {
  try {
    await connection.transaction(async (tx) => {
      if (holdsStatements(migration.down ?? "")) await tx.script(migration.down ?? "");
      await tx.query("DELETE FROM fw_migrations WHERE name = $1", [migration.name]);
    });
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new MigrationError(`fw/db: the down of ${migration.path} failed and was rolled back (the migration stays applied): ${reason}`, { cause });
  }
}

/** What is applied and what is pending, after the same checks `migrate` makes. */
export async function migrationStatus(db: Database, directory: string): Promise<MigrationStatus> {
  const migrations = readMigrations(directory);
  const recorded = await db.withConnection((connection) => ledger(connection));
  checkApplied(migrations, recorded, directory);
  return { applied: [...recorded.keys()].sort(), pending: migrations.filter((m) => !recorded.has(m.name)).map((m) => m.name) };
}

/**
 * Writes the next numbered migration file and returns its path: `body` (the up), then the
 * `-- fw:down` line and `down`, what `db rollback` runs to undo it.
 */
export function newMigration(directory: string, name: string, body = "", down = ""): string {
  const slug = name.trim().toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "");
  if (slug === "") throw new MigrationError(`fw/db: a migration needs a name of letters or digits, not ${JSON.stringify(name)}.`);
  mkdirSync(directory, { recursive: true });
  const last = readMigrations(directory).at(-1);
  const next = last === undefined ? 1 : Number(last.name.slice(0, 4)) + 1;
  if (next > 9999) throw new MigrationError(`fw/db: ${directory} already holds migration 9999; squash the old ones first.`);
  const path = join(directory, `${String(next).padStart(4, "0")}_${slug}.sql`);
  const up = `-- ${slug.replace(/_/g, " ")}: applied once, in a transaction, by \`db migrate\`. Never edit it once applied: add a new migration.\n${body}`;
  const undo = `\n${DOWN_MARKER}: what \`db rollback\` runs, in a transaction, to undo the above (this part may be edited after it is applied).\n${down}`;
  writeFileSync(path, `${up}${undo}`, { flag: "wx" });
  return path;
}

async function ledger(connection: Connection): Promise<Map<string, string>> {
  try {
    await connection.query(CREATE_LEDGER);
  } catch (error) {
    // Processes booting at once each check the status, which takes no lock: two CREATE TABLE IF
    // NOT EXISTS can collide in PostgreSQL's catalog (23505, 42P07, or 42710 "type … already exists"). The other one made it.
    const code = (error as { code?: unknown }).code;
    if (code !== "23505" && code !== "42P07" && code !== "42710") throw error;
  }
  const { rows } = await connection.query<{ name: string; checksum: string }>("SELECT name, checksum FROM fw_migrations ORDER BY name");
  return new Map(rows.map((row) => [row.name, row.checksum]));
}

function checkApplied(migrations: readonly Migration[], recorded: ReadonlyMap<string, string>, directory: string): void {
  const onDisk = new Map(migrations.map((m) => [m.name, m]));
  for (const [name, checksum] of recorded) {
    const migration = onDisk.get(name);
    if (migration === undefined) {
      throw new MigrationError(`fw/db: the applied migration ${name} is no longer in ${relative(process.cwd(), directory) || directory}. Restore the file: applied migrations are never removed.`);
    }
    if (migration.checksum !== checksum) {
      throw new MigrationError(
        `fw/db: the migration ${relative(process.cwd(), migration.path) || migration.path} was edited after it was applied (its checksum changed). ` +
          "Restore it as it was and put the change in a new migration (db new NAME).",
      );
    }
  }
}

async function apply(connection: Connection, migration: Migration): Promise<void> {
  try {
    await connection.transaction(async (tx) => {
      await tx.script(migration.sql);
      await tx.query("INSERT INTO fw_migrations (name, checksum) VALUES ($1, $2)", [migration.name, migration.checksum]);
    });
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new MigrationError(`fw/db: the migration ${migration.path} failed and was rolled back (nothing of it is applied): ${reason}`, { cause });
  }
}

/** One migrator at a time: an advisory lock across processes, a queue within this one. */
const queues = new WeakMap<Database, Promise<unknown>>();

function serialised<T>(db: Database, work: (connection: Connection) => Promise<T>): Promise<T> {
  const before = queues.get(db) ?? Promise.resolve();
  const run = before.catch(() => undefined).then(() =>
    db.withConnection(async (connection) => {
      await connection.query("SELECT pg_advisory_lock($1)", [LOCK_KEY]);
      try {
        return await work(connection);
      } finally {
        await connection.query("SELECT pg_advisory_unlock($1)", [LOCK_KEY]).catch(() => undefined);
      }
    }),
  );
  queues.set(db, run);
  return run;
}
