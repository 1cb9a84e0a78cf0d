import { Forbidden } from "../http/failure.js";
import type { Request } from "../http/request.js";
import type { Action } from "./actions.js";
import type { FieldSpec } from "./model.js";
import type { OwnedDeclaration } from "./owned-declaration.js";
import { readableRows } from "./read-scope.js";
import { isPolicy, PolicyAccess } from "./policy.js";
import { EVERY_ROW, NO_ROW, type ShownRows } from "./shown-rows.js";
import { ScopedStore } from "./scoped-store.js";
import type { Draft, Store } from "./store.js";

/**
 * How a model's pages (and a handwritten route's `Store<Model>`) reach its rows: `Ownership`
 * under `owned` and `publicWhen`, `PolicyAccess` under a policy (issue 41). A request of
 * `undefined` is nobody's: an API call, which carries no session.
 */
export interface Access<A> {
  /** The whole table (for an owned model, its ScopedStore, which keeps owners on update). */
  readonly whole: Store<A>;
  /** Whether some readers see fewer rows than others: a row they cannot read does not exist for them. */
  readonly scopesReads: boolean;
  /** The rows a role reads. */
  reading(request: Request, role: Action): Store<A> | Promise<Store<A>>;
  /** The store a new row goes into (403 for a viewer who may not add one). */
  creating(request: Request | undefined): Store<A> | Promise<Store<A>>;
  /** Refuses (403) a change to `row` the viewer may not make by `role`. */
  checkWrite(request: Request | undefined, role: Action, row: A): void | Promise<void>;
  /**
   * Which rows a page shows the control for `role` on (display only), as a test asked once for a
   * page or a table and then of each row: who is looking is worked out once, not once a row.
   */
  showing(request: Request, role: Action): ShownRows<A>;
  /** A change's draft with what fw keeps of `row` whatever a form says (a policy's team field); the draft itself when nothing. */
  kept?(row: A, draft: Draft<A>): Draft<A>;
}

/**
 * How one model's pages use its store: the whole table, or, on a role the model's `owned`
 * declaration covers, the current user's rows alone; with a read scope (`publicWhen`), reads
 * see the public rows and the viewer's own. A model without `owned` always uses the whole
 * table and refuses nothing here.
 */
export class Ownership<A> implements Access<A> {
  private constructor(
    /** The whole table (for an owned model, its ScopedStore, which keeps owners on update). */
    readonly whole: Store<A>,
    private readonly scoped: ScopedStore<A> | undefined,
    private readonly owned: OwnedDeclaration | undefined,
    private readonly words: string,
    /** The read scope (`publicWhen`): a boolean field making its rows readable by everyone. */
    private readonly publicWhen: string | undefined,
  ) {}

  /**
   * Checks that an owned model was given a scoped store (the generated table always does), and
   * that a read scope names a boolean field; tells the `owned` declaration its model's rows.
   */
  static of<A>(
    store: Store<A>,
    owned: OwnedDeclaration | undefined,
    model: { readonly name: string; readonly path: string; readonly owner?: string; readonly fields: readonly FieldSpec[] },
    publicWhen?: string,
  ): Access<A> {
    if (isPolicy(owned)) {
      if (publicWhen !== undefined) throw new Error(`The model ${model.name} declares a policy and publicWhen: say who reads which rows in the policy's read rule alone (can.where("${publicWhen}", true)).`);
      return new PolicyAccess(store, owned, model.name.toLowerCase());
    }
    if (publicWhen !== undefined) checkReadScope(model, owned, publicWhen);
    if (owned === undefined) return new Ownership(store, undefined, undefined, model.name, undefined);
    if (!(store instanceof ScopedStore) || model.owner === undefined) {
      throw new Error(
        `The model ${model.name} declares \`owned\`, so its routes need a ScopedStore and a ModelSpec naming its owner field; ` +
          "build the model's routes through the generated table, or pass new ScopedStore(store, ownerField, decoder).",
      );
    }
    owned.ownsRowsOf?.(model, store as ScopedStore<unknown>);
    return new Ownership(store, store as ScopedStore<A>, owned, model.name.toLowerCase(), publicWhen);
  }

  /** Whether rows are hidden from some readers (`publicWhen`): a row they cannot read does not exist for them. */
  get scopesReads(): boolean {
    return this.publicWhen !== undefined;
  }

