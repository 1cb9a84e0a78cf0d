import { WebSocket, type RawData } from "ws";
import type { Request } from "../http/request.js";
import { Inbox } from "./inbox.js";
import type { WsConnection, WsListener } from "../routing/ws-listener.js";
import { Outbox, StalledClient, type Sink } from "./outbox.js";

/** How a connection behaves; `WsServer` fills it from the app's settings. */
export interface ConnectionSettings {
  readonly sendTimeoutMs: number;
  /** Messages that may wait for the listener before reading pauses. */
  readonly queueLimit: number;
  /** Buffered outgoing bytes above which sends wait for the client to read. */
  readonly highWater: number;
  /** Characters `enqueue` may hold behind that buffer; past it the peer is cut off as stalled. */
  readonly maxBacklog: number;
  /** Logs a listener's failure once. */
  readonly logError: (what: string, cause: unknown) => void;
  /** Logs a failure a listener handled itself and returns what its peer may be told (`WsConnection.report`). */
  readonly report: (what: string, cause: unknown) => string;
  /** Told once, when a connection's socket has closed (the server forgets it). */
  readonly closed: (connection: LiveConnection) => void;
}

/** Close codes fw sends (RFC 6455 section 7.4.1). */
export const CloseCode = {
  normal: 1000,
  goingAway: 1001,
  unsupportedData: 1003,
  internalError: 1011,
} as const;

/**
 * One accepted socket as its listener sees it. The runtime reads every message and hands it
 * over through the inbox: `open` first, then each text in order, then `close` once.
 */
export class LiveConnection implements WsConnection {
  readonly #socket: WebSocket;
  readonly #listener: WsListener;
  readonly #inbox: Inbox;
  readonly #outbox: Outbox;
  readonly #settings: ConnectionSettings;
  /** Set by a pong; a heartbeat finding it still false cuts the peer off. */
  #answered = true;
  #isClosed = false;
  /** Made when someone waits for the close (shutdown, a listener): an idle socket holds no promise. */
  #ended: { promise: Promise<void>; resolve: () => void } | undefined;

  constructor(socket: WebSocket, listener: WsListener, readonly request: Request, settings: ConnectionSettings) {
    this.#socket = socket;
    this.#listener = listener;
    this.#settings = settings;
    this.#outbox = new Outbox(new SocketSink(socket), settings.sendTimeoutMs, settings.highWater);
    this.#inbox = new Inbox(socket, settings.queueLimit, (cause) => {
      settings.logError(`WebSocket listener on ${request.path} threw`, cause);
      this.#closeWith(CloseCode.internalError, "internal error");
    });
    this.#listen();
    this.#inbox.push(() => listener.open?.(this));
  }

  #listen(): void {
    const socket = this.#socket;
    // ws reports a peer's protocol errors (oversized or invalid UTF-8 message, bad frame) here
    // and already closes with the fitting code (1009, 1007, 1002); they are the client's fault,
    // so nothing is logged, but the listener must exist or the process would crash.
    socket.on("error", ignore);
    socket.on("message", (data, isBinary) => this.#received(data, isBinary));
    socket.on("pong", () => {
      this.#answered = true;
    });
    socket.once("close", () => this.#closed());
  }

  send(text: string): Promise<void> {
    return this.#outbox.send(text);
  }

  enqueue(text: string): void {
    if (this.#isClosed || this.#socket.readyState !== WebSocket.OPEN) return;
    // Fire and forget has no back-pressure, so the backlog is capped: a peer this far behind
    // (beyond what ws and the kernel already buffer) is as good as stalled.
    if (this.#outbox.backlog > 0 && this.#outbox.backlog + text.length > this.#settings.maxBacklog) {
      this.#cutOff();
      return;
    }
    this.#outbox.send(text).catch((error: unknown) => {
      if (error instanceof StalledClient) this.#cutOff();
      // ConnectionClosed: the peer is gone, and its close was handled where it happened.
    });
  }

  close(code: number = CloseCode.normal, reason = ""): void {
    this.#closeWith(code, reason);
  }

  report(what: string, cause: unknown): string {
    return this.#settings.report(what, cause);
  }

  /** Resolves once the socket has closed, whoever closed it. */
  get ended(): Promise<void> {
    if (this.#isClosed) return Promise.resolve();
    if (this.#ended === undefined) {
      let resolve!: () => void;
      const promise = new Promise<void>((done) => (resolve = done));
      this.#ended = { promise, resolve };
    }
    return this.#ended.promise;
  }

  /**
   * One heartbeat: cuts the peer off when it did not answer the previous ping, else pings.
   * While reading is paused for a slow listener the pong cannot be read, so that is not taken
   * as a dead peer.
   */
  heartbeat(): void {
    if (!this.#answered && !this.#inbox.paused) {
      this.#socket.terminate();
      return;
    }
    this.#answered = false;
    this.#socket.ping();
  }

  /** Server shutdown: 1001, as RFC 6455 asks of a server going down. */
  goAway(): void {
    this.#closeWith(CloseCode.goingAway, "server shutting down");
  }

  /**
   * Drops a peer that stopped reading: a close frame could not reach it (it would wait behind
   * the unsent data until ws gives up, 30 s later), so the socket is destroyed at once and the
   * listener's `close` runs now.
   */
  #cutOff(): void {
    this.#socket.terminate();
  }

  /** Drops the socket without a closing handshake (a peer that does not answer the close). */
  terminate(): void {
    this.#socket.terminate();
  }

  #received(data: RawData, isBinary: boolean): void {
    // Messages after fw or the listener started closing are not handed over.
    if (this.#socket.readyState !== WebSocket.OPEN) return;
    if (isBinary) {
      this.#closeWith(CloseCode.unsupportedData, "text frames only");
      return;
    }
    const text = textOf(data);
    this.#inbox.push(() => this.#listener.message(this, text));
  }

  #closeWith(code: number, reason: string): void {
    // Reading may be paused for a slow listener; the peer's close frame must still be read.
    this.#socket.resume();
    this.#socket.close(code, fitReason(reason));
  }

  #closed(): void {
    this.#isClosed = true;
    this.#outbox.close();
    this.#inbox.end(() => this.#listener.close?.(this));
    this.#settings.closed(this);
    this.#ended?.resolve();
  }
}

/** ws's error events, which need a listener and nothing else (see `#listen`). */
function ignore(): void {}

/** The outbox's view of a ws socket (one small object per socket, its methods shared). */
class SocketSink implements Sink {
  constructor(private readonly socket: WebSocket) {}

  get open(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }

  get bufferedAmount(): number {
    return this.socket.bufferedAmount;
  }

  send(text: string, done: (error?: Error | null) => void): void {
    this.socket.send(text, done);
  }
}

/** A text message's bytes as a string; ws has checked them as UTF-8 already. */
function textOf(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return (Buffer.isBuffer(data) ? data : Buffer.from(data)).toString("utf8");
}

/** A close frame's reason holds at most 123 bytes (RFC 6455 5.5): a longer one is cut, with "…". */
function fitReason(text: string): string {
  const bytes = Buffer.from(text);
  return bytes.length <= 123 ? text : `${bytes.subarray(0, 120).toString("utf8").replace(/\uFFFD$/, "")}…`;
}
