/**
 * A model declares what fw derives from its type with a same-name companion made by
 * `derives<T>(…)` (DESIGN.md: the TypeScript form of Scala's `derives Form, Resource`):
 *
 *     export interface Post { id: Id<Post>; title: string }
 *     export const Post = derives<Post>(Form, Resource, { actions: Actions.except(Destroy) });
 *
 * The transformer finds these calls at build time (at module top level, or nested only in
 * namespaces and plain object literals) and generates the model's routes from them.
 */
import type { GuardDeclaration } from "../routing/assemble.js";
import type { Actions } from "./actions.js";
import { Form } from "./form.js";
import type { OwnedDeclaration } from "./ownership.js";
import { Resource } from "./resource.js";

/** One thing a model can derive: `Form` (the form class) or `Resource` (the seven routes). */
export type Derivation = typeof Form | typeof Resource;

/** What a model's companion may declare beside its derivations. */
export interface ModelOptions {
  /** The roles the model mounts; all seven when left out (spec 2.11). */
  readonly actions?: Actions;
  /** Who may reach the model's routes (spec 2.12); `Guarded` from the auth module, or any declaration of that shape. */
  readonly guarded?: GuardDeclaration;
  /**
   * Rows belong to their owners (spec 2.13): `Owned` from the auth module, or any guard with
   * `covers`. It is the model's guard when `guarded` is absent; the roles it `covers` read and
   * write through the current user's rows alone. The model needs one `Id<User>` field.
   */
  readonly owned?: OwnedDeclaration;
}

/** The companion value: what the model derives and its declarations. */
export interface Companion<M> {
  readonly derivations: readonly Derivation[];
  readonly options: ModelOptions;
  /** Phantom: ties the companion to its model type. */
  readonly model?: M;
}

export function derives<M>(...args: readonly (Derivation | ModelOptions)[]): Companion<M> {
  const derivations = args.filter(isDerivation);
  const options = args.find((arg): arg is ModelOptions => !isDerivation(arg)) ?? {};
  return { derivations, options };
}

function isDerivation(value: Derivation | ModelOptions): value is Derivation {
  return value === Form || value === Resource;
}
