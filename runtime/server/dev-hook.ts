import type { HttpFailure } from "../http/failure.js";
import type { Method } from "../http/method.js";
import type { Html } from "../html/node.js";
import type { HttpRoute, WsRoute } from "../routing/route.js";

/**
 * What the dev server adds to the HTTP core (spec 1, 4.6): the reload socket, the reload
 * client in every HTML page, and the page shown while the build is broken. The core knows this
 * shape only: the dev module (runtime/dev/) provides it, and the app (runtime/app/) loads that
 * module on `dev` alone and hands the hook to the server, so a production server never loads it.
 */
export interface DevHook {
  /** fw's own sockets in dev (`WS /fw/reload`), asked before the table. */
  readonly sockets: readonly WsRoute[];
  /**
   * While the supervisor reports a failed build: the problem-page content (diagnostics
   * included) to answer every HTML GET with, status 500. Undefined while the build is fine.
   */
  buildFailure(instance: string): Html | undefined;
  /**
   * Resolves when the server may listen. Under `fw dev` that is once the previous app has let
   * go of the port: the new one loads its code meanwhile, so a restart costs less.
   */
  beforeListen(): Promise<void>;
  /**
   * The HTML document with the reload client added. What it adds must not depend on the page:
   * the server hashes the inline scripts of `decorate("")` once at boot and allows them in the
   * pages' Content-Security-Policy, so the client runs under the policy production sends.
   */
  decorate(html: string): string;
  /**
   * Called once the server listens. Under `fw dev` the listing goes to the supervisor (which
   * prints it when it changed between restarts); run alone, the hook prints it through `out`.
   */
  started(url: string, listing: string, out: (text: string) => void): void;
  /** Stops listening to the supervisor, so the process can exit once the server closed. */
  close(): void;
  /**
   * A dev page that stands in front of the app while it is given (fw/db's drift page, spec
   * 4.6), or undefined. Asked per request, once the host checks passed.
   */
  standIn?(): DevStandIn | undefined;
  /** Tells every open page to reload (the stand-in went away: a Sync in another tab). */
  reloadPages?(): void;
  /**
   * Under `fw dev` only: asks the supervisor to hold the embedded database in `directory` open
   * across the app's restarts and serve it (with `holdPglite` of `module`, a file URL of the
   * app's fw/db), so a restart connects to it instead of reopening it. Resolves once it is
   * served (opening the directory then reaches it); rejects with the supervisor's reason.
   */
  holdDatabase?(directory: string, module: string): Promise<void>;
}

/**
 * What stands in front of the app: fw's own browser routes (`POST /fw/sync`, `POST /fw/freeze`),
 * the page every other browser GET and HEAD gets, and the failure every other request gets. The
 * routes and the page are browser routes like the app's: the session is read, a CSRF token
 * minted, and an unsafe method's form must return it.
 */
export interface DevStandIn {
  /** fw's own route for this method and path, asked before the app's table. */
  route(method: Method, path: string): HttpRoute | undefined;
  /** Answers every other GET and HEAD of a browser route or of no route. */
  readonly page: HttpRoute;
  /** Thrown for everything else (a form posted to the app, an API route): a problem page. */
  refusal(): HttpFailure;
}

