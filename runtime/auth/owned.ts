import type { Actions } from "../resource/actions.js";
import type { OwnedDeclaration } from "../resource/owned-declaration.js";
import { Guarded, type GuardedInit } from "./guarded.js";

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

  constructor(init: GuardedInit & { readonly covers: Actions }) {
    super(init);
    this.covers = init.covers;
  }
}
