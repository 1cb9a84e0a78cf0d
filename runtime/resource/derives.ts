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
import type { OwnedDeclaration } from "./owned-declaration.js";
import type { PolicyDeclaration } from "./policy.js";
import { readableRows } from "./read-scope.js";
import { rowsForViewer } from "./readable.js";
import { ViewerStore } from "./viewer-stores.js";
import { relationsOf } from "./relations.js";
import { Resource } from "./resource.js";
import type { Store } from "./store.js";
import type { SearchLanguage } from "./text-search.js";
import type { OnDelete } from "./types.js";

/** One thing a model can derive: `Form` (the form class) or `Resource` (the seven routes). */
export type Derivation = typeof Form | typeof Resource;

/** The names of `M`'s boolean fields (`published: boolean`, `featured?: boolean`). */
export type BooleanField<M> = { [K in keyof M]-?: NonNullable<M[K]> extends boolean ? K : never }[keyof M] & string;

/** What any model's companion may declare beside its derivations. */
interface CommonOptions {
  /** The roles the model mounts; all seven when left out (spec 2.11). */
  readonly actions?: Actions;
  /** Who may reach the model's routes (spec 2.12); `Guarded` from the auth module, or any declaration of that shape. */
  readonly guarded?: GuardDeclaration;
  /**
   * The database table the model's rows live in (`"posts"`), read by the build: the generated
   * module then keeps them in fw/db (`SqlStore`, or `SqlScopedStore` for an owned model) on the
   * app's database, with the table's columns derived from the model's fields. A string literal
   * (the build reads it); without it the rows stay in memory.
   */
  readonly table?: string;
}

/** The field names of a model (`keyof M` as strings). */
export type FieldName<M> = keyof M & string;

/**
 * What a model declares about its references (`post: Id<Post>`: a field typed `Id` of another
 * model of the same storage) and unique fields. Read by the build: write them inline, as
 * literals.
 */
interface RelationOptions<M> {
  /**
   * Per reference field, what deleting the row it points at does to this one: `restrict` (the
   * default: the delete is refused while this row points at it), `cascade` (this row is deleted
   * too) or `set null` (the reference is cleared: optional fields only). The owner field says
   * what deleting its user does (issue 41). Any rule type-checks: the build's TS91041 says what
   * is wrong with one (`set null` on a required field, a field that is no reference) and how to fix it.
   */
  readonly onDelete?: { readonly [K in FieldName<M>]?: OnDelete };
  /**
   * A reference field: a row is readable only by who may read the row it points at (a comment
   * on a draft post is read by who may read the draft), on every page and in the pickers.
   */
  readonly readableWith?: FieldName<M>;
  /** Fields no two rows may share together (`[["list", "position"]]`); one field alone: the `Unique` tag on its type. */
  readonly unique?: readonly (readonly FieldName<M>[])[];
  /**
   * The derived Index's own order: a field, `-` before it for descending (`sort: "-createdAt"`,
   * newest first), ties by the key in the same direction; key order when absent. A table model's
   * table gets an index on (field, key), so every page of the Index is found from it. A literal.
   */
  readonly sort?: FieldName<M> | `-${FieldName<M>}`;
  /**
   * Full-text search (issue 43): the text fields `Store.search` and the Index's search box read,
   * most important first (a match in an earlier one ranks higher): `search: ["title", "body"]`.
   * A table model's table gets a generated `fw_search` column and a GIN index. Literals.
   */
  readonly search?: readonly TextField<M>[];
  /** The language of the searched words (PostgreSQL's text search configuration): `english` when absent; `simple` keeps every word as written. */
  readonly searchLanguage?: SearchLanguage;
}

/** The names of `M`'s text fields (`string`, `LongText`, a union of string literals). */
export type TextField<M> = { [K in keyof M]-?: NonNullable<M[K]> extends string ? K : never }[keyof M] & string;

/**
 * What a model's companion may declare. `publicWhen` (the read scope) is only allowed beside
 * `owned`: the rows it hides are readable by their owner alone.
 */
