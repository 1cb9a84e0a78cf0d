import { broadcastNamed, registerRoom, unregisterRoom, type LocalRoom } from "./fan-out.js";
import type { WsConnection } from "../routing/ws-listener.js";

/** The longest room name: names travel with every cross-process message. */
export const MAX_ROOM_NAME = 200;

/**
 * A set of connections to broadcast to, such as everyone on a chat page. `broadcast` queues
 * the text for each member (`connection.enqueue`) and returns at once, so a member that stopped
 * reading delays no sender and no other member; fw cuts that member off after
 * `wsSendTimeoutMs`. Join in the listener's `open`, leave in its `close`:
 *
 * ```ts
 * const room = new Room("chat");
 * export const socket: WsListener = {
 *   open: (connection) => room.join(connection),
 *   message: (connection, text) => room.broadcast(text),
 *   close: (connection) => room.leave(connection),
 * };
 * ```
 *
 * A **named** room is one room across the app's processes: with a fan-out installed (`HttpApp`'s
 * `fanOut`; fw/db's `DbApp` on PostgreSQL installs LISTEN/NOTIFY), a broadcast also reaches the
 * members of the rooms of that name in every other process (and of that name in this one). An
 * unnamed room (`new Room()`) reaches this process's members only.
 */
export class Room implements LocalRoom {
  readonly #members = new Set<WsConnection>();
  /** The name shared across processes; undefined for a room of this process alone. */
  readonly name: string | undefined;

  constructor(name?: string) {
    if (name !== undefined && (name.length === 0 || name.length > MAX_ROOM_NAME)) {
      throw new Error(`Room: a room's name must be 1 to ${MAX_ROOM_NAME} characters, not ${name.length} (${JSON.stringify(name.slice(0, 40))}).`);
    }
    this.name = name;
  }

  /** Adds a connection; joining twice is one membership. */
  join(connection: WsConnection): void {
    this.#members.add(connection);
    if (this.name !== undefined && this.#members.size === 1) registerRoom(this.name, this);
  }

  /** Removes a connection (a connection that is not a member is ignored). */
  leave(connection: WsConnection): void {
    if (this.#members.delete(connection) && this.name !== undefined && this.#members.size === 0) unregisterRoom(this.name, this);
  }

  /** Whether the connection is a member. */
  has(connection: WsConnection): boolean {
    return this.#members.has(connection);
  }

  /** How many connections are members (in this process). */
  get size(): number {
    return this.#members.size;
  }

  /**
   * Queues `text` for every member (but `except`, when given), in join order; never waits. A
   * named room also hands it to the other processes' rooms of that name (all their members).
   */
  broadcast(text: string, options: { readonly except?: WsConnection } = {}): void {
    if (this.name === undefined) this.deliverHere(text, options.except);
    else broadcastNamed(this.name, text, options.except);
  }

  /** @internal Queues `text` for this process's members but `except`. */
  deliverHere(text: string, except?: unknown): void {
    for (const member of this.#members) {
      if (member !== except) member.enqueue(text);
    }
  }
}
