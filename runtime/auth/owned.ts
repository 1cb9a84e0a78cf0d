import type { Actions } from "../resource/actions.js";
import type { OwnedDeclaration } from "../resource/owned-declaration.js";
import type { ScopedStore } from "../resource/scoped-store.js";
import { Guarded, type GuardedInit } from "./guarded.js";
import type { OwnedModels } from "./owned-models.js";

/**
 * Rows of `M` belong to users `U` (spec 2.13): a `Guarded` (its `actions` need a signed-in
 * user) with `covers`, the roles that read and write through the current user's rows alone.
 * The two sets are independent. A model declares only this, as `owned` in its options; the
 * model needs exactly one field of type `Id<U>` (the build finds it and fails otherwise).
 */
export class Owned<M, U> extends Guarded implements OwnedDeclaration {
  readonly covers: Actions;
  /** Phantom: ties the declaration to its model type; never set. */
  declare readonly model?: M;
  /** Phantom: the user model, which appears only as the owner field's key type; never set. */
  declare readonly user?: U;
  readonly #models: OwnedModels | undefined;

  constructor(init: GuardedInit & { readonly covers: Actions; readonly models?: OwnedModels }) {
    super(init);
    this.covers = init.covers;
    this.#models = init.models;
  }

  /** Told by the model's routes which model this is and its rows: the sign-in's account deletion names them. */
  readonly ownsRowsOf = (model: { readonly name: string; readonly path: string }, rows: ScopedStore<unknown>): void => {
    this.#models?.add(model, rows);
  };
}
