import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { watched } from "../observe/statements.js";
import type { Connection, Database, QueryResult, Queryable, Row } from "./database.js";
import { loadDriver } from "./driver.js";
import { withValues } from "./faults.js";
import { CannotOpenDatabase } from "./open-error.js";
import { durableStart } from "./pglite-durability.js";
import type { PgliteApi } from "./pglite-api-database.js";
import { startWith, type PgliteCompiler } from "./pglite-compiler.js";
import { lockDirectory } from "./pglite-lock.js";
import { PgliteSession, type ErrorFactory, type PgliteWire } from "./pglite-session.js";
import { settingParams } from "./pglite-settings.js";
import { startFromTemplate } from "./pglite-template.js";
import { INT8, parseInt8, TEXT_TYPES } from "./values.js";

/**
 * The slice of PGlite fw uses, so the engine is loaded only when an app opens it: its protocol
 * (this process's driver, pglite-session.ts) and its own API (what `fw dev` serves, pglite-host.ts).
 */
export interface PgliteLike extends PgliteWire, PgliteApi {
  close(): Promise<void>;
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
  /**
   * V8's compilers for the engine's WebAssembly (pglite-compiler.ts): `baseline` (Liftoff alone,
   * ~70 MB less resident) or `optimizing` (V8's default, faster statements). Decided by the first
   * engine a process starts: PGlite compiles its module once per process.
   */
  readonly compiler: PgliteCompiler;
}

/**
 * The embedded engine: PostgreSQL compiled to WebAssembly, persisted to `directory` (created
 * when missing). One connection: PGlite runs a statement sent outside a transaction only after
 * the transaction ends, so transactions never interleave.
 */
export async function openPglite(directory: string, options: PgliteOptions): Promise<Database> {
  const { pglite, unlock, errorOf } = await startPglite(directory, options);
  return new PgliteDatabase(pglite, new PgliteSession(pglite, errorOf), `PGlite at ${directory}`, unlock);
}

/**
 * PGlite itself on `directory`, its lock taken, started from fw's template and with fw's
 * settings: what `openPglite` drives, and what `fw dev`'s supervisor holds and serves to the
 * app processes through PGlite's own API (pglite-host.ts). `unlock` lets go of the lock.
 */
export async function startPglite(directory: string, options: PgliteOptions): Promise<{ readonly pglite: PgliteLike; readonly unlock: () => void; readonly errorOf: ErrorFactory }> {
  const { PGlite, messages } = await loadDriver("@electric-sql/pglite", () => import("@electric-sql/pglite"));
  mkdirSync(directory, { recursive: true });
  const durable = options.durable ? await durableStart(PGlite, directory) : undefined;
  const unlock = await lockDirectory(directory, options.lockWaitMs);
  try {
    // A new database is a copy of fw's template, not initdb's slow run (pglite-template.ts).
    if (!existsSync(join(directory, "PG_VERSION"))) startFromTemplate(directory, options.durable);
    // Dates and times stay text, as on the PostgreSQL engine: a model's date field is a string (PARSERS).
    // fw's settings come after the start parameters (PGlite's own, or the durable start's), so they win (pglite-settings.ts).
    const startParams = [...(durable?.startParams ?? PGlite.defaultStartParams), ...settingParams()];
    // A durable start mounts the directory through a file system of its own, which names it.
    // PGlite compiles its WebAssembly module in `create` (pglite-compiler.ts).
    const created = startWith(options.compiler, () =>
      durable === undefined ? PGlite.create(directory, { parsers: PARSERS, startParams }) : PGlite.create({ parsers: PARSERS, ...durable, startParams }),
    );
    const pglite = (await created) as unknown as PgliteLike;
    return { pglite, unlock, errorOf: databaseError(messages.DatabaseError) };
  } catch (cause) {
    unlock();
    throw new CannotOpenDatabase(
      `fw/db: could not open the embedded database in ${directory} (${cause instanceof Error ? cause.message : String(cause)}). ` +
        "Its files may be damaged: move the directory away to start empty.",
      { cause },
    );
  }
}

/**
 * fw's parsers over PGlite's own: dates stay text; int8 is read as on PostgreSQL (values.ts),
 * the same values as PGlite's, without a BigInt made for every key of a page.
 */
const PARSERS: Record<number, (text: string) => unknown> = { ...Object.fromEntries(TEXT_TYPES.map((oid) => [oid, (text: string) => text])), [INT8]: parseInt8 };

/** PGlite's error class (its constructor's shape), so a failed statement rejects as under `PGlite.query`. */
type DatabaseErrorClass = new (message: string, length: number, name: "error") => Error;

/** Errors as PGlite makes them: its DatabaseError, with every field of the engine's ErrorResponse and the statement. */
function databaseError(DatabaseError: DatabaseErrorClass): ErrorFactory {
  return (fields, sql) =>
    Object.assign(new DatabaseError(fields["M"] ?? "the embedded database failed without a message", 0, "error"), {
      severity: fields["S"],
      code: fields["C"],
      detail: fields["D"],
      hint: fields["H"],
      position: fields["P"],
      internalPosition: fields["p"],
      internalQuery: fields["q"],
      where: fields["W"],
      schema: fields["s"],
      table: fields["t"],
      column: fields["c"],
      dataType: fields["d"],
      constraint: fields["n"],
      file: fields["F"],
      line: fields["L"],
      routine: fields["R"],
      query: sql,
    });
}

/**
 * One connection, so one thing at a time: a statement, or a transaction and all of its
 * statements; a statement sent outside a running transaction waits for it to end (as under
 * PGlite's own `query` and `transaction`).
 */
class PgliteDatabase implements Database {
  readonly engine = "pglite" as const;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly pglite: PgliteLike,
    private readonly session: PgliteSession,
    readonly description: string,
    private readonly unlock: () => void,
  ) {}

  /** Runs `work` once everything sent before it is done. */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const running = this.queue.then(work);
    this.queue = running.catch(() => undefined);
    return running;
  }

  query<R extends Row = Row>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
    return this.exclusive(() => watched(sql, "pglite", () => withValues(params, () => this.session.query<R>(sql, params))));
  }

  script(sql: string): Promise<void> {
    return this.exclusive(() => this.session.script(sql));
  }

  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      let open = true;
      const ended = (): Promise<never> => Promise.reject(new Error("fw/db: a statement was sent through a transaction that has ended"));
      const tx: Queryable = {
        query: <R extends Row>(sql: string, params: readonly unknown[] = []) => (open ? watched(sql, "pglite", () => withValues(params, () => this.session.query<R>(sql, params))) : ended()),
        script: (sql: string) => (open ? this.session.script(sql) : ended()),
      };
      await this.session.script("BEGIN");
      try {
        const result = await work(tx);
        await this.session.script("COMMIT");
        return result;
      } catch (error) {
        await this.session.script("ROLLBACK").catch(() => undefined);
        throw error;
      } finally {
        open = false;
      }
    });
  }

  /** The one connection is every connection. */
  withConnection<T>(work: (connection: Connection) => Promise<T>): Promise<T> {
    return work(this);
  }

  close(): Promise<void> {
    return this.exclusive(async () => {
      try {
        await this.pglite.close();
      } finally {
        this.unlock();
      }
    });
  }
}
