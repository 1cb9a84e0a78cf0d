import { Route, type WsRoute } from "../routing/route.js";
import type { WsConnection } from "../routing/ws-listener.js";

/** Where the reload client connects (spec 4.6: dev only, asked before the table). */
export const RELOAD_PATH = "/fw/reload";

/** The one message the server sends on the reload socket. */
export const RELOAD = "reload";

/**
 * The dev server's reload sockets: `WS /fw/reload`, and a broadcast of `reload` to every open
 * one. Each server process has a boot id that the pages it serves carry; a socket opened with
 * another boot's id (`?boot=…`) is told `reload` at once: its page came from a server that has
 * since been replaced, so its content may be stale even if the client missed the restart.
 */
export class ReloadHub {
  readonly #open = new Set<WsConnection>();
  readonly route: WsRoute;

  constructor(readonly boot: string) {
    this.route = Route.ws(
      RELOAD_PATH,
      {
        open: (connection) => this.#opened(connection),
        // The client has nothing to say; anything it sends is ignored.
        message: () => {},
        close: (connection) => {
          this.#open.delete(connection);
        },
      },
      { source: "fw dev (reload socket)" },
    );
  }

  /** Sends `reload` to every open socket; one that cannot take it is closed (it will reconnect). */
  reload(): void {
    for (const connection of this.#open) tell(connection);
  }

  /** How many reload sockets are open. */
  get size(): number {
    return this.#open.size;
  }

  #opened(connection: WsConnection): void {
    this.#open.add(connection);
    const seen = bootAsked(connection);
    if (seen !== undefined && seen !== this.boot) tell(connection);
  }
}

function tell(connection: WsConnection): void {
  connection.send(RELOAD).catch(() => connection.close());
}

function bootAsked(connection: WsConnection): string | undefined {
  try {
    return connection.request.query.get("boot");
  } catch {
    return undefined; // a malformed query names no boot
  }
}
