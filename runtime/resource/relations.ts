import type { ControlGate } from "./control-gate.js";
import type { Actions } from "./actions.js";
import type { FieldSpec, ModelSpec } from "./model.js";
import type { OwnedDeclaration } from "./owned-declaration.js";
import type { Store } from "./store.js";

/** One derived model as the other models' pages reach it. */
export interface RelatedModel {
  readonly model: ModelSpec<unknown>;
  /** The model's store (for an owned model, its ScopedStore). */
  readonly store: Store<unknown>;
  /** The roles it mounts: a link to its Show only when Show is mounted. */
  readonly actions: Actions;
  readonly owned?: OwnedDeclaration | undefined;
  readonly publicWhen?: string | undefined;
  /** Which controls its guard shows a viewer (New, Edit, Delete); open to all when absent. */
  readonly gate?: ControlGate | undefined;
}

/** The models' stores as the generated table registered them: what a companion's `readable` reaches the other models through. */
const registered = new WeakMap<Store<unknown>, { readonly relations: Relations; readonly entry: RelatedModel }>();

/** The app's `Relations` and the model whose store `store` is, when a table registered it (the store a handler's `Store<Model>` capability is). */
export function relationsOf(store: Store<unknown>): { readonly relations: Relations; readonly entry: RelatedModel } | undefined {
  return registered.get(store);
}

/**
 * Every derived model of one app, so that one model's pages reach the rows of the models it
 * references (labels, pickers, checks) and of those that reference it (Show's lists). The
 * generated table makes one and passes it to every `resourceRoutes` call, which registers
 * its model; lookups happen while serving, when every model is registered.
 */
export class Relations {
  readonly #models = new Map<string, RelatedModel>();

  /**
   * Adds a model. A second model of a name already here is not added, and not refused here
   * either: the table is still being made (an app's `table()` call), where a throw would crash
   * the app before its commands run. Its routes carry the name (`HttpRoute.model`), and boot
   * (and `routes`) refuse the table naming both models' files (routing/conflicts.ts).
   */
  register(entry: RelatedModel): void {
    if (this.#models.has(entry.model.name)) return;
    this.#models.set(entry.model.name, entry);
    registered.set(entry.store, { relations: this, entry });
  }

  /** The model named `name`, when the app derives it. */
  model(name: string): RelatedModel | undefined {
    return this.#models.get(name);
  }

  /** How many models are registered: what a cache of lookups checks to know it is still whole. */
  get size(): number {
    return this.#models.size;
  }

  /** Every registered model, in registration (table) order. */
  all(): readonly RelatedModel[] {
    return [...this.#models.values()];
  }

  /** The models with a reference field pointing at `name`, each with that field, in registration (table) order. */
  referencing(name: string): readonly { readonly model: RelatedModel; readonly field: FieldSpec }[] {
    const found: { model: RelatedModel; field: FieldSpec }[] = [];
    for (const entry of this.#models.values()) {
      for (const field of entry.model.fields) if (field.reference?.model === name) found.push({ model: entry, field });
    }
    return found;
  }
}
