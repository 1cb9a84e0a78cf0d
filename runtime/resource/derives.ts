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
declare const derivationBrand: unique symbol;

/** One thing a model can derive. */
export interface Derivation<Name extends string = string> {
  readonly [derivationBrand]: Name;
  readonly name: Name;
}

function derivation<Name extends string>(name: Name): Derivation<Name> {
  return Object.freeze({ name }) as Derivation<Name>;
}

/** Derive an HTML form (render and parse) from the model's type. */
export const Form: Derivation<"Form"> = derivation("Form");
/** Derive the seven CRUD routes (needs Form). */
export const Resource: Derivation<"Resource"> = derivation("Resource");

/** What a model's companion may declare beside its derivations; filled in by later modules. */
export interface ModelOptions {
  readonly [option: string]: unknown;
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
