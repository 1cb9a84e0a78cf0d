import type { Request } from "../http/request.js";

/** One live WebSocket connection as a listener sees it (spec 2.19). */
export interface WsConnection {
  /** The upgrade request, with `currentUser` set by the table's `identify`. */
  readonly request: Request;
  /**
   * Resolves once the frame is written to the socket. Rejects when the client has taken no data
   * for `wsSendTimeoutMs` (it stopped reading), and on a closed or closing connection. A
   * rejected send leaves the connection open: it is the caller's cue to close it.
   */
  send(text: string): Promise<void>;
  /**
   * Queues a frame for this peer and returns at once: what a broadcast uses, so that one slow
   * peer delays nobody else. Queued frames (and `send`s) go out in call order. A peer that takes
   * nothing for `wsSendTimeoutMs`, or falls more than 4 MiB behind beyond what its socket
   * buffers (1 MiB, then the kernel's), is cut off (the socket is dropped without a closing handshake, which it could not
   * read; the listener's `close` runs). On a closed or closing connection it does nothing.
   */
  enqueue(text: string): void;
  /** Starts the closing handshake (default code 1000); messages arriving after it are dropped. */
  close(code?: number, reason?: string): void;
  /**
   * Logs a failure the listener answered itself, keeping the connection open (fw/live: an event
   * handler that threw), and returns the text the peer may be shown: in dev the cause's message;
   * in production "Something went wrong (incident <id>)", the id also on the log line, as a
   * 500 page says. Optional: a connection built outside fw's server (a test's stand-in) may lack it.
   */
  report?(what: string, cause: unknown): string;
}

/**
 * A WebSocket route's listener. The runtime reads the next message itself and calls `message`;
 * the next message is handed over only after the previous call (and its promise) finished.
 * `open` comes before the first message and `close` once, after the last. Messages that
 * arrived before the peer closed are still handed over. A call that throws or rejects is logged
 * and closes the connection with 1011; no further message is handed over.
 */
export interface WsListener {
  open?(connection: WsConnection): void | Promise<void>;
  message(connection: WsConnection, text: string): void | Promise<void>;
  close?(connection: WsConnection): void | Promise<void>;
}
