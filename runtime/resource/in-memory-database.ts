import { InMemoryStore } from "./in-memory-store.js";
import type { ModelSpec } from "./model.js";
import type { Store } from "./store.js";

/**
 * The in-memory engine's "database": every in-memory model's store of one app, made from the
 * models' specs, so that references between them behave as a database's foreign keys would
 * (a missing row refused, `restrict`, `cascade`, `set null`) and unique fields as unique
 * indexes. The generated table makes one per app and asks it for each in-memory model's store.
 */
export class InMemoryDatabase {
  readonly #stores = new Map<string, Store<unknown>>();

  /** The store of `model` (one per model name: asking twice answers the same store). */
  store<A>(model: ModelSpec<A>): Store<A> {
    let store = this.#stores.get(model.name);
    if (store === undefined) {
      store = new InMemoryStore<unknown>(model.key);
      this.#stores.set(model.name, store);
    }
    return store as Store<A>;
  }
}
