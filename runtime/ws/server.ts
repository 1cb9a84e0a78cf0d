import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { WebSocketServer } from "ws";
import type { SessionCodec } from "../http/session-codec.js";
import { BootError } from "../routing/boot-error.js";
import { Matcher } from "../routing/matcher.js";
import { incidentId } from "../http/error-log.js";
import type { WsRoute } from "../routing/route.js";
import type { Identify } from "../routing/route-table.js";
import type { ConnectionSettings, LiveConnection } from "./connection.js";
import { admit, type Admitted, type HandshakeRules } from "./handshake.js";
import { socketClosed, socketOpened } from "./open-sockets.js";
import { openCounts } from "../observe/gauges.js";
import { OriginPolicy } from "./origin.js";

export { DEFAULT_WS_MAX_MESSAGE_BYTES, DEFAULT_WS_PING_INTERVAL_MS, DEFAULT_WS_SEND_TIMEOUT_MS } from "./defaults.js";

/** Messages that may wait for a slow listener before fw stops reading the socket. */
const QUEUE_LIMIT = 64;
/** Outgoing bytes a connection may buffer before sends wait for the client to read. */
const HIGH_WATER_BYTES = 1024 * 1024;
/** Queued (`enqueue`) text a connection may hold beyond that before it is cut off as stalled. */
const MAX_BACKLOG_CHARS = 4 * 1024 * 1024;

export interface WsServerOptions {
  /** The application's table (its WebSocket routes are looked up with `lookupWs`). */
  readonly table: Matcher;
  /**
   * fw's own sockets under `/fw`, asked before the table (spec 4.6): where the dev server's
   * `WS /fw/reload` goes.
   */
  readonly reserved?: readonly WsRoute[];
  readonly codec: SessionCodec;
  /** The table's `identify`, run on every handshake (spec 2.2). */
  readonly identify: Identify;
  /** Origins besides the application's own whose pages may connect. */
  readonly allowedOrigins: readonly string[];
  readonly trustProxy: boolean;
  readonly sendTimeoutMs: number;
  readonly pingIntervalMs: number;
  readonly maxMessageBytes: number;
  /** Logs a listener's failure (with the incident id its peer was shown, when it was shown one). */
  readonly logError: (what: string, cause: unknown, incident?: string) => void;
  /** Dev mode: a failure a listener reports (`WsConnection.report`) is shown to its peer as the cause's message. */
  readonly dev?: boolean;
}

/**
 * Serves the WebSocket routes over the `ws` package: checks each handshake, upgrades it, keeps
 * one `LiveConnection` per socket, pings them, and closes them all on shutdown.
 */
export class WsServer {
  readonly #maxMessageBytes: number;
  /** `ws` and the connection code, loaded on the first accepted handshake (see upgrader.ts). */
  #upgrader: Promise<Upgrader> | undefined;
  readonly #rules: HandshakeRules;
  readonly #settings: ConnectionSettings;
  readonly #live = new Set<LiveConnection>();
  readonly #heartbeat: NodeJS.Timeout;
  #closing = false;

  constructor(options: WsServerOptions) {
    this.#maxMessageBytes = options.maxMessageBytes;
    this.#rules = {
      reserved: new Matcher(reservedRoutes(options.reserved ?? [])),
      table: options.table,
      codec: options.codec,
      identify: options.identify,
      origins: new OriginPolicy(options.allowedOrigins),
      trustProxy: options.trustProxy,
    };
    this.#settings = {
      sendTimeoutMs: options.sendTimeoutMs,
      queueLimit: QUEUE_LIMIT,
      highWater: HIGH_WATER_BYTES,
      maxBacklog: MAX_BACKLOG_CHARS,
      logError: options.logError,
      report: (what, cause) => reported(what, cause, options),
      closed: (connection) => {
        if (this.#live.delete(connection)) openCounts.webSockets--;
        socketClosed(connection);
      },
    };
    this.#heartbeat = setInterval(() => this.#beat(), options.pingIntervalMs);
    this.#heartbeat.unref();
  }

  /** Checks a handshake before anything is upgraded; throws the failure to answer (see `admit`). */
  admit(incoming: IncomingMessage): Promise<Admitted> {
    return admit(incoming, this.#rules);
  }

  /** Upgrades an admitted handshake; ws itself answers 400 to a malformed one (bad key, version). */
  accept(incoming: IncomingMessage, socket: Duplex, head: Buffer, admitted: Admitted): void {
    if (this.#closing) {
      socket.destroy();
      return;
    }
    // Until ws takes the socket it has no error listener: a reset while ws loads must not crash.
    const dropOnError = (): void => void socket.destroy();
    socket.on("error", dropOnError);
    this.#upgrader ??= import("./upgrader.js").then((m) => ({ wss: m.socketUpgrader(this.#maxMessageBytes), Connection: m.LiveConnection }));
    this.#upgrader.then(
      ({ wss, Connection }) => {
        socket.off("error", dropOnError);
        if (this.#closing || socket.destroyed) {
          socket.destroy();
          return;
        }
        wss.handleUpgrade(incoming, socket, head, (ws) => this.#opened(new Connection(ws, admitted.route.listener, admitted.request, this.#settings)));
      },
      (cause: unknown) => {
        this.#settings.logError(`cannot load the WebSocket server (the ws package) for ${admitted.request.path}`, cause);
        socket.destroy();
      },
    );
  }

  /**
   * Sends 1001 (going away) to every open socket and resolves once all have closed; a peer that
   * has not answered the close within `graceMs` is cut off.
   */
  async close(graceMs: number): Promise<void> {
    this.#closing = true;
    clearInterval(this.#heartbeat);
    const open = [...this.#live];
    for (const connection of open) connection.goAway();
    const timer = setTimeout(() => open.forEach((connection) => connection.terminate()), graceMs);
    timer.unref();
    await Promise.all(open.map((connection) => connection.ended));
    clearTimeout(timer);
  }

  #opened(connection: LiveConnection): void {
    this.#live.add(connection);
    openCounts.webSockets++;
    socketOpened(connection);
    if (this.#closing) connection.goAway();
  }

  #beat(): void {
    for (const connection of this.#live) connection.heartbeat();
  }
}

interface Upgrader {
  readonly wss: WebSocketServer;
  readonly Connection: typeof LiveConnection;
}

/** Reserved sockets must live under `/fw`: the table owns every other path. */
function reservedRoutes(routes: readonly WsRoute[]): readonly WsRoute[] {
  for (const route of routes) {
    const first = route.path.segments[0];
    if (first?.type !== "literal" || first.value !== "fw") {
      throw new BootError(`Reserved WebSocket route ${route.path.text} must be under /fw.`);
    }
  }
  return routes;
}

/**
 * A failure a listener handled itself: logged with an incident id; the peer is told the id in
 * production, the cause's message in dev (what a 500 page shows in each mode).
 */
function reported(what: string, cause: unknown, options: WsServerOptions): string {
  const incident = incidentId();
  options.logError(what, cause, incident);
  if (options.dev !== true) return `Something went wrong (incident ${incident})`;
  return cause instanceof Error ? cause.message : String(cause);
}
