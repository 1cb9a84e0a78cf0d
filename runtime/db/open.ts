import { resolve } from "node:path";
import type { Connection, Database, QueryResult, Queryable, Row } from "./database.js";
import { pgliteCompilerOf } from "./pglite-compiler.js";
import { openPglite } from "./pglite-engine.js";
import { servedPglite } from "./pglite-served.js";
import { openPostgres, redactUrl } from "./postgres-engine.js";
import { preparesStatements } from "./statement-names.js";

/** Where the embedded database lives, under the app's working directory (git-ignored with `.fw/`). */
export const DEFAULT_DB_DIRECTORY = ".fw/db";

/**
 * A `DATABASE_URL` that names an embedded database instead of a server: `pglite:` followed by
 * its directory (absolute, or relative to the working directory), e.g. `pglite:.fw/db-test`
 * (`pglite:` alone: the app's own directory).
 * Like a server URL, it wins over the app's own `directory`: whoever runs the app chooses.
 */
export const PGLITE_URL_SCHEME = "pglite:";

export interface OpenOptions {
  /**
   * The database: a `postgres://` URL, or `pglite:DIR` for the embedded engine in DIR. Default:
   * `DATABASE_URL` from the environment; when neither is set, the embedded engine in `directory`.
   */
  readonly url?: string;
  /** The embedded database's directory (`DATABASE_URL=pglite:DIR` overrides it). Default `.fw/db` under `cwd`. */
  readonly directory?: string;
  /** Default: the process's working directory. */
  readonly cwd?: string;
  /** Default: `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Where outage notices go. Default: stderr. */
  readonly log?: (line: string) => void;
  /**
   * The embedded engine only: every commit is on disk (fsync) before it is reported done, so a
   * crash of the machine loses no committed write. Default true; `DbApp` turns it off for
   * `dev` unless it is given here. False is PGlite's own default, several times faster per
   * write (docs/guides/database.md, "Durability"), for data that may be lost.
   */
  readonly durable?: boolean;
}

type Target = { readonly engine: "postgres"; readonly url: string } | { readonly engine: "pglite"; readonly directory: string };

function targetOf(options: OpenOptions): Target {
  const env = options.env ?? process.env;
  const url = options.url ?? nonEmpty(env["DATABASE_URL"]);
  const cwd = options.cwd ?? process.cwd();
  if (url?.startsWith(PGLITE_URL_SCHEME)) {
    const directory = url.slice(PGLITE_URL_SCHEME.length).replace(/^\/\/(?=\/)/, "");
    // `pglite:` alone is the app's own embedded directory.
    return { engine: "pglite", directory: resolve(cwd, directory.trim() === "" ? (options.directory ?? DEFAULT_DB_DIRECTORY) : directory) };
  }
  if (url !== undefined) return { engine: "postgres", url };
  return { engine: "pglite", directory: resolve(cwd, options.directory ?? DEFAULT_DB_DIRECTORY) };
}

/**
 * Opens the app's database: PostgreSQL when a URL is given or `DATABASE_URL` is set (an
 * unreachable server throws `DatabaseUnreachable`, naming `DATABASE_URL`), else the embedded
 * PGlite engine persisted under `.fw/db` (reached through the process that holds and serves it,
 * `fw dev`, while one does). Each engine's driver is loaded only when used.
 */
export async function openDatabase(options: OpenOptions = {}): Promise<Database> {
  const target = targetOf(options);
  if (target.engine === "postgres") {
    // A bad FW_PG_PREPARE is named as such before any connection is tried.
    const prepare = preparesStatements(options.env ?? process.env);
    return openPostgres({ url: target.url, prepare, ...(options.log === undefined ? {} : { log: options.log }) });
  }
  // Held by another process that serves it (fw dev): reached through it, not refused its lock.
  // The compiler first: a bad FW_PGLITE_COMPILER is named as such, not as a database that would not open.
  const compiler = pgliteCompilerOf(options.env ?? process.env);
  return (await servedPglite(target.directory)) ?? openPglite(target.directory, { durable: options.durable ?? true, compiler });
}

/**
 * The app's database as a value made at once (for the stores the route table is built with)
 * and opened on first use, or by `open()` at boot, so a bad `DATABASE_URL` stops the boot.
 */
export function appDatabase(options: OpenOptions = {}): AppDatabase {
  return new AppDatabase(options);
}

export class AppDatabase implements Database {
  readonly engine: Database["engine"];
  readonly description: string;
  private opened: Promise<Database> | undefined;
  /** The database `opened` resolved to, while it stays open: statements go to it without another `await`. */
  private ready: Database | undefined;
  private options: OpenOptions;

  constructor(options: OpenOptions) {
    this.options = options;
    const target = targetOf(options);
    this.engine = target.engine;
    this.description = target.engine === "postgres" ? `PostgreSQL at ${redactUrl(target.url)}` : `PGlite at ${target.directory}`;
  }

  /** @internal The PostgreSQL URL (password included) for a connection of fw's own; undefined on PGlite. */
  get postgresUrl(): string | undefined {
    const target = targetOf(this.options);
    return target.engine === "postgres" ? target.url : undefined;
  }

  /**
   * @internal `dev`: the embedded database skips fsync (PGlite's default), unless the app chose
   * `durable`. Decides only an open still to come.
   */
  relaxDurability(): void {
    if (this.options.durable === undefined) this.options = { ...this.options, durable: false };
  }

  /** @internal The embedded database's directory (absolute); undefined on PostgreSQL. */
  get pgliteDirectory(): string | undefined {
    const target = targetOf(this.options);
    return target.engine === "pglite" ? target.directory : undefined;
  }

  /** Opens the database once; a failed open is tried again on the next call. */
  open(): Promise<Database> {
    if (this.opened === undefined) {
      const opening: Promise<Database> = openDatabase(this.options).then(
        (database) => {
          if (this.opened === opening) this.ready = database;
          return database;
        },
        (error: unknown) => {
          if (this.opened === opening) this.opened = undefined;
          throw error;
        },
      );
      this.opened = opening;
    }
    return this.opened;
  }

  /** Not `async`: once open, a statement costs no promise of this layer (every page's statements come through here). */
  query<R extends Row = Row>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
    const ready = this.ready;
    return ready !== undefined ? ready.query<R>(sql, params) : this.open().then((database) => database.query<R>(sql, params));
  }

  async script(sql: string): Promise<void> {
    return (await this.open()).script(sql);
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return (await this.open()).transaction(work);
  }

  async withConnection<T>(work: (connection: Connection) => Promise<T>): Promise<T> {
    return (await this.open()).withConnection(work);
  }

  /** Closes it if it was opened. */
  async close(): Promise<void> {
    const opened = this.opened;
    this.opened = undefined;
    this.ready = undefined;
    if (opened !== undefined) await (await opened).close();
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}
