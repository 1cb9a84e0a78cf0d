import type { WsConnection } from "./listener.js";

/**
 * A set of connections to broadcast to, such as everyone on a chat page. `broadcast` queues
 * the text for each member (`connection.enqueue`) and returns at once, so a member that stopped
 * reading delays no sender and no other member; fw cuts that member off after
 * `wsSendTimeoutMs`. Join in the listener's `open`, leave in its `close`:
 *
 * ```ts
 * const room = new Room();
 * export const socket: WsListener = {
 *   open: (connection) => room.join(connection),
 *   message: (connection, text) => room.broadcast(text),
 *   close: (connection) => room.leave(connection),
 * };
 * ```
 */
export class Room {
  readonly #members = new Set<WsConnection>();

  /** Adds a connection; joining twice is one membership. */
  join(connection: WsConnection): void {
    this.#members.add(connection);
  }

  /** Removes a connection (a connection that is not a member is ignored). */
  leave(connection: WsConnection): void {
    this.#members.delete(connection);
  }

  /** Whether the connection is a member. */
  has(connection: WsConnection): boolean {
    return this.#members.has(connection);
  }

  /** How many connections are members. */
  get size(): number {
    return this.#members.size;
  }

  /** Queues `text` for every member (but `except`, when given), in join order; never waits. */
  broadcast(text: string, options: { readonly except?: WsConnection } = {}): void {
    for (const member of this.#members) {
      if (member !== options.except) member.enqueue(text);
    }
  }
}
