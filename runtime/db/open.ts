import { resolve } from "node:path";
import type { Database } from "./database.js";
import { openPglite } from "./pglite-engine.js";
import { openPostgres } from "./postgres-engine.js";

/** Where the embedded database lives, under the app's working directory (git-ignored with `.fw/`). */
export const DEFAULT_DB_DIRECTORY = ".fw/db";

export interface OpenOptions {
  /** A `postgres://` URL. Default: `DATABASE_URL` from the environment; when neither is set, the embedded engine. */
  readonly url?: string;
  /** The embedded database's directory. Default `.fw/db` under `cwd`. */
  readonly directory?: string;
  /** Default: the process's working directory. */
  readonly cwd?: string;
  /** Default: `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Where outage notices go. Default: stderr. */
  readonly log?: (line: string) => void;
}

/**
 * Opens the app's database: PostgreSQL when a URL is given or `DATABASE_URL` is set (an
 * unreachable server throws `DatabaseUnreachable`, naming `DATABASE_URL`), else the embedded
 * PGlite engine persisted under `.fw/db`. Each engine's driver is loaded only when used.
 */
export async function openDatabase(options: OpenOptions = {}): Promise<Database> {
  const env = options.env ?? process.env;
  const url = options.url ?? nonEmpty(env["DATABASE_URL"]);
  if (url !== undefined) return openPostgres({ url, ...(options.log === undefined ? {} : { log: options.log }) });
  const cwd = options.cwd ?? process.cwd();
  return openPglite(resolve(cwd, options.directory ?? DEFAULT_DB_DIRECTORY));
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}
