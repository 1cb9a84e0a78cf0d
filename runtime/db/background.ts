import type { HttpRoute } from "../routing/route.js";
import type { Database } from "./database.js";

/**
 * Work a `DbApp` runs beside its server in every serving process (fw/jobs' workers): started
 * once the database is open and migrated, stopped with the server. fw/db knows only this shape,
 * so it never loads fw/jobs; an app that has jobs passes them (`new DbApp({ jobs })`).
 */
export interface Background {
  /**
   * Gets ready on the app's database before the server listens (tables, schedules); a
   * `TypeError` (a job's bad option) stops the boot, named.
   */
  prepare(context: BackgroundContext): Promise<void>;
  /**
   * Starts the work, once the server listens: from then on the process handles SIGTERM, so a
   * stop always drains (a job started during the boot would die with it on a signal).
   */
  start(): Promise<void>;
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
