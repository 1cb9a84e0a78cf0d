import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Connection, Database, QueryResult, Queryable, Row } from "./database.js";
import { loadDriver } from "./driver.js";
import { CannotOpenDatabase } from "./open-error.js";
import { lockDirectory } from "./pglite-lock.js";
import { settingParams } from "./pglite-settings.js";
import { startFromTemplate } from "./pglite-template.js";
import { TEXT_TYPES } from "./values.js";

/** The slice of PGlite fw uses, so the engine is loaded only when an app opens it. */
interface PgliteQueryable {
  query<R>(sql: string, params?: unknown[]): Promise<{ rows: R[]; affectedRows?: number }>;
  exec(sql: string): Promise<unknown>;
}
interface PgliteLike extends PgliteQueryable {
  transaction<T>(work: (tx: PgliteQueryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * The embedded engine: PostgreSQL compiled to WebAssembly, persisted to `directory` (created
 * when missing). One connection: PGlite runs a statement sent outside a transaction only after
 * the transaction ends, so transactions never interleave.
 */
export async function openPglite(directory: string, lockWaitMs?: number): Promise<Database> {
  const { PGlite } = await loadDriver("@electric-sql/pglite", () => import("@electric-sql/pglite"));
  mkdirSync(directory, { recursive: true });
  const unlock = await lockDirectory(directory, lockWaitMs);
  let pglite: PgliteLike;
  try {
    // A new database is a copy of fw's template, not initdb's slow run (pglite-template.ts).
    if (!existsSync(join(directory, "PG_VERSION"))) startFromTemplate(directory);
    // Dates and times stay text, as on the PostgreSQL engine: a model's date field is a string.
    // fw's settings come after PGlite's own start parameters, so they win (pglite-settings.ts).
    const startParams = [...PGlite.defaultStartParams, ...settingParams()];
    pglite = (await PGlite.create(directory, { parsers: TEXT_PARSERS, startParams })) as unknown as PgliteLike;
  } catch (cause) {
    unlock();
    throw new CannotOpenDatabase(
      `fw/db: could not open the embedded database in ${directory} (${cause instanceof Error ? cause.message : String(cause)}). ` +
        "Its files may be damaged: move the directory away to start empty.",
      { cause },
    );
  }
  return new PgliteDatabase(pglite, `PGlite at ${directory}`, unlock);
}

const TEXT_PARSERS: Record<number, (text: string) => string> = Object.fromEntries(TEXT_TYPES.map((oid) => [oid, (text: string) => text]));

class PgliteDatabase implements Database {
  readonly engine = "pglite" as const;

  constructor(
    private readonly pglite: PgliteLike,
    readonly description: string,
    private readonly unlock: () => void,
  ) {}

  query<R extends Row = Row>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
    return run<R>(this.pglite, sql, params);
  }

  async script(sql: string): Promise<void> {
    await this.pglite.exec(sql);
  }

  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.pglite.transaction((tx) =>
      work({
        query: <R extends Row>(sql: string, params: readonly unknown[] = []) => run<R>(tx, sql, params),
        script: async (sql: string) => void (await tx.exec(sql)),
      }),
    );
  }

  /** The one connection is every connection. */
  withConnection<T>(work: (connection: Connection) => Promise<T>): Promise<T> {
    return work(this);
  }

  async close(): Promise<void> {
    try {
      await this.pglite.close();
    } finally {
      this.unlock();
    }
  }
}

async function run<R extends Row>(target: PgliteQueryable, sql: string, params: readonly unknown[]): Promise<QueryResult<R>> {
  const result = await target.query<R>(sql, params.map((value) => value ?? null));
  return { rows: result.rows, rowCount: result.affectedRows || result.rows.length };
}
