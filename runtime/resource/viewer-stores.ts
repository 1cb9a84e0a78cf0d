/**
 * A handwritten route's `Store<Model>` (issue 39): for a model with read rules (`owned`,
 * `publicWhen`, `readableWith`), the rows the request's viewer may read on the route's role, and
 * writes checked as the derived pages check them, per request. The whole table is asked for by
 * name (`ScopedStore<Model>`), never handed out by default: a page that reads "the tasks" reads
 * the signed-in user's tasks, whoever wrote it.
 */
import { ApiRequest, type Request } from "../http/request.js";
import type { Action } from "./actions.js";
import type { Access } from "./ownership.js";
import type { ListPage, Page, Query, RowFilter, SearchPage, SearchResults } from "./query.js";
import { ownershipOf, rowsForViewer, viewerRows } from "./readable.js";
import { relationsOf } from "./relations.js";
import { narrowed } from "./row-filter.js";
import type { Draft, Store, Versioned } from "./store.js";
import type { Id } from "./types.js";

/**
 * One request's view of a model: reads through the viewer's readable rows; an insert is stamped
 * with the signed-in user as the derived Create stamps it; an update or a delete reaches only a
 * row the viewer may read, and on a role the model's `owned` covers only the viewer's own (403
 * otherwise, the row unchanged), as the derived Update and Destroy refuse.
 */
export class ViewerStore<A> implements Store<A> {
  constructor(
    private readonly reads: Store<A>,
    private readonly ownership: Access<A>,
    /** Who writes: the request (its guard's user); undefined for an API call, which names nobody. */
    private readonly writer: Request | undefined,
    /** Who the rows were read for (a user key as the session spells it), or undefined for nobody. */
    readonly viewer: string | undefined,
  ) {}

  list(page: ListPage<A>): Promise<Page<A>> {
    return this.reads.list(page);
  }

  count(query?: Query<A>): Promise<number> {
    return this.reads.count(query);
  }

  search(text: string, page?: SearchPage<A>): Promise<SearchResults<A>> {
    return this.reads.search(text, page);
  }

  get(key: Id<A>): Promise<A | undefined> {
    return this.reads.get(key);
  }

  async read(key: Id<A>): Promise<Versioned<A> | undefined> {
    const row = await this.reads.get(key);
    if (row === undefined) return undefined;
    return this.ownership.whole.read?.(key) ?? { row, version: 0 };
  }

  async insert(draft: Draft<A>): Promise<A> {
    return (await this.ownership.creating(this.writer)).insert(draft);
  }

  async update(key: Id<A>, draft: Draft<A>, expected?: number): Promise<A | undefined> {
    const row = await this.reads.get(key);
    if (row === undefined) return undefined;
    await this.ownership.checkWrite(this.writer, "Update", row);
    return this.ownership.whole.update(key, this.ownership.kept?.(row, draft) ?? draft, expected);
  }

  async delete(key: Id<A>): Promise<boolean> {
    const row = await this.reads.get(key);
    if (row === undefined) return false;
    await this.ownership.checkWrite(this.writer, "Destroy", row);
    return this.ownership.whole.delete(key);
  }

  where(filter: RowFilter): Store<A> {
    return new ViewerStore(narrowed(this.reads, filter), this.ownership, this.writer, this.viewer);
  }
}

/**
 * The capabilities a handwritten route's handler gets on each request: `fixed` as the table made
 * them, with each capability named in `viewed` (a `Store<Model>` of a model with read rules)
 * replaced by that model's `ViewerStore` for `role` (an override's role, else the method's:
 * GET reads as Index, POST as Create, PUT and PATCH as Update, DELETE as Destroy). At once,
 * unless a declaration's `identify` answers later.
 */
export function viewerCapabilities<C extends object>(fixed: C, viewed: readonly (keyof C & string)[], role: Action): (request: Asking) => C | Promise<C> {
  return (request) => {
    const made: Record<string, Store<unknown> | Promise<Store<unknown>>> = {};
    let waits = false;
    for (const name of viewed) {
      const store = viewerStore((fixed as Record<string, Store<unknown>>)[name] as Store<unknown>, request, role, name);
      if (store instanceof Promise) waits = true;
      made[name] = store;
    }
    if (!waits) return { ...fixed, ...made } as C;
    return Promise.all(viewed.map((name) => made[name])).then((stores) => {
      const resolved: Record<string, unknown> = { ...(fixed as Record<string, unknown>) };
      viewed.forEach((name, i) => (resolved[name] = stores[i]));
      return resolved as C;
    });
  };
}

/** Calls `handler` with the request's capabilities, without a promise when they are ready at once. */
export function withCapabilities<C, R>(capabilities: C | Promise<C>, handler: (capabilities: C) => R): R | Promise<Awaited<R>> {
  return capabilities instanceof Promise ? capabilities.then(handler) as Promise<Awaited<R>> : handler(capabilities);
}

/** A page's request, or an API call's (which carries no session, so names nobody). */
type Asking = Request<unknown> | ApiRequest<unknown, unknown>;

function viewerStore(store: Store<unknown>, asking: Asking, role: Action, name: string): Store<unknown> | Promise<Store<unknown>> {
  const related = relationsOf(store);
  if (related === undefined) {
    throw new Error(`The capability ${JSON.stringify(name)} is not a model's store that the table's derived routes registered: build the table through the generated module.`);
  }
  const ownership = ownershipOf(related.entry);
  // An API call has no session: it reads what nobody signed in reads, and writes nothing a signed-in owner must.
  if (asking instanceof ApiRequest) return new ViewerStore(rowsForViewer(related.relations, related.entry, undefined, role), ownership, undefined, undefined);
  const request = asking as Request;
  // Who is looking: the guard's user, else whoever the model's declaration names from the session.
  const owned = related.entry.owned;
  const identified = request.currentUser !== undefined || owned === undefined ? request : owned.identify(request);
  const make = (who: Request, rows: Store<unknown>): Store<unknown> => new ViewerStore(rows, ownership, request, who.currentUser);
  const rows = viewerRows(related.relations, related.entry, request, role);
  if (!(identified instanceof Promise) && !(rows instanceof Promise)) return make(identified, rows);
  return Promise.all([identified, rows]).then(([who, read]) => make(who, read));
}
