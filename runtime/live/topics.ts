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
          publish(topic);
          return row;
        };
      case "update":
        return async (...args: Parameters<Store<A>["update"]>) => {
          const row = await target.update(...args);
          if (row !== undefined) publish(topic);
          return row;
        };
      case "delete":
        return async (key: Parameters<Store<A>["delete"]>[0]) => {
          const deleted = await target.delete(key);
          if (deleted) for (const changed of [topic, ...onDelete]) publish(changed);
          return deleted;
        };
      // The narrowed stores a store hands out (`where`, a scoped store's `for(owner)`) write to
      // the same table: their writes publish too.
      case "where":
      case "for":
        return (...args: unknown[]) => publishing(value.apply(target, args) as Store<A>, topic, onDelete);
      default:
        return value.bind(target);
    }
  }
}
