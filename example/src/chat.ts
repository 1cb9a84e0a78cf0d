import { Room } from "fw";
import { publish } from "fw/live";

/**
 * The chat's one room and one topic. A line said on the live page (`/chat`) or on the plain
 * socket (`WS /chat/socket`) goes to both: the room's sockets get it as a text frame, and every
 * live chat page (subscribed to the topic) appends it. Both travel to the app's other processes
 * the same way (on PostgreSQL, LISTEN/NOTIFY), so everyone signed in sees every line.
 */
export const room = new Room("chat");

/** The live topic chat lines are published on (its message is the line). */
export const CHAT_TOPIC = "chat";

/** The most lines a live chat page keeps (its state is bounded: older lines drop off). */
export const KEPT_LINES = 100;

/** Says `line` to everyone: the room's sockets and the live chat pages. Never waits. */
export function say(line: string): void {
  room.broadcast(line);
  publish(CHAT_TOPIC, line);
}