export type ModelOptions<M = unknown> = CommonOptions &
  RelationOptions<M> &
  (
    | {
        /**
         * Rows belong to their owners (spec 2.13): `Owned` from the auth module, or any guard with
         * `covers`. It is the model's guard when `guarded` is absent; the roles it `covers` read and
         * write through the current user's rows alone. The model needs one `Id<User>` field.
         */
        readonly owned: OwnedDeclaration;
        /**
         * The read scope: one of the model's boolean fields. Rows where it is true are readable by
         * everyone; the others by their owner alone: Index lists them only to their owner, Show
         * (and every other page) answers 404 to anyone else, and a handler reads the same rows
         * through the companion's `readable`. Declarative (`field = true OR owner = viewer`), so a
         * database store filters by it in its query.
         */
        readonly publicWhen?: BooleanField<M>;
        readonly policy?: undefined;
      }
    | {
        /**
         * Who may do what to the model's rows (issue 41): `auth.policy<Post, User>(…)` from the
         * auth module. It is the model's guard (declare no `guarded` or `owned` beside it); its
         * read rule says which rows each viewer reads (no `publicWhen` either).
         */
        readonly policy: PolicyDeclaration;
        readonly owned?: undefined;
        readonly publicWhen?: undefined;
      }
    | { readonly owned?: undefined; readonly publicWhen?: undefined; readonly policy?: undefined }
  );

/** The companion value: what the model derives and its declarations. */
export interface Companion<M> {
  readonly derivations: readonly Derivation[];
  readonly options: ModelOptions<M>;
  /** Phantom: ties the companion to its model type. */
  readonly model?: M;
  /**
   * The rows of the model's `store` (a handler's `Store<Model>` capability) that `viewer` may
   * read, as the derived Index reads them: the viewer's own on a role `owned` covers; with
   * `publicWhen`, the public rows and the viewer's own; else every row. `viewer` is a user key
   * as `request.currentUser` spells it, or undefined for nobody (an API call without a key).
   */
  readable(store: Store<M>, viewer: string | undefined): Store<M>;
}

export function derives<M>(...args: readonly (Derivation | ModelOptions<M>)[]): Companion<M> {
  const derivations = args.filter(isDerivation);
  const options = args.find((arg): arg is ModelOptions<M> => !isDerivation(arg)) ?? {};
  return { derivations, options, readable: (store, viewer) => readableBy(store, options, viewer) };
}

/**
 * The companion's `readable`: the model's read rules; with `readableWith`, also the rules of the
 * model it reads with, reached through the app's `Relations` from the store the generated table
 * made (the one a handler's `Store<Model>` capability is).
 */
function readableBy<M>(store: Store<M>, options: ModelOptions<M>, viewer: string | undefined): Store<M> {
  // A handwritten route's `Store<Model>` is already its viewer's rows (viewer-stores.ts).
  if (store instanceof ViewerStore) {
    if (viewer === store.viewer) return store;
    throw new Error(
      `This store is already the rows ${store.viewer === undefined ? "nobody signed in" : `the user ${store.viewer}`} may read (a handwritten route's Store<Model> is its viewer's rows), ` +
        `so it cannot be read as ${viewer === undefined ? "nobody's" : `the user ${viewer}'s`}: read it as it is, or ask for ScopedStore<Model> (every row, by name) and narrow that.`,
    );
  }
  if (options.readableWith === undefined) return readableRows(store, { owned: options.owned ?? options.policy, publicWhen: options.publicWhen }, viewer, "Index");
  const related = relationsOf(store as Store<unknown>);
  if (related === undefined) {
    throw new Error(
      `This model declares readableWith: ${JSON.stringify(options.readableWith)}, so its rows are read through the rows of the model it names: ` +
        "pass the store the generated table supplies (a handler's `Store<Model>` capability).",
    );
  }
  return rowsForViewer(related.relations, related.entry, viewer, "Index") as Store<M>;
}

function isDerivation<M>(value: Derivation | ModelOptions<M>): value is Derivation {
  return value === Form || value === Resource;
}
