import { Forbidden } from "../http/failure.js";
import type { Request } from "../http/request.js";
import type { GuardDeclaration } from "../routing/assemble.js";
import type { Action } from "./actions.js";
import { ScopedStore } from "./scoped-store.js";
import type { Page, Store } from "./store.js";

/**
 * What an `Owned` declaration gives a model's pages (spec 2.13), seen structurally so the core
 * never imports the auth module: a guard (its `actions` need a signed-in user) plus `covers`,
 * the roles that read and write through the current user's rows alone.
 */
export type OwnedDeclaration = GuardDeclaration & {
  readonly covers: { has(role: Action): boolean };
  /**
   * Who is looking, for display on a public page, answered at once: a declaration whose
   * `identify` answers later (asking a users store) gives this too; without it, `identify` is used
   * when it answers at once.
   */
  readonly viewer?: (request: Request) => string | undefined;
};

/** A narrowing with nobody to own anything: what a covered read sees when no one is signed in. */
const NO_ROWS: Store<never> = {
  list: async (): Promise<Page<never>> => ({ rows: [], total: 0 }),
  get: async () => undefined,
  insert: async () => {
    throw new Forbidden("Nobody is signed in to own a new row.");
  },
  update: async () => undefined,
  delete: async () => false,
};

/**
 * How one model's pages use its store: the whole table, or, on a role the model's `owned`
 * declaration covers, the current user's rows alone. A model without `owned` always uses the
 * whole table and refuses nothing here.
 */
export class Ownership<A> {
  private constructor(
    /** The whole table (for an owned model, its ScopedStore, which keeps owners on update). */
    readonly whole: Store<A>,
    private readonly scoped: ScopedStore<A> | undefined,
    private readonly owned: OwnedDeclaration | undefined,
    private readonly words: string,
  ) {}

  /** Checks that an owned model was given a scoped store (the generated table always does). */
  static of<A>(store: Store<A>, owned: OwnedDeclaration | undefined, model: { readonly name: string; readonly owner?: string }): Ownership<A> {
    if (owned === undefined) return new Ownership(store, undefined, undefined, model.name);
    if (!(store instanceof ScopedStore) || model.owner === undefined) {
      throw new Error(
        `The model ${model.name} declares \`owned\`, so its routes need a ScopedStore and a ModelSpec naming its owner field; ` +
          "build the model's routes through the generated table, or pass new ScopedStore(store, ownerField, decoder).",
      );
    }
    return new Ownership(store, store as ScopedStore<A>, owned, model.name.toLowerCase());
  }

  /** The store a role reads through: the user's own rows when the role is covered, else the whole table. */
  reading(request: Request, role: Action): Store<A> {
    if (this.scoped === undefined || !this.covered(role)) return this.whole;
    const user = request.currentUser;
    return user === undefined ? (NO_ROWS as Store<A>) : this.scoped.for(user);
  }

  /** The store a new row goes into: for an owned model, stamped with the current user as its owner. */
  creating(request: Request): Store<A> {
    if (this.scoped === undefined) return this.whole;
    const user = request.currentUser;
    if (user === undefined) {
      throw new Forbidden(`A new ${this.words} needs a signed-in owner: sign in first (the model's \`owned\` actions should include Create).`);
    }
    return this.scoped.for(user);
  }

  /** Refuses (403) a change to someone else's row on a covered role; the row stays as it was. */
  checkWrite(request: Request, role: Action, row: A): void {
    if (this.scoped === undefined || !this.covered(role)) return;
    const user = request.currentUser;
    if (user === undefined) throw new Forbidden(`Only its owner may change this ${this.words}, and nobody is signed in.`);
    if (this.scoped.ownerOf(row) !== user) throw new Forbidden(`This ${this.words} belongs to another user: only its owner may change it.`);
  }

  /**
   * Whether a page shows the control for `role` on `row`: not to someone the covered role would
   * refuse. Display only, never access: on a public page (which reads nobody as its user) the
   * declaration's `identify` tells who is looking, so an owner still sees their Edit link.
   */
  shows(request: Request, role: Action, row: A): boolean {
    if (this.scoped === undefined || this.owned === undefined || !this.covered(role)) return true;
    const viewer = request.currentUser ?? viewerOf(this.owned, request);
    return viewer !== undefined && this.scoped.ownerOf(row) === viewer;
  }

  private covered(role: Action): boolean {
    return this.owned?.covers.has(role) === true;
  }
}

/** Who an owned declaration says is looking, without waiting: its `viewer`, else an `identify` that answers at once. */
function viewerOf(owned: OwnedDeclaration, request: Request): string | undefined {
  if (owned.viewer !== undefined) return owned.viewer(request);
  const named = owned.identify(request);
  return named instanceof Promise ? undefined : named.currentUser;
}
