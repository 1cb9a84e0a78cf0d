import { randomBytes } from "node:crypto";
import type { FanOut } from "../ws/fan-out.js";

/** The channel fw's room broadcasts travel on (as PostgreSQL's `fw_rooms`). */
export const REDIS_ROOMS_CHANNEL = "fw:rooms";
/**
 * The largest message (its room's name and text, framed) sent to the other processes: 16 MiB. Far
 * past NOTIFY's 8,000 bytes, and far below Redis' 512 MB: a bigger one reaches this process's
 * sockets only, and the log names its room and size.
 */
export const MAX_REDIS_MESSAGE_BYTES = 16 * 1024 * 1024;

export interface RedisFanOutOptions {
  /** `redis://[[user]:password@]host[:port][/db]`, or `rediss://…` for TLS (`FW_FANOUT`). */
  readonly url: string;
  /** Default `fw:rooms`. */
  readonly channel?: string;
  /** Default: stderr. */
  readonly log?: (line: string) => void;
  /** The first wait before reconnecting; it doubles up to 30 s. Default 250 ms. */
  readonly reconnectMs?: number;
}

/** The part of node-redis' client fw uses (typed here: its own types are generic over modules and scripts). */
interface Client {
  connect(): Promise<unknown>;
  publish(channel: string, message: string): Promise<number>;
  subscribe(channel: string, listener: (message: string) => void): Promise<void>;
  quit?(): Promise<unknown>;
  close?(): Promise<unknown>;
  destroy?(): void;
  on(event: "error" | "ready" | "end" | "reconnecting", listener: (error?: unknown) => void): unknown;
}

/**
 * Room broadcasts across processes through Redis PUBLISH/SUBSCRIBE (`FW_FANOUT=redis://…`): the
 * same `FanOut` as fw/db's PostgreSQL one, for apps whose broadcasts outgrow LISTEN/NOTIFY (which
 * serialises notifying commits and caps a payload near 8 KB), or that run no PostgreSQL.
 *
 * - **Sending**: one connection publishes, in the order sent (one connection's commands keep
 *   their order); each message carries the process's random id (its own are skipped on receipt).
 *   While Redis cannot be reached a broadcast reaches this process's sockets only (nothing is
 *   queued to flood it when it is back), and the log says so once, and once when it is back.
 * - **Receiving**: a second connection subscribes (a subscribed Redis connection takes no other
 *   command). node-redis reconnects a lost connection (after 250 ms, then doubling up to 30 s)
 *   and subscribes it again: a restarted Redis loses no subscription; what was published while
 *   it was down does not arrive.
 * - **Size**: up to 16 MiB a message.
 *
 * node-redis (`@redis/client`, Redis' own client) is loaded only when this starts.
 */
export class RedisFanOut implements FanOut {
  readonly #options: RedisFanOutOptions;
  readonly #channel: string;
  readonly #origin = randomBytes(9).toString("base64url");
  readonly #log: (line: string) => void;
  #publisher: Client | undefined;
  #subscriber: Client | undefined;
  #closed = false;
  #sendFailed = false;
  #lost = false;

  constructor(options: RedisFanOutOptions) {
    this.#options = options;
    this.#channel = options.channel ?? REDIS_ROOMS_CHANNEL;
    this.#log = options.log ?? ((line) => console.error(line));
    const url = new URL(options.url);
    if (url.protocol !== "redis:" && url.protocol !== "rediss:") throw new TypeError(`fw: a Redis fan-out needs a redis:// or rediss:// URL, not ${JSON.stringify(`${url.protocol}//…`)}`);
  }

  publish(room: string, text: string): void {
    const publisher = this.#publisher;
    if (this.#closed || publisher === undefined) return;
    const payload = JSON.stringify([this.#origin, room, text]);
    if (payload.length > MAX_REDIS_MESSAGE_BYTES / 3 && Buffer.byteLength(payload) > MAX_REDIS_MESSAGE_BYTES) {
      this.#log(`fw: a broadcast to room ${JSON.stringify(room.slice(0, 60))} is ${Buffer.byteLength(payload)} bytes with its framing, over the Redis fan-out's ${MAX_REDIS_MESSAGE_BYTES}: it reached this process's sockets only.`);
      return;
    }
    publisher.publish(this.#channel, payload).then(
      () => {
        if (this.#sendFailed) this.#log("fw: room broadcasts reach the other processes through Redis again.");
        this.#sendFailed = false;
      },
      (error: unknown) => {
        if (!this.#sendFailed && !this.#closed) this.#log(`fw: room broadcasts cannot reach the other processes through Redis (${messageOf(error)}); this process's sockets still get them.`);
        this.#sendFailed = true;
      },
    );
  }

  async start(deliver: (room: string, text: string) => void): Promise<void> {
    const { createClient } = await import("@redis/client");
    const options = {
      url: this.#options.url,
      // A broadcast while Redis is away is not queued: it would arrive late, in a burst.
      disableOfflineQueue: true,
      socket: { connectTimeout: 5_000, reconnectStrategy: (retries: number) => Math.min((this.#options.reconnectMs ?? 250) * 2 ** Math.min(retries, 10), 30_000) },
    };
    // node-redis' client type is generic over its modules and scripts; fw uses the part `Client` names.
    const publisher = createClient(options) as unknown as Client;
    const subscriber = createClient(options) as unknown as Client;
    this.#publisher = publisher;
    this.#subscriber = subscriber;
    publisher.on("error", () => undefined); // a publish's own failure is logged where it is sent
    subscriber.on("error", (error) => this.#dropped(error));
    subscriber.on("ready", () => this.#back());
    await Promise.all([publisher.connect(), subscriber.connect()]);
    await subscriber.subscribe(this.#channel, (message) => this.#received(message, deliver));
  }

  async close(): Promise<void> {
    this.#closed = true;
    const clients = [this.#publisher, this.#subscriber];
    this.#publisher = undefined;
    this.#subscriber = undefined;
    await Promise.all(
      clients.map(async (client) => {
        if (client === undefined) return;
        try {
          await (client.close ?? client.quit)?.call(client);
        } catch {
          client.destroy?.();
        }
      }),
    );
  }

  #dropped(error: unknown): void {
    if (this.#closed || this.#lost) return;
    this.#lost = true;
    this.#log(`fw: lost the Redis connection that listens for other processes' room broadcasts (${messageOf(error)}); reconnecting.`);
  }

  #back(): void {
    if (!this.#lost) return;
    this.#lost = false;
    this.#log("fw: listening for other processes' room broadcasts through Redis again (what they sent meanwhile did not reach this process's sockets).");
  }

  #received(payload: string, deliver: (room: string, text: string) => void): void {
    let message: unknown;
    try {
      message = JSON.parse(payload);
    } catch {
      return; // someone else's message on the channel
    }
    if (!Array.isArray(message) || message.length !== 3) return;
    const [origin, room, text] = message as unknown[];
    if (origin === this.#origin || typeof room !== "string" || typeof text !== "string") return;
    deliver(room, text);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message || error.name : String(error);
}
