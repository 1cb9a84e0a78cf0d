import { Forbidden } from "../http/failure.js";
import type { Action } from "./actions.js";
import type { OwnedDeclaration } from "./owned-declaration.js";
import { isPolicy, PolicyAccess } from "./policy.js";
import { ScopedStore } from "./scoped-store.js";
import type { ListPage, Page, Query, SearchPage, SearchResults } from "./query.js";
import type { Store } from "./store.js";

/** What a model's companion says about who reads which rows: its `owned` and its `publicWhen`. */
export interface ReadRules {
  readonly owned?: OwnedDeclaration | undefined;
  /** A boolean field: rows where it is true are readable by everyone, the rest by their owner alone. */
  readonly publicWhen?: string | undefined;
}

/**
 * A narrowing with nobody to own anything: what a covered read sees when no one is signed in.
 * A list with a `where` or `search` still asks the table for none of its rows (`limit: 0`), so a
 * field the model lacks throws as on every store.
 */
class NoRows<A> implements Store<A> {
  constructor(private readonly whole: Store<A>) {}

  async list(page: ListPage<A>): Promise<Page<A>> {
    if (page.where !== undefined || page.search !== undefined || page.order !== undefined) await this.whole.list({ ...page, offset: 0, limit: 0 });
    return { rows: [], total: 0 };
  }

  async count(query: Query<A> = {}): Promise<number> {
    if (query.where !== undefined || query.search !== undefined) await this.whole.count(query);
    return 0;
  }

  /** Nothing found; the table is asked for none, so a model without searchable fields throws as on every store. */
  async search(text: string, page: SearchPage<A> = {}): Promise<SearchResults<A>> {
    await this.whole.search(text, { ...page, limit: 0 });
    return { hits: [], total: 0 };
  }

  async get(): Promise<A | undefined> {
    return undefined;
  }

  async insert(): Promise<A> {
    throw new Forbidden("Nobody is signed in to own a new row.");
  }

  async update(): Promise<A | undefined> {
    return undefined;
  }

  async delete(): Promise<boolean> {
    return false;
  }
}

function noRows<A>(whole: Store<A>): Store<A> {
  return new NoRows(whole);
}

/** Whether `store` is the narrowing that holds no row (a database store's filter then needs no subquery of it). */
export function isNoRows(store: unknown): boolean {
  return store instanceof NoRows;
}

/**
 * The rows `viewer` (a user key as the session spells it, or undefined for nobody) may read
 * on `role`, as the derived Index and Show read them:
 * - on a role the model's `owned` covers: the viewer's own rows (none when nobody is signed in);
 * - else, when the model declares `publicWhen`: the rows where that field is true, and the viewer's own;
 * - else the whole table.
 * An owned model's store must be its `ScopedStore` (the one the generated table supplies).
 */
export function readableRows<A>(store: Store<A>, rules: ReadRules, viewer: string | undefined, role: Action): Store<A> {
  if (rules.owned === undefined) return store;
  // Under a policy, the viewer known by key alone holds no role here (a request's own reads know them).
  if (isPolicy(rules.owned)) return new PolicyAccess(store, rules.owned, "row").rowsFor({ key: viewer, roles: [] }, role);
  if (!(store instanceof ScopedStore)) {
    throw new Error("This model declares `owned`, so its rows are read through its ScopedStore: pass the store the generated table supplies (a handler's `Store<Model>` capability).");
  }
  const scoped = store as ScopedStore<A>;
  if (rules.owned.covers.has(role)) return viewer === undefined ? noRows(scoped.whole) : scoped.for(viewer);
  return rules.publicWhen === undefined ? scoped : scoped.readableBy(rules.publicWhen, viewer);
}
