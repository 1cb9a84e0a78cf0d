/** What goes on the wire: status, headers as a flat [name, value, …] list, and the body. */
export interface Answer {
  readonly status: number;
  readonly headers: string[];
  readonly body: string | Uint8Array;
  /** Close the connection after answering (a body left unread, for one). */
  readonly close?: boolean;
}
