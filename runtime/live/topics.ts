import type { Draft, Store } from "../resource/store.js";
import { checkTopic, publish as publishTopic } from "../ws/topics.js";

export { subscribe, TOPIC_ROOM_PREFIX, MAX_TOPIC } from "../ws/topics.js";

/**
 * Refreshes every live page listening to `topic`, here and (through the app's fan-out) in its
 * other processes, and drops fw/cache's entries tagged with it. Declared here, where the build
 * looks for fw/live's `publish` (its topic check), over the core's topics (ws/topics.ts).
 */
export function publish(topic: string, message?: string): void {
  publishTopic(topic, message);
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
