import type { StreamBody } from "../http/response.js";

/** What goes on the wire: status, headers as a flat [name, value, …] list, and the body (a stream: server.ts opens it when it writes). */
export interface Answer {
  readonly status: number;
  readonly headers: string[];
  readonly body: string | Uint8Array | StreamBody;
  /** Close the connection after answering (a body left unread, for one). */
  readonly close?: boolean;
  /** The pattern of the route that answered, set by dispatch once one matched: what the access log and metrics name. */
  route?: string | undefined;
}
