import { broadcastNamed, registerRoom, unregisterRoom, type LocalRoom } from "./fan-out.js";
import { MAX_ROOM_NAME } from "./room.js";

/**
 * Topics travel as named rooms of the core's fan-out (runtime/ws/fan-out.ts), under this prefix
 * so an app's own `new Room("posts")` never hears them (docs/guides/live.md). The topics are fw/live's
 * (a model's writes publish its topic; live pages listen) and fw/cache's (a tag is a topic): they
 * live here, in the core beside the fan-out, so neither module imports the other.
 */
export const TOPIC_ROOM_PREFIX = "fw.live:";

/** The longest topic name: its room's name must fit the fan-out's limit. */
export const MAX_TOPIC = MAX_ROOM_NAME - TOPIC_ROOM_PREFIX.length;

type Listener = (message: string | undefined) => void;

/** The live pages of this process listening to one topic: the fan-out hands it every publish. */
class TopicRoom implements LocalRoom {
  readonly listeners = new Set<Listener>();

  deliverHere(text: string): void {
    const message = messageOf(text);
    // A copy: a listener may subscribe or leave while it is told.
    for (const listener of [...this.listeners]) listener(message);
  }
}

const rooms = new Map<string, TopicRoom>();

export function checkTopic(topic: string): void {
  if (typeof topic !== "string" || topic.length === 0 || topic.length > MAX_TOPIC) {
    throw new Error(`fw/live: a topic must be 1 to ${MAX_TOPIC} characters, not ${JSON.stringify(String(topic).slice(0, 40))}.`);
  }
}

/** Calls `listener` on every publish of `topic` (here or in another process) until the returned function is called. */
export function subscribe(topic: string, listener: Listener): () => void {
  checkTopic(topic);
  const name = TOPIC_ROOM_PREFIX + topic;
  let room = rooms.get(topic);
  if (room === undefined) {
    room = new TopicRoom();
    rooms.set(topic, room);
    registerRoom(name, room);
  }
  const joined = room;
  joined.listeners.add(listener);
  return () => {
    if (!joined.listeners.delete(listener) || joined.listeners.size > 0) return;
    rooms.delete(topic);
    unregisterRoom(name, joined);
  };
}

/** Refreshes every live page listening to `topic`, here and (through the app's fan-out) in its other processes. */
export function publish(topic: string, message?: string): void {
  checkTopic(topic);
  if (message !== undefined && typeof message !== "string") throw new Error(`fw/live: publish("${topic}", message): the message must be text.`);
  broadcastNamed(TOPIC_ROOM_PREFIX + topic, JSON.stringify(message === undefined ? {} : { m: message }), undefined);
}

/** The message a publish carried; text from another process that is not one reads as none. */
function messageOf(text: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    const m = typeof parsed === "object" && parsed !== null ? (parsed as { m?: unknown }).m : undefined;
    return typeof m === "string" ? m : undefined;
  } catch {
    return undefined;
  }
}

