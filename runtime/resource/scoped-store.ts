import type { FromPath } from "../routing/from-path.js";
import type { FieldValue, ListPage, Page, Query, RowFilter, SearchPage, SearchResults } from "./query.js";
import { narrowed } from "./row-filter.js";
import type { Draft, Store } from "./store.js";
import type { Id } from "./types.js";

/**
 * The store of an owned model (spec 2.13): the whole table, plus its narrowing by owner.
 * Used as a `Store<A>` it is the whole table (what the roles `covers` leaves out, and handlers
 * asking for `Store<Post>`, read and write); `for(owner)` is the narrowing the covered roles
 * use. An update through either keeps the row's owner: a form never carries it.
 *
 * A handler asks for it by this type (`{ tasks }: { tasks: ScopedStore<Task> }`, an owned model
 * only) to reach one user's rows with `for(request.currentUser)`; asked for as `Store<Task>`,
 * the same store is every user's rows (docs/guides/models-and-forms.md, "Per-user stores").
 */
export class ScopedStore<A> implements Store<A> {
  /**
   * @param whole the model's table.
   * @param owner the owner field (`author: Id<User>`).
   * @param decodeOwner reads a user key as the session spells it (`"7"`) into the owner field's type.
   */
  constructor(
    readonly whole: Store<A>,
    readonly owner: string,
    private readonly decodeOwner: FromPath<unknown>,
  ) {}

  list(page: ListPage<A>): Promise<Page<A>> {
    return this.whole.list(page);
  }

  count(query?: Query<A>): Promise<number> {
    return this.whole.count(query);
  }

  search(text: string, page?: SearchPage<A>): Promise<SearchResults<A>> {
    return this.whole.search(text, page);
  }

  get(key: Id<A>): Promise<A | undefined> {
    return this.whole.get(key);
  }

  insert(draft: Draft<A>): Promise<A> {
    return this.whole.insert(draft);
  }

  async update(key: Id<A>, draft: Draft<A>): Promise<A | undefined> {
    const row = await this.whole.get(key);
    if (row === undefined) return undefined;
    return this.whole.update(key, this.keepOwner(row, draft));
  }

  delete(key: Id<A>): Promise<boolean> {
    return this.whole.delete(key);
  }

  /** The owner key of a row, spelled as the session spells user keys; undefined when it has none. */
  ownerOf(row: A): string | undefined {
    const value = (row as Record<string, unknown>)[this.owner];
    return value === undefined || value === null ? undefined : String(value);
  }

  /**
   * The rows of one owner as a `Store<A>`: lists and gets only theirs, stamps them as the owner
   * on insert, and changes or deletes only theirs. Throws when `ownerKey` is not a key of the
   * owner field's type (a guard named a user the model cannot point at).
   */
  for(ownerKey: string): Store<A> {
    return new OwnRows(this, ownerKey, this.ownerValue(ownerKey));
  }

  /**
   * The rows `viewer` may read under a read scope (the companion's `publicWhen`): those whose
   * boolean field `publicWhen` is true, and the viewer's own; nobody signed in reads the first
   * alone. Asked of the whole table as one filter, so a database store answers it with a query.
   */
  readableBy(publicWhen: string, viewer: string | undefined): Store<A> {
    return narrowed(this.whole, this.readFilter(publicWhen, viewer));
  }

  /** The filter behind `readableBy`: `publicWhen = true OR owner = viewer`. */
  readFilter(publicWhen: string, viewer: string | undefined): RowFilter {
    const open = { field: publicWhen, equals: true };
    return { anyOf: viewer === undefined ? [open] : [open, { field: this.owner, equals: this.ownerValue(viewer) }] };
  }

  /** A user key as the session spells it, read as the owner field's value (what a policy's `own` compares); throws when it is none. */
  ownerKey(ownerKey: string): FieldValue {
    return this.ownerValue(ownerKey);
  }

  /** A user key as the session spells it, read as the owner field's value; throws when it is none (a guard named a user the model cannot point at). */
  private ownerValue(ownerKey: string): FieldValue {
    const decoded = this.decodeOwner.read(ownerKey);
    const value = decoded?.value;
    if (typeof value !== "number" && typeof value !== "string") {
      throw new Error(`ScopedStore: the user key ${JSON.stringify(ownerKey)} is not a valid ${this.decodeOwner.type} for the owner field "${this.owner}".`);
    }
    return value;
  }

  private keepOwner(row: A, draft: Draft<A>): Draft<A> {
    const owner = (row as Record<string, unknown>)[this.owner];
    return owner === undefined ? draft : ({ ...draft, [this.owner]: owner } as Draft<A>);
  }
}

/** One owner's rows of a scoped store. */
class OwnRows<A> implements Store<A> {
  constructor(
    private readonly scoped: ScopedStore<A>,
    private readonly key: string,
    private readonly value: FieldValue,
  ) {}

  /** Asked of the whole table as a filter, so a database store answers it with a query. */
  list(page: ListPage<A>): Promise<Page<A>> {
    return this.rows().list(page);
  }

  count(query?: Query<A>): Promise<number> {
    return this.rows().count(query);
  }

  search(text: string, page?: SearchPage<A>): Promise<SearchResults<A>> {
    return this.rows().search(text, page);
  }

  private rows(): Store<A> {
    return narrowed(this.scoped.whole, { anyOf: [{ field: this.scoped.owner, equals: this.value }] });
  }

  async get(key: Id<A>): Promise<A | undefined> {
    const row = await this.scoped.get(key);
    return row !== undefined && this.owns(row) ? row : undefined;
  }

  insert(draft: Draft<A>): Promise<A> {
    return this.scoped.insert({ ...draft, [this.scoped.owner]: this.value } as Draft<A>);
  }

  async update(key: Id<A>, draft: Draft<A>): Promise<A | undefined> {
    return (await this.get(key)) === undefined ? undefined : this.scoped.update(key, draft);
  }

  async delete(key: Id<A>): Promise<boolean> {
    return (await this.get(key)) !== undefined && this.scoped.delete(key);
  }

  private owns(row: A): boolean {
    return this.scoped.ownerOf(row) === this.key;
  }
}
