import type { Request } from "../http/request.js";
import type { Action } from "./actions.js";
import { Ownership, type Access } from "./ownership.js";
import type { RelatedModel, Relations } from "./relations.js";
import { readableRows } from "./read-scope.js";
import { narrowed } from "./row-filter.js";
import { ScopedStore } from "./scoped-store.js";
import type { Store } from "./store.js";

const ownerships = new WeakMap<RelatedModel, Access<unknown>>();

/** How a registered model's pages use its store (its `owned` and `publicWhen`), made once per model. */
export function ownershipOf(entry: RelatedModel): Access<unknown> {
  let own = ownerships.get(entry);
  if (own === undefined) {
    own = Ownership.of(entry.store, entry.owned, entry.model, entry.publicWhen);
    ownerships.set(entry, own);
  }
  return own;
}

/** Per request, the readable rows already worked out (a page asks for a model's several times). */
const asked = new WeakMap<Request, Map<RelatedModel, Map<Action, Store<unknown> | Promise<Store<unknown>>>>>();

/**
 * The rows of `entry` the request's viewer may read on `role`, to read from (never to write
 * through): its read rules (`owned`, `publicWhen`, as its own Index and Show read them) and,
 * for a model declaring `readableWith`, only rows whose reference points at a row the viewer
 * may read on that model's Show. Data, not a function of the rows: a database store answers it
 * in one query (`post_id IN (SELECT id FROM posts WHERE …)`). Worked out once per request, at
 * once unless a declaration's `identify` answers later (then a promise): every Show and Index
 * of a model with references asks, and most need no promise for it.
 */
export function viewerRows(relations: Relations, entry: RelatedModel, request: Request, role: Action): Store<unknown> | Promise<Store<unknown>> {
  return rowsVia(relations, entry, request, role, []);
}

function rowsVia(relations: Relations, entry: RelatedModel, request: Request, role: Action, chain: readonly string[]): Store<unknown> | Promise<Store<unknown>> {
  let known = asked.get(request);
  if (known === undefined) {
    known = new Map();
    asked.set(request, known);
  }
  // By model entry, then role: no key string made (and hashed) per ask.
  let byRole = known.get(entry);
  if (byRole === undefined) known.set(entry, (byRole = new Map()));
  let rows = byRole.get(role);
  if (rows === undefined) byRole.set(role, (rows = work(relations, entry, request, role, chain)));
  return rows;
}

/**
 * What `viewer` (a user key, or undefined for nobody) may read of `entry` on `role`, worked out
 * without a request: the companion's `readable` for handlers. The same rules as `viewerRows`,
 * `readableWith` included, from a viewer already known (no `identify`).
 */
export function rowsForViewer(relations: Relations, entry: RelatedModel, viewer: string | undefined, role: Action, chain: readonly string[] = []): Store<unknown> {
  const own = readableRows(entry.store, { owned: entry.owned, publicWhen: entry.publicWhen }, viewer, role);
  const via = entry.model.readableWith;
  if (via === undefined) return own;
  const target = readableTarget(relations, entry, via, chain);
  const readable = rowsForViewer(relations, target, viewer, "Show", [...chain, entry.model.name]);
  const base = own instanceof ScopedStore ? (own as ScopedStore<unknown>).whole : own;
  return narrowed(base, { anyOf: [{ field: via, in: { rows: readable, key: target.model.key } }] });
}

/** The model a `readableWith` reference points at; throws naming the mistake (the build checks both first). */
function readableTarget(relations: Relations, entry: RelatedModel, via: string, chain: readonly string[]): RelatedModel {
  const reference = entry.model.fields.find((field) => field.name === via)?.reference;
  const target = reference === undefined ? undefined : relations.model(reference.model);
  if (target === undefined) {
    throw new Error(
      `The model ${entry.model.name} declares readableWith: ${JSON.stringify(via)}, which is not a reference to a model of this app's routes: ` +
        "name a reference field (`post: Id<Post>`) whose model derives Resource, and build the routes through the generated table.",
    );
  }
  const path = [...chain, entry.model.name];
  if (path.includes(target.model.name)) {
    throw new Error(`The readableWith declarations make a circle (${[...path, target.model.name].join(" → ")}): a row cannot be readable only through itself; drop readableWith from one of these models.`);
  }
  return target;
}

function work(relations: Relations, entry: RelatedModel, request: Request, role: Action, chain: readonly string[]): Store<unknown> | Promise<Store<unknown>> {
  // Another model's page ran its own guard, not this model's: who is looking is asked of this
  // model's declaration (as its own guard would), so its owner reads their rows from anywhere.
  const identified = request.currentUser !== undefined || entry.owned === undefined ? request : entry.owned.identify(request);
  return identified instanceof Promise ? identified.then((who) => readWith(relations, entry, request, who, role, chain)) : readWith(relations, entry, request, identified, role, chain);
}

/** `work` once the viewer is known: the model's own read rules, narrowed by `readableWith`. */
function readWith(relations: Relations, entry: RelatedModel, request: Request, identified: Request, role: Action, chain: readonly string[]): Store<unknown> | Promise<Store<unknown>> {
  const own = ownershipOf(entry).reading(identified, role);
  const via = entry.model.readableWith;
  if (via === undefined) return own;
  const target = readableTarget(relations, entry, via, chain);
  const readable = rowsVia(relations, target, request, "Show", [...chain, entry.model.name]);
  // Read through the whole table under an owned model's scope: its ScopedStore keeps owners on
  // writes but cannot filter itself, and these rows are only read.
  const narrow = (mine: Store<unknown>, theirs: Store<unknown>): Store<unknown> => {
    const base = mine instanceof ScopedStore ? (mine as ScopedStore<unknown>).whole : mine;
    return narrowed(base, { anyOf: [{ field: via, in: { rows: theirs, key: target.model.key } }] });
  };
  if (!(own instanceof Promise) && !(readable instanceof Promise)) return narrow(own, readable);
  return Promise.all([own, readable]).then(([mine, theirs]) => narrow(mine, theirs));
}
