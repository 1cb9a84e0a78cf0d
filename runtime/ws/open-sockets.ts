import type { WsConnection } from "../routing/ws-listener.js";

/**
 * The open sockets of this process whose handshake named a user (`request.currentUser`, set by
 * the table's `identify`), by that user, whatever route they reached, public ones included:
 * what a sign-in mechanism reaches when a session ends (fw/auth closes a signed-out session's
 * sockets). `WsServer` keeps it as sockets open and close, so memory follows the open
 * connections; sockets of nobody are not kept.
 */
const byUser = new Map<string, Set<WsConnection>>();

/** Told of every socket that opens with a user. */
export type OpenedWatcher = (connection: WsConnection) => void;

const watchers = new Set<OpenedWatcher>();

/** @internal `WsServer`: a socket opened (its listener's `open` has been handed over). */
export function socketOpened(connection: WsConnection): void {
  const user = connection.request.currentUser;
  if (user === undefined) return;
  let sockets = byUser.get(user);
  if (sockets === undefined) byUser.set(user, (sockets = new Set()));
  sockets.add(connection);
  for (const watcher of watchers) watcher(connection);
}

/** @internal `WsServer`: a socket closed. */
export function socketClosed(connection: WsConnection): void {
  const user = connection.request.currentUser;
  if (user === undefined) return;
  const sockets = byUser.get(user);
  sockets?.delete(connection);
  if (sockets?.size === 0) byUser.delete(user);
}

/** The open sockets of this process whose handshake named `user` (a copy: closing them is safe while iterating). */
export function openSocketsOf(user: string): readonly WsConnection[] {
  const sockets = byUser.get(user);
  return sockets === undefined ? [] : [...sockets];
}

/** Calls `watcher` with every socket that opens with a user from now on; the returned function stops it. */
export function watchOpenedSockets(watcher: OpenedWatcher): () => void {
  watchers.add(watcher);
  return () => void watchers.delete(watcher);
}
