import type { WsConnection, WsListener } from "fw";
import { auth } from "../../auth.js";

/** Only signed-in users may connect: nobody gets 403 at the handshake. */
export const guarded = auth.guarded();

/** Everyone connected now (all signed in: the guard saw to that). */
const room = new Set<WsConnection>();

/** Broadcasts each text message to everyone in the room, prefixed with the sender's email. */
export const socket: WsListener = {
  open(connection) {
    room.add(connection);
  },
  async message(connection, text) {
    const sender = auth.userOf(connection.request)?.email ?? `user ${connection.request.currentUser ?? "?"}`;
    await broadcast(`${sender}: ${text}`);
  },
  close(connection) {
    room.delete(connection);
  },
};

/** Sends to every peer at once; a peer whose send fails (it stopped reading) is closed. */
async function broadcast(line: string): Promise<void> {
  const peers = [...room];
  const results = await Promise.allSettled(peers.map((peer) => peer.send(line)));
  results.forEach((result, i) => {
    if (result.status === "rejected") peers[i]?.close(1013, "not reading");
  });
}
