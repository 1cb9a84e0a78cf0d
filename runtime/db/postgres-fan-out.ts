import { randomBytes } from "node:crypto";
import type { Client } from "pg";
import type { FanOut } from "../ws/fan-out.js";
import type { Queryable } from "./database.js";
import { quoteIdentifier } from "./identifier.js";

/**
 * NOTIFY's payload must be shorter than 8000 bytes (PostgreSQL's default build). A broadcast
 * whose message (with the room's name and a few bytes of framing) is longer reaches this
 * process's sockets only, and the log says so.
 */
export const MAX_NOTIFY_PAYLOAD_BYTES = 7999;
/** The channel fw's room broadcasts travel on. */
export const ROOMS_CHANNEL = "fw_rooms";
/** Messages sent by one NOTIFY statement at most (one round trip for a burst of broadcasts). */
const BATCH = 100;

export interface PostgresFanOutOptions {
  /** The `postgres://` URL the listening connection opens (the app's `DATABASE_URL`). */
  readonly url: string;
  /** Where NOTIFY statements go: the app's database (its pool). */
  readonly database: Queryable;
  /** Default `fw_rooms`. */
  readonly channel?: string;
  /** Default: stderr. */
  readonly log?: (line: string) => void;
  /** The first wait before reconnecting a lost listening connection; it doubles up to 30 s. Default 250 ms. */
  readonly reconnectMs?: number;
}

/**
 * Room broadcasts across processes through PostgreSQL LISTEN/NOTIFY (fw/db's `FanOut`).
 *
 * - **Sending**: each broadcast is queued and sent with `pg_notify` through the app's pool,
 *   one statement at a time (a burst goes as one statement of up to 100), so one process's
 *   messages reach the others in the order sent. Each carries the process's random id and a
 *   sequence number (PostgreSQL folds identical payloads within one statement into one).
 * - **Receiving**: one dedicated connection per process LISTENs (a pooled one would be handed
 *   to requests); messages from this process are skipped (its own sockets had them already).
 *   A lost connection is reopened, first after 250 ms, then twice as long each time up to 30 s;
 *   what others broadcast meanwhile does not reach this process (the log says when it is
 *   lost and when it is back).
 * - **Size**: a payload of 8000 bytes or more (NOTIFY's limit) is not sent: the room's members
 *   in this process get it, the log names the room and the size.
 */
export class PostgresFanOut implements FanOut {
  readonly #options: PostgresFanOutOptions;
  readonly #channel: string;
  readonly #origin = randomBytes(9).toString("base64url");
  readonly #log: (line: string) => void;
  #sequence = 0;
  #queue: string[] = [];
  #flushing: Promise<void> | undefined;
  #deliver: ((room: string, text: string) => void) | undefined;
  #client: Client | undefined;
  #retryMs: number;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  #lost = false;
  #sendFailed = false;

  constructor(options: PostgresFanOutOptions) {
    this.#options = options;
    this.#channel = options.channel ?? ROOMS_CHANNEL;
    quoteIdentifier(this.#channel);
    this.#log = options.log ?? ((line) => console.error(line));
    this.#retryMs = options.reconnectMs ?? 250;
  }

  publish(room: string, text: string): void {
    if (this.#closed) return;
    const payload = JSON.stringify([this.#origin, this.#sequence++, room, text]);
    const bytes = Buffer.byteLength(payload);
    if (bytes > MAX_NOTIFY_PAYLOAD_BYTES) {
      this.#log(
        `fw/db: a broadcast to room ${JSON.stringify(room.slice(0, 60))} is ${bytes} bytes with its framing, over PostgreSQL NOTIFY's limit of ${MAX_NOTIFY_PAYLOAD_BYTES}: ` +
          "it reached this process's sockets only. Keep room messages under about 7,900 bytes (or lower wsMaxMessageBytes).",
      );
      return;
    }
    this.#queue.push(payload);
    this.#flushing ??= this.#flush().finally(() => (this.#flushing = undefined));
  }

  async start(deliver: (room: string, text: string) => void): Promise<void> {
    this.#deliver = deliver;
    await this.#connect();
  }

  async close(): Promise<void> {
    await this.#flushing;
    this.#closed = true;
    clearTimeout(this.#timer);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  /** Sends what is queued, in order, a batch per statement. */
  async #flush(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, BATCH);
      try {
        // unnest yields the array in order, and pg_notify queues in call order.
        await this.#options.database.query("SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS m(payload)", [this.#channel, batch]);
        if (this.#sendFailed) this.#log("fw/db: room broadcasts reach the other processes again.");
        this.#sendFailed = false;
      } catch (error) {
        if (!this.#sendFailed) this.#log(`fw/db: room broadcasts cannot reach the other processes (${messageOf(error)}); this process's sockets still get them.`);
        this.#sendFailed = true;
      }
    }
  }

  async #connect(): Promise<void> {
    if (this.#closed) return;
    const pg = (await import("pg")).default;
    const client = new pg.Client({ connectionString: this.#options.url, connectionTimeoutMillis: 5_000 });
    this.#client = client;
    client.on("notification", (message) => this.#received(message.payload));
    client.on("error", (error) => this.#dropped(client, error));
    client.on("end", () => this.#dropped(client, new Error("the connection ended")));
    try {
      await client.connect();
      await client.query(`LISTEN ${quoteIdentifier(this.#channel)}`);
      if (this.#closed) await client.end();
    } catch (error) {
      this.#dropped(client, error);
      return;
    }
    this.#retryMs = this.#options.reconnectMs ?? 250;
    if (this.#lost) this.#log("fw/db: listening for other processes' room broadcasts again (what they sent meanwhile did not reach this process's sockets).");
    this.#lost = false;
  }

  #dropped(client: Client, cause: unknown): void {
    if (this.#closed || client !== this.#client) return;
    this.#client = undefined;
    client.removeAllListeners("end");
    client.on("error", () => undefined);
    void client.end().catch(() => undefined);
    if (!this.#lost) this.#log(`fw/db: lost the connection that listens for other processes' room broadcasts (${messageOf(cause)}); reconnecting.`);
    this.#lost = true;
    const wait = this.#retryMs;
    this.#retryMs = Math.min(this.#retryMs * 2, 30_000);
    this.#timer = setTimeout(() => void this.#connect(), wait);
    this.#timer.unref();
  }

  #received(payload: string | undefined): void {
    let message: unknown;
    try {
      message = JSON.parse(payload ?? "");
    } catch {
      return; // someone else's NOTIFY on the channel
    }
    if (!Array.isArray(message) || message.length !== 4) return;
    const [origin, , room, text] = message as unknown[];
    if (origin === this.#origin || typeof room !== "string" || typeof text !== "string") return;
    this.#deliver?.(room, text);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message || error.name : String(error);
}
