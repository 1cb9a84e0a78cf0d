import type { StreamBody } from "../http/response.js";

/** What goes on the wire: status, headers as a flat [name, value, …] list, and the body (a stream: server.ts opens it when it writes). */
export interface Answer {
  readonly status: number;
  readonly headers: string[];
  /**
   * Emptied by server.ts once written: the promises that carried the answer are often old by
   * then under load, and an old promise keeps what it settled with until a major collection
   * (bench/FINDINGS.md 29). An answer is made for one request and sent once.
   */
  body: string | Uint8Array | StreamBody;
  /** Close the connection after answering (a body left unread, for one). */
  readonly close?: boolean;
  /** The pattern of the route that answered, set by dispatch once one matched: what the access log and metrics name. */
  route?: string | undefined;
}
