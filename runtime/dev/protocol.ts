/**
 * What `fw dev` (the supervisor) and the app it runs say to each other over Node's IPC
 * channel. Every message carries `fw: "dev"`, so neither side mistakes another tool's messages
 * (a test runner's worker channel, say) for these.
 */

/** Set to "1" by `fw dev` in the app's environment: only then does the app use the channel. */
export const SUPERVISED_ENV = "FW_DEV_SUPERVISED";

/** One compiler diagnostic, as tsc printed it. */
export interface BuildDiagnostic {
  /** Relative to the project, as tsc printed it; absent for a diagnostic about no file. */
  readonly file?: string;
  readonly line?: number;
  readonly column?: number;
  /** `TS2322`, `TS91002`, … */
  readonly code: string;
  readonly category: "error" | "warning";
  /** The whole message, continuation lines included. */
  readonly message: string;
}

/** Supervisor → app. */
export type ToApp =
  /** The last build failed: show these on every HTML GET, and reload the open pages. */
  | { readonly fw: "dev"; readonly type: "build-failed"; readonly diagnostics: readonly BuildDiagnostic[] }
  /** A build succeeded without changing the code this app loaded: serve again, reload the pages. */
  | { readonly fw: "dev"; readonly type: "build-fixed" }
  /** The previous app is gone: listen now (the answer to `loaded`). */
  | { readonly fw: "dev"; readonly type: "listen" }
  /**
   * The answer to `hold-database`: the supervisor holds the embedded database in `directory`
   * and serves it (opening the directory reaches it), or could not (`error` says why).
   */
  | { readonly fw: "dev"; readonly type: "database-held"; readonly directory: string; readonly error?: string };

/** App → supervisor. */
export type ToSupervisor =
  /**
   * The app's code is loaded and it waits for `listen`: a restart starts the new app while the
   * old one still serves, and hands the port over only once the new one is ready to take it.
   */
  | { readonly fw: "dev"; readonly type: "loaded" }
  /**
   * The app uses the embedded database in `directory` (absolute): the supervisor opens it, once,
   * with `holdPglite` of `module` (the file URL of the app's own fw/db pglite-host.js, so the
   * database is opened by the PGlite the app was built against) and keeps it open across the
   * app's restarts, so a restart does not reopen it.
   */
  | { readonly fw: "dev"; readonly type: "hold-database"; readonly directory: string; readonly module: string }
  /** The app listens. */
  | {
      readonly fw: "dev";
      readonly type: "ready";
      readonly url: string;
      /** The `routes` table, so the supervisor can print it when it changed. */
      readonly listing: string;
    };

/** A message from the supervisor, checked field by field: IPC carries whatever was sent. */
export function isToApp(value: unknown): value is ToApp {
  if (!isDevMessage(value)) return false;
  if (value["type"] === "build-fixed" || value["type"] === "listen") return true;
  if (value["type"] === "database-held") return typeof value["directory"] === "string" && (value["error"] === undefined || typeof value["error"] === "string");
  return value["type"] === "build-failed" && Array.isArray(value["diagnostics"]);
}

/** A message from the app. */
export function isToSupervisor(value: unknown): value is ToSupervisor {
  if (!isDevMessage(value)) return false;
  if (value["type"] === "loaded") return true;
  if (value["type"] === "hold-database") return typeof value["directory"] === "string" && typeof value["module"] === "string";
  return value["type"] === "ready" && typeof value["url"] === "string" && typeof value["listing"] === "string";
}

function isDevMessage(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && (value as Record<string, unknown>)["fw"] === "dev";
}
