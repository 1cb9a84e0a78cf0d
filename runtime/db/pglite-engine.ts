import { mkdirSync } from "node:fs";
import type { Connection, Database, QueryResult, Queryable, Row } from "./database.js";
import { loadDriver } from "./driver.js";
import { withValues } from "./faults.js";
import { CannotOpenDatabase } from "./open-error.js";
import { durableStart } from "./pglite-durability.js";
import { lockDirectory } from "./pglite-lock.js";
import { TEXT_TYPES } from "./values.js";

/** The slice of PGlite fw uses, so the engine is loaded only when an app opens it. */
export interface PgliteQueryable {
  query<R>(sql: string, params?: unknown[]): Promise<{ rows: R[]; affectedRows?: number }>;
  exec(sql: string): Promise<unknown>;
}
export interface PgliteLike extends PgliteQueryable {
  transaction<T>(work: (tx: PgliteQueryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /**
   * A PGlite another process holds and serves (pglite-served.ts): runs `work` while no other
   * client of that process starts a statement, so a sequence of statements that relies on its
   * session (a migrator's advisory lock) is not shared with them. Absent on PGlite itself.
   */
  lease?<T>(work: () => Promise<T>): Promise<T>;
}

export interface PgliteOptions {
  /**
   * Every commit reaches the disk before it is reported done (fsync), so a crash of the machine
   * loses no committed write (pglite-durability.ts). Off: PGlite's own default, several times
   * faster per write, for dev and tests, whose data may be lost.
   */
  readonly durable: boolean;
  /** How long to wait for another process to let go of the directory. */
  readonly lockWaitMs?: number;
}

/**
 * The embedded engine: PostgreSQL compiled to WebAssembly, persisted to `directory` (created
 * when missing). One connection: PGlite runs a statement sent outside a transaction only after
 * the transaction ends, so transactions never interleave.
 */
export async function openPglite(directory: string, options: PgliteOptions): Promise<Database> {
  const { pglite, unlock } = await startPglite(directory, options);
  return new PgliteDatabase(pglite, `PGlite at ${directory}`, unlock);
}

/**
 * PGlite itself on `directory`, its lock taken: what `openPglite` wraps, and what `fw dev`'s
 * supervisor holds and serves to the app processes (pglite-host.ts). `unlock` lets go of the lock.
 */
export async function startPglite(directory: string, options: PgliteOptions): Promise<{ readonly pglite: PgliteLike; readonly unlock: () => void }> {
  const { PGlite } = await loadDriver("@electric-sql/pglite", () => import("@electric-sql/pglite"));
  mkdirSync(directory, { recursive: true });
  const durable = options.durable ? await durableStart(PGlite, directory) : undefined;
  const unlock = await lockDirectory(directory, options.lockWaitMs);
  let pglite: PgliteLike;
  try {
    // Dates and times stay text, as on the PostgreSQL engine: a model's date field is a string.
    // A durable start mounts the directory through a file system of its own, which names it.
    const created = durable === undefined ? PGlite.create(directory, { parsers: TEXT_PARSERS }) : PGlite.create({ parsers: TEXT_PARSERS, ...durable });
    pglite = (await created) as unknown as PgliteLike;
  } catch (cause) {
    unlock();
    throw new CannotOpenDatabase(
      `fw/db: could not open the embedded database in ${directory} (${cause instanceof Error ? cause.message : String(cause)}). ` +
        "Its files may be damaged: move the directory away to start empty.",
      { cause },
    );
  }
  return { pglite, unlock };
}

const TEXT_PARSERS: Record<number, (text: string) => string> = Object.fromEntries(TEXT_TYPES.map((oid) => [oid, (text: string) => text]));

/** fw's `Database` over a PGlite: this process's own, or one another process serves (pglite-served.ts). */
export class PgliteDatabase implements Database {
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

  /** The one connection is every connection (held for `work` alone when another process serves it). */
  withConnection<T>(work: (connection: Connection) => Promise<T>): Promise<T> {
    return this.pglite.lease === undefined ? work(this) : this.pglite.lease(() => work(this));
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
  const result = await withValues(params, () => target.query<R>(sql, params.map((value) => value ?? null)));
  return { rows: result.rows, rowCount: result.affectedRows || result.rows.length };
}
