import type { BootError } from "../routing/boot-error.js";
import type { HttpRoute } from "../routing/route.js";

/**
 * An optional module that joins the app's boot and shutdown (fw/mail's `Mailer`), given to
 * `HttpApp` in `parts`. The core knows this shape only, never the module: an app that gives no
 * part loads none.
 */
export interface AppPart {
  /** The module's name, for messages ("fw/mail"). */
  readonly name: string;
  /**
   * Runs at each boot, once the route table, the secret and the origin are checked and before
   * the database opens or anything listens: the part reads its settings (throwing a
   * `BootError` that names what is missing: `context.missing`) and answers the routes of fw's
   * own it adds in this mode (its dev pages under `/fw`, marked as fw's), asked before the
   * app's table.
   */
  boot(context: AppPartContext): Promise<AppPartBoot | void> | AppPartBoot | void;
  /** Runs once the server has closed (after a failed boot too). */
  close?(): Promise<void>;
}

/** What a part is told at boot. */
export interface AppPartContext {
  /** `dev` mode (never under `NODE_ENV=production`). */
  readonly dev: boolean;
  /** The app's folder (the working directory): where `.fw/` lives. */
  readonly root: string;
  /** The configured public origin (`FW_ORIGIN`), checked; undefined when none is set. */
  readonly origin: string | undefined;
  /** The boot error for a variable the part needs and lacks: it names the variable, why, and where to set it. */
  missing(name: string, why: string, example?: string): BootError;
  /** A line on the app's error stream (a notice at boot). */
  notice(line: string): void;
}

/** What a part adds at boot. */
export interface AppPartBoot {
  /** fw's own routes (under `/fw`, marked as fw's endpoints), asked before the app's table. */
  readonly routes?: readonly HttpRoute[];
}