  /**
   * The store a role reads through (`readableRows`): the user's own rows when the role is
   * covered; with a read scope, the public rows and the viewer's own; else the whole table.
   * At once, unless a read scope has to ask the declaration's `identify` who is looking: every
   * derived page asks, and most need no promise for it.
   */
  reading(request: Request, role: Action): Store<A> | Promise<Store<A>> {
    if (this.scoped === undefined) return this.whole;
    if (this.covered(role)) return this.readAs(this.scoped, request.currentUser, role);
    if (this.publicWhen === undefined) return this.readAs(this.scoped, undefined, role);
    const scoped = this.scoped;
    return this.viewer(request).then((viewer) => this.readAs(scoped, viewer, role));
  }

  /** The rows `viewer` reads on `role` (`readableRows`). */
  private readAs(scoped: ScopedStore<A>, viewer: string | undefined, role: Action): Store<A> {
    return readableRows(scoped, { owned: this.owned, publicWhen: this.publicWhen }, viewer, role);
  }

  /** The store a new row goes into: for an owned model, stamped with the current user as its owner. */
  creating(request: Pick<Request, "currentUser"> | undefined): Store<A> {
    if (this.scoped === undefined) return this.whole;
    const user = request?.currentUser;
    if (user === undefined) {
      throw new Forbidden(`A new ${this.words} needs a signed-in owner: sign in first (the model's \`owned\` actions should include Create).`);
    }
    return this.scoped.for(user);
  }

  /** Refuses (403) a change to someone else's row on a covered role; the row stays as it was. */
  checkWrite(request: Pick<Request, "currentUser"> | undefined, role: Action, row: A): void {
    if (this.scoped === undefined || !this.covered(role)) return;
    const user = request?.currentUser;
    if (user === undefined) throw new Forbidden(`Only its owner may change this ${this.words}, and nobody is signed in.`);
    if (this.scoped.ownerOf(row) !== user) throw new Forbidden(`This ${this.words} belongs to another user: only its owner may change it.`);
  }

  /**
   * Which rows a page shows the control for `role` on: not to someone the covered role would
   * refuse. Display only, never access: on a public page (which reads nobody as its user) the
   * declaration's `identify` tells who is looking, so an owner still sees their Edit link.
   */
  showing(request: Request, role: Action): ShownRows<A> {
    if (this.scoped === undefined || this.owned === undefined || !this.covered(role)) return EVERY_ROW;
    const viewer = request.currentUser ?? viewerOf(this.owned, request);
    if (viewer === undefined) return NO_ROW;
    const scoped = this.scoped;
    return { has: (row) => scoped.ownerOf(row) === viewer };
  }

  /**
   * Who is looking, for a read scope: the guard's user, or on a public page (which runs with
   * nobody as its user) whoever the model's declaration's `identify` names from the session,
   * the same check a guarded page makes. Nobody when it names none.
   */
  private async viewer(request: Request): Promise<string | undefined> {
    if (request.currentUser !== undefined || this.owned === undefined) return request.currentUser;
    return (await this.owned.identify(request)).currentUser;
  }

  private covered(role: Action): boolean {
    return this.owned?.covers.has(role) === true;
  }
}

/** A read scope needs owners (the rows it hides are their owner's) and a boolean field to read. */
function checkReadScope(model: { readonly name: string; readonly fields: readonly FieldSpec[] }, owned: OwnedDeclaration | undefined, publicWhen: string): void {
  if (owned === undefined) {
    throw new Error(`The model ${model.name} declares publicWhen: ${JSON.stringify(publicWhen)} without \`owned\`: rows it hides are readable by their owner alone, so declare \`owned\` too.`);
  }
  const field = model.fields.find((f) => f.name === publicWhen);
  if (field?.input !== "checkbox") {
    throw new Error(`The model ${model.name} declares publicWhen: ${JSON.stringify(publicWhen)}, which is not one of its boolean fields: name a field of type boolean.`);
  }
}

/** Who an owned declaration says is looking, without waiting: its `viewer`, else an `identify` that answers at once. */
function viewerOf(owned: OwnedDeclaration, request: Request): string | undefined {
  if (owned.viewer !== undefined) return owned.viewer(request);
  const named = owned.identify(request);
  return named instanceof Promise ? undefined : named.currentUser;
}
