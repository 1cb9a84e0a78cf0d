import type { WsListener } from "fw";
import { auth } from "../../auth.js";
import { room, say } from "../../chat.js";

/** Only signed-in users may connect: nobody gets 403 at the handshake. */
export const guarded = auth.guarded();

/**
 * Broadcasts each text message to everyone in the room, prefixed with the sender's email, and
 * to the live chat pages (`say`, src/chat.ts). The room is named: on PostgreSQL a broadcast
 * reaches its sockets in every app process (LISTEN/NOTIFY, README "Deploying and scaling"); on
 * the embedded database there is one process, and the room is that process's. The room queues
 * the line for each peer and returns at once: a peer that stopped reading delays nobody, and fw
 * cuts it off after the send timeout.
 */
export const socket: WsListener = {
  open(connection) {
    room.join(connection);
  },
  async message(connection, text) {
    // Read once per socket (its handshake's read), not once per message.
    const sender = (await auth.userOf(connection.request))?.email ?? `user ${connection.request.currentUser ?? "?"}`;
    say(`${sender}: ${text}`);
  },
  close(connection) {
    room.leave(connection);
  },
};
