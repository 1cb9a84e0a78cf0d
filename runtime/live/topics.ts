import type { Draft, Store } from "../resource/store.js";
import { broadcastNamed, registerRoom, unregisterRoom, type LocalRoom } from "../ws/fan-out.js";
import { MAX_ROOM_NAME } from "../ws/room.js";

/**
 * Topics travel as named rooms of the core's fan-out (runtime/ws/fan-out.ts), under this prefix
 * so an app's own `new Room("posts")` never hears them (docs/guides/live.md).
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

function checkTopic(topic: string): void {
  if (typeof topic !== "string" || topic.length === 0 || topic.length > MAX_TOPIC) {
    throw new Error(`fw/live: a topic must be 1 to ${MAX_TOPIC} characters, not ${JSON.stringify(String(topic).slice(0, 40))}.`);
  }
}

/** @internal Calls `listener` on every publish of `topic` (here or in another process) until the returned function is called. */
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

/**
 * `store`, publishing `topic` after every insert, update and delete it makes (the build wraps each
 * model's store so in an app with live pages: topic = the model's path name, `posts`). A write
 * that changed nothing (an update or delete of a missing row) publishes nothing; one that threw
 * publishes nothing. A narrowed store (`where`, `for(owner)`) publishes too. A delete also
 * publishes `onDelete`: the topics of the models whose rows it deletes or changes through their
 * references (`cascade`, `set null`), which the build lists.
 */
export function publishing<A, S extends Store<A> = Store<A>>(store: S, topic: string, onDelete: readonly string[] = []): S {
  checkTopic(topic);
  onDelete.forEach(checkTopic);
  return publishingBy(store, topic, onDelete, (changed) => publish(changed));
}

/**
 * `publishing`, telling each change through `send`: at once, or for the store a write joined to a
 * transaction (`within`, fw/admin's audited writes), once that transaction commits, so a live
 * page never reads the rows before the change is theirs to read.
 */
function publishingBy<A, S extends Store<A>>(store: S, topic: string, onDelete: readonly string[], send: (topic: string) => void): S {
  // A proxy, not a copy: a store's other members (a scoped store's `for`, a class's own
  // methods) and its identity checks keep working; only the writes, `where` and `for` are wrapped.
  // Each method is wrapped (or bound to the store) once, not on every call: reads go through
  // here on every request.
  const wrapped = new Map<PropertyKey, { readonly of: unknown; readonly as: unknown }>();
  return new Proxy(store, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if (typeof value !== "function") return value;
      const known = wrapped.get(name);
      if (known?.of === value) return known.as;
      const as = wrap(target, name, value as (...args: unknown[]) => unknown);
      wrapped.set(name, { of: value, as });
      return as;
    },
  });

  function wrap(target: S, name: PropertyKey, value: (...args: unknown[]) => unknown): unknown {
    switch (name) {
      case "insert":
        return async (draft: Draft<A>) => {
          const row = await target.insert(draft);
          send(topic);
          return row;
        };
      case "update":
        return async (...args: Parameters<Store<A>["update"]>) => {
          const row = await target.update(...args);
          if (row !== undefined) send(topic);
          return row;
        };
      case "delete":
        return async (key: Parameters<Store<A>["delete"]>[0]) => {
          const deleted = await target.delete(key);
          if (deleted) for (const changed of [topic, ...onDelete]) send(changed);
          return deleted;
        };
      // The narrowed stores a store hands out (`where`, a scoped store's `for(owner)`) write to
      // the same table: their writes publish too.
      case "where":
      case "for":
        return (...args: unknown[]) => publishingBy(value.apply(target, args) as Store<A>, topic, onDelete, send);
      // The store joined to a transaction (a database store's `within`): its changes are told once it commits.
      case "within":
        return (joined: unknown) => {
          const inner = value.call(target, joined) as Store<A> | undefined;
          const later = (joined as { afterCommit?: (work: () => void) => void } | undefined)?.afterCommit;
          if (inner === undefined || typeof later !== "function") return inner;
          return publishingBy(inner, topic, onDelete, (changed) => later.call(joined, () => send(changed)));
        };
      default:
        return value.bind(target);
    }
  }
}
