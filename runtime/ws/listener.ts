import type { Request } from "../http/request.js";

/** One live WebSocket connection as a listener sees it (spec 2.19). */
export interface WsConnection {
  /** The upgrade request, with `currentUser` set by the table's `identify`. */
  readonly request: Request;
  /** Resolves once the frame is written; rejects when the client has stalled too long. */
  send(text: string): Promise<void>;
  close(code?: number, reason?: string): void;
}

/**
 * A WebSocket route's listener. The runtime reads the next message itself and calls `message`;
 * the next message is handed over only after the previous call (and its promise) finished.
 */
export interface WsListener {
  open?(connection: WsConnection): void | Promise<void>;
  message(connection: WsConnection, text: string): void | Promise<void>;
  close?(connection: WsConnection): void | Promise<void>;
}
