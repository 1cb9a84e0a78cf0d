import type { WsConnection, WsListener } from "../routing/ws-listener.js";
import { SESSION_ID_ENTRY } from "./session-user.js";

/** The close code a socket of a signed-out session gets (1008, policy violation). */
export const SIGNED_OUT_CODE = 1008;

/**
 * The open sockets of signed-in users in this process, by user and session, so that signing
 * out (one session, or everywhere), a password change or a deletion closes them. Memory follows
 * the open connections: a socket is forgotten when it closes. Another process's sockets are not
 * reached (docs/security.md).
 */
export class LiveSockets {
  /** user key → connection → its session id. */
  private readonly byUser = new Map<string, Map<WsConnection, string>>();

  /**
   * `listener` with its connections registered while open. `stillSignedIn` is asked once the
   * socket is registered (a sign-out between the handshake and now must not be missed); a socket
   * that fails it is closed (1008) and the app's listener hears no message from it.
   *
   * The app's `open` runs at once, not after that check: the check is a users-store round trip
   * (a database query with fw/db), and a client that saw its handshake answered must already be
   * in the app's rooms — a message broadcast after its `open` event must reach it. The
   * handshake itself has just asked the users store; the check only covers a sign-out that
   * lands in between, and closes such a socket within one round trip.
   */
  track(listener: WsListener, stillSignedIn: (connection: WsConnection) => Promise<boolean>): WsListener {
    const admitted = new WeakSet<WsConnection>();
    const tracked: WsListener = {
      open: async (connection) => {
        this.add(connection);
        admitted.add(connection);
        const checked = stillSignedIn(connection).then((signedIn) => {
          if (signedIn) return;
          admitted.delete(connection);
          connection.close(SIGNED_OUT_CODE, "signed out");
        });
        await listener.open?.(connection);
        // The socket's own messages wait (its inbox runs one job at a time) until it passed.
        await checked;
      },
      message: (connection, text) => (admitted.has(connection) ? listener.message(connection, text) : undefined),
      close: async (connection) => {
        this.remove(connection);
        await listener.close?.(connection);
      },
    };
    return tracked;
  }

  /** Closes the sockets of one session of the user. */
  closeSession(user: string, sessionId: string): void {
    for (const [connection, held] of this.byUser.get(user) ?? []) if (held === sessionId) connection.close(SIGNED_OUT_CODE, "signed out");
  }

  /** Closes every socket of the user. */
  closeUser(user: string): void {
    for (const connection of this.byUser.get(user)?.keys() ?? []) connection.close(SIGNED_OUT_CODE, "signed out");
  }

  /** How many sockets are registered (tests). */
  get size(): number {
    let count = 0;
    for (const connections of this.byUser.values()) count += connections.size;
    return count;
  }

  private add(connection: WsConnection): void {
    const user = connection.request.currentUser;
    if (user === undefined) return;
    const connections = this.byUser.get(user) ?? new Map<WsConnection, string>();
    connections.set(connection, connection.request.session.get(SESSION_ID_ENTRY) ?? "");
    this.byUser.set(user, connections);
  }

  private remove(connection: WsConnection): void {
    const user = connection.request.currentUser;
    if (user === undefined) return;
    const connections = this.byUser.get(user);
    connections?.delete(connection);
    if (connections?.size === 0) this.byUser.delete(user);
  }
}
