import { deserialize, serialize } from "node:v8";

/**
 * What a client of a served PGlite (pglite-served.ts) and the process serving it
 * (pglite-host.ts) say to each other over a local socket: one frame per message, a 4-byte length
 * then the message as Node's structured-clone serialization (`node:v8`), so the values of
 * parameters and rows (numbers, bigints, byte arrays, JSON objects, …) arrive as PGlite gave
 * or takes them. Requests carry an id; each gets one reply with the same id, in any order.
 */
export type Request =
  /** A statement, outside a transaction or inside the client's transaction `tx`. */
  | { readonly id: number; readonly op: "query"; readonly sql: string; readonly params: readonly unknown[]; readonly tx?: number }
  /** A script of statements without parameters. */
  | { readonly id: number; readonly op: "exec"; readonly sql: string; readonly tx?: number }
  /** Starts a transaction (once PGlite ends the one running): the reply is its number. */
  | { readonly id: number; readonly op: "begin" }
  /** Commits (or rolls back) the client's transaction `tx`. */
  | { readonly id: number; readonly op: "end"; readonly tx: number; readonly commit: boolean }
  /** Until `release`, no other client starts a statement (replied once granted). */
  | { readonly id: number; readonly op: "lease" }
  | { readonly id: number; readonly op: "release" };

export type Reply = { readonly id: number; readonly ok: unknown } | { readonly id: number; readonly error: WireError };

/** A failed statement's error: its message and PostgreSQL's fields (code, detail, constraint, table …). */
export interface WireError {
  readonly message: string;
  readonly fields: Readonly<Record<string, string | number | boolean>>;
}

/** A query's result as fw reads it (pglite-engine.ts). */
export interface WireResult {
  readonly rows: unknown[];
  readonly affectedRows?: number;
}

export function frame(message: Request | Reply): Buffer {
  const body = serialize(message);
  const head = Buffer.allocUnsafe(4);
  head.writeUInt32BE(body.length);
  return Buffer.concat([head, body]);
}

/** Cuts a byte stream back into the messages `frame` made. */
export class FrameReader {
  #pending: Buffer = Buffer.alloc(0);

  /** The messages completed by `chunk`. */
  push(chunk: Buffer): unknown[] {
    this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    const messages: unknown[] = [];
    while (this.#pending.length >= 4) {
      const length = this.#pending.readUInt32BE(0);
      if (this.#pending.length < 4 + length) break;
      messages.push(deserialize(this.#pending.subarray(4, 4 + length)));
      this.#pending = this.#pending.subarray(4 + length);
    }
    return messages;
  }
}

/** An error as it crosses the socket: the message and the fields fw reads, not the stack. */
export function toWireError(error: unknown): WireError {
  if (!(error instanceof Error)) return { message: String(error), fields: {} };
  const fields: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(error)) {
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") fields[key] = value;
  }
  return { message: error.message, fields };
}

/** The client's error for a statement the serving process reported failed: the same message and fields, thrown where the client asked. */
export function fromWireError(wire: WireError): Error {
  return Object.assign(new Error(wire.message), wire.fields);
}

export function isRequest(value: unknown): value is Request {
  if (typeof value !== "object" || value === null) return false;
  const r = value as Record<string, unknown>;
  if (typeof r["id"] !== "number") return false;
  const tx = r["tx"] === undefined || typeof r["tx"] === "number";
  switch (r["op"]) {
    case "query":
      return typeof r["sql"] === "string" && Array.isArray(r["params"]) && tx;
    case "exec":
      return typeof r["sql"] === "string" && tx;
    case "end":
      return typeof r["tx"] === "number" && typeof r["commit"] === "boolean";
    case "begin":
    case "lease":
    case "release":
      return true;
    default:
      return false;
  }
}

export function isReply(value: unknown): value is Reply {
  if (typeof value !== "object" || value === null) return false;
  const r = value as Record<string, unknown>;
  return typeof r["id"] === "number" && ("ok" in r || (typeof r["error"] === "object" && r["error"] !== null));
}
