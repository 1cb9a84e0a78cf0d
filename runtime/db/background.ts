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

/** Work fw's own modules need beside the server (fw/files' deletions and sweep), registered when the app's table is made. */
const registered = new Set<Background>();

/**
 * Registers work every serving process of the app runs beside the app's jobs, started and
 * stopped by `DbApp` with them (fw/files does, for a table with file fields). An app never
 * wires it: the module that needs it registers it when its part of the table is made.
 */
export function addProcessBackground(background: Background): void {
  registered.add(background);
}

/**
 * The app's jobs and the work fw's modules registered, as one `Background`: prepared in turn,
 * started and stopped together. Read when prepared, so what the table registered counts.
 */
export class ProcessBackgrounds implements Background {
  constructor(private readonly app: Background | undefined) {}

  private get all(): Background[] {
    return [...(this.app === undefined ? [] : [this.app]), ...registered];
  }

  /** Whether anything runs beside the server. */
  get any(): boolean {
    return this.all.length > 0;
  }

  async prepare(context: BackgroundContext): Promise<void> {
    for (const background of this.all) await background.prepare(context);
  }

  async start(): Promise<void> {
    await Promise.all(this.all.map((background) => background.start()));
  }

  async stop(graceMs: number): Promise<void> {
    const stopped = await Promise.allSettled(this.all.map((background) => background.stop(graceMs)));
    for (const result of stopped) if (result.status === "rejected") throw result.reason;
  }

  get devRoutes(): Background["devRoutes"] {
    const app = this.app;
    return app?.devRoutes === undefined ? undefined : () => (app.devRoutes as NonNullable<Background["devRoutes"]>).call(app);
  }
}
