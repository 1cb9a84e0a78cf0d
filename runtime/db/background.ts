import type { HttpRoute } from "../routing/route.js";
import type { Database } from "./database.js";

/**
 * Work a `DbApp` runs beside its server in every serving process (fw/jobs' workers): started
 * once the database is open and migrated, stopped with the server. fw/db knows only this shape,
 * so it never loads fw/jobs; an app that has jobs passes them (`new DbApp({ jobs })`).
 */
export interface Background {
  /** Starts on the app's database; a `TypeError` (a job's bad option) stops the boot, named. */
  start(context: BackgroundContext): Promise<void>;
  /** Stops within `graceMs` (what is still running then is cut off and put back). */
  stop(graceMs: number): Promise<void>;
  /** fw's own dev pages for it (under `/fw/`), served in `dev` only. */
  devRoutes?(): Promise<readonly HttpRoute[]>;
}

export interface BackgroundContext {
  readonly database: Database;
  readonly dev: boolean;
  /** The terminal (stderr). */
  readonly log: (line: string) => void;
}
