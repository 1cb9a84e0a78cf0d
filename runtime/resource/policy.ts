/**
 * A model's policy (issue 41): who may do what to its rows, declared once on the model
 * (`policy: auth.policy<Post, User>(…)`), as data the pages turn into queries. Each action has
 * a list of clauses, any of which lets the viewer in: a clause says who (anyone, a signed-in
 * user, a user holding a role) and, optionally, which rows (the viewer's own, by the model's
 * owner field; rows whose field holds a value). Reads are filtered in the query (a row one may
 * not read is never loaded, and is a 404); writes are checked before they happen (403, the row
 * unchanged); pages show only the controls the viewer may use. The core knows this shape only:
 * fw/auth makes the declaration and tells who is looking.
 */
import { Forbidden } from "../http/failure.js";
import type { Request } from "../http/request.js";
import type { Action } from "./actions.js";
import type { OwnedDeclaration } from "./owned-declaration.js";
import type { FieldValue, RowCondition, SearchResults } from "./query.js";
import { narrowed } from "./row-filter.js";
import { ScopedStore } from "./scoped-store.js";
import { EVERY_ROW, NO_ROW, type ShownRows } from "./shown-rows.js";
import type { Draft, Store } from "./store.js";

/** Who is looking: their key (as the session spells it) and roles; nobody has neither. */
export interface Viewer {
  readonly key: string | undefined;
  readonly roles: readonly string[];
  /** The team they act in (the session's current team, while they are a member of it), with their role in it. */
  readonly team?: { readonly key: number; readonly role: MemberRank };
}

/** A member's role in a team, each including the ones after it: an owner is an admin is a member. */
export type MemberRank = "owner" | "admin" | "member";

/** Who a clause lets in. */
export type Who =
  | { readonly kind: "anyone" }
  | { readonly kind: "signedIn" }
  | { readonly kind: "role"; readonly roles: readonly string[] }
  /** A member of the current team holding `atLeast` or a higher member role. */
  | { readonly kind: "member"; readonly atLeast: MemberRank };

/**
 * Which rows a clause lets the viewer at: their own (the owner field holds their key), those
 * whose field holds a value, or their current team's (the team field holds its key).
 */
export type Rows = { readonly kind: "own" } | { readonly kind: "equals"; readonly field: string; readonly value: FieldValue } | { readonly kind: "team" };

/** One way in: `who` may act on `rows` (every row when absent). */
export interface Clause {
  readonly who: Who;
  readonly rows?: Rows;
}

/** The policy's actions: reading (Index, Show), creating (New, Create), updating (Edit, Update), destroying (Destroy and its confirmation). */
export interface PolicyRules {
  readonly read: readonly Clause[];
  readonly create: readonly Clause[];
  readonly update: readonly Clause[];
  readonly destroy: readonly Clause[];
}

/**
 * What a policy declaration gives a model's routes: a guard (the actions no clause opens to
 * anyone need a signed-in user), the rules, the owner field (`own` clauses compare it with the
 * viewer's key; Create stamps it), and who is looking.
 */
export type PolicyDeclaration = OwnedDeclaration & {
  readonly policy: PolicyRules;
  /** The owner field, when a clause says `own` (`author`). */
  readonly owner?: string;
  /** The team field, when a clause says `member` (`team: Id<Team>`): a row's team; Create stamps the viewer's current one. */
  readonly team?: string;
  /** Who is looking on this request (the guard's user, else whom the session names), with their roles: once per request. */
  readonly who: (request: Request) => Viewer | Promise<Viewer>;
  /** Who is looking, answered at once when it is known already (for display only). */
  readonly whoNow?: (request: Request) => Viewer | undefined;
};

/** Nobody: no key, no role. */
export const NOBODY: Viewer = Object.freeze({ key: undefined, roles: Object.freeze([]) as readonly string[] });

/** Whether a model's `owned` is a policy. */
export function isPolicy(owned: OwnedDeclaration | undefined): owned is PolicyDeclaration {
  return owned !== undefined && "policy" in owned && typeof (owned as { policy?: unknown }).policy === "object";
}

/** The rule of the action a derived role belongs to. */
export function clausesOf(rules: PolicyRules, role: Action): readonly Clause[] {
  switch (role) {
    case "Index":
    case "Show":
      return rules.read;
    case "New":
    case "Create":
      return rules.create;
    case "Edit":
    case "Update":
      return rules.update;
    case "Destroy":
      return rules.destroy;
  }
}

const RANK: Readonly<Record<MemberRank, number>> = { owner: 3, admin: 2, member: 1 };

/** Whether a member role is `atLeast` or above it (an owner is an admin). */
export function outranks(role: MemberRank, atLeast: MemberRank): boolean {
  return RANK[role] >= RANK[atLeast];
}

/** Whether the viewer is one the clause lets in. */
export function admits(who: Who, viewer: Viewer): boolean {
  if (who.kind === "anyone") return true;
  if (viewer.key === undefined) return false;
  if (who.kind === "member") return viewer.team !== undefined && outranks(viewer.team.role, who.atLeast);
  return who.kind === "signedIn" || who.roles.some((role) => viewer.roles.includes(role));
}

/** Whether an action's clauses need a signed-in user whatever the row: none opens it to anyone. */
export function needsSignIn(clauses: readonly Clause[]): boolean {
  return !clauses.some((clause) => clause.who.kind === "anyone");
}

/** What a viewer may reach by an action's clauses: every row, no row, or those a filter matches. */
export type Reach = { readonly kind: "all" } | { readonly kind: "none" } | { readonly kind: "some"; readonly anyOf: readonly RowCondition[] };

/**
 * The rows the clauses let `viewer` at: every row when a clause that admits them names no rows;
 * else the union of the admitted clauses' rows (`own` needs a viewer and an owner field); none
 * when no clause admits them.
 */
export function reachOf(clauses: readonly Clause[], viewer: Viewer, owner: { readonly field: string; readonly key: (text: string) => unknown } | undefined, team?: string): Reach {
  const conditions: RowCondition[] = [];
  for (const clause of clauses) {
    if (!admits(clause.who, viewer)) continue;
    const rows = clause.rows;
    if (rows === undefined) return { kind: "all" };
    if (rows.kind === "equals") conditions.push({ field: rows.field, equals: rows.value });
    else if (rows.kind === "team") {
      if (viewer.team !== undefined && team !== undefined) conditions.push({ field: team, equals: viewer.team.key });
    } else if (viewer.key !== undefined && owner !== undefined) conditions.push({ field: owner.field, equals: owner.key(viewer.key) as FieldValue });
  }
  return conditions.length === 0 ? { kind: "none" } : { kind: "some", anyOf: conditions };
}

/** A store holding no row: what a reach of none reads (and refuses every write to). */
class Nothing<A> implements Store<A> {
  async list() {
    return { rows: [], total: 0 };
  }
  async count(): Promise<number> {
    return 0;
  }
  async search(): Promise<SearchResults<A>> {
    return { hits: [], total: 0 };
  }
  async get(): Promise<A | undefined> {
    return undefined;
  }
  async insert(): Promise<A> {
    throw new Forbidden("You may not add one of these.");
  }
  async update(): Promise<A | undefined> {
    return undefined;
  }
  async delete(): Promise<boolean> {
    return false;
  }
}

/**
 * How one model's pages use its store under a policy (as `Ownership` does under `owned`): the
 * rows a role reads, the store a new row goes into, the check before a change, the controls a
 * page shows.
 */
export class PolicyAccess<A> {
  private readonly owner: { readonly field: string; readonly key: (text: string) => unknown } | undefined;

  constructor(
    /** The whole table (for a policy with an owner field, its ScopedStore, which keeps owners on update). */
    readonly whole: Store<A>,
    private readonly declaration: PolicyDeclaration,
    private readonly words: string,
  ) {
    const scoped = whole instanceof ScopedStore ? (whole as ScopedStore<A>) : undefined;
    if (declaration.owner !== undefined && scoped === undefined) {
      throw new Error(`The policy of ${words} names the owner field ${declaration.owner}, so its routes need a ScopedStore: build them through the generated table.`);
    }
    this.owner = declaration.owner === undefined || scoped === undefined ? undefined : { field: declaration.owner, key: (text) => scoped.ownerKey(text) };
  }

  /** Whether some readers see fewer rows than others. */
  get scopesReads(): boolean {
    return !this.declaration.policy.read.some((clause) => clause.who.kind === "anyone" && clause.rows === undefined);
  }

  /** The rows `viewer` reaches by `role`'s clauses, as a store. */
  rowsFor(viewer: Viewer, role: Action): Store<A> {
    const reach = reachOf(clausesOf(this.declaration.policy, role), viewer, this.owner, this.declaration.team);
    if (reach.kind === "all") return this.whole;
    if (reach.kind === "none") return new Nothing<A>();
    const base = this.whole instanceof ScopedStore ? (this.whole as ScopedStore<A>).whole : this.whole;
    return narrowed(base, { anyOf: reach.anyOf });
  }

  /** The rows a role reads: at once when who is looking is known, else once the policy's `who` answers. */
  reading(request: Request, role: Action): Store<A> | Promise<Store<A>> {
    const who = this.declaration.who(request);
    return who instanceof Promise ? who.then((viewer) => this.rowsFor(viewer, role)) : this.rowsFor(who, role);
  }

  /** Who is looking: nobody for an API call (no request: it carries no session). */
  private who(request: Request | undefined): Viewer | Promise<Viewer> {
    return request === undefined ? NOBODY : this.declaration.who(request);
  }

  /**
   * The store a new row goes into: the viewer may create one (403 otherwise); with an owner
   * field, stamped with them; with a team field, with their current team (a row of no team would
   * be nobody's: a viewer in none may not add one).
   */
  async creating(request: Request | undefined): Promise<Store<A>> {
    const viewer = await this.who(request);
    const reach = reachOf(this.declaration.policy.create, viewer, this.owner, this.declaration.team);
    if (reach.kind === "none") throw new Forbidden(viewer.key !== undefined && this.declaration.team !== undefined && viewer.team === undefined ? `A new ${this.words} belongs to a team, and you are in none: create or join a team first.` : `You may not add a new ${this.words}.`);
    const team = this.declaration.team;
    if (this.owner === undefined) return team === undefined ? this.whole : teamStamped(this.whole, team, viewer);
    if (viewer.key === undefined) throw new Forbidden(`A new ${this.words} needs a signed-in owner: sign in first.`);
    const own = (this.whole as ScopedStore<A>).for(viewer.key);
    return team === undefined ? own : teamStamped(own, team, viewer);
  }

  /** A change's draft with what fw keeps of the row: its team (forms never carry it, and a row never moves to another team). */
  kept(row: A, draft: Draft<A>): Draft<A> {
    const team = this.declaration.team;
    return team === undefined ? draft : ({ ...draft, [team]: (row as Record<string, unknown>)[team] } as Draft<A>);
  }

  /** Refuses (403) a change to a row the viewer may not change by `role`; the row stays as it was. */
  async checkWrite(request: Request | undefined, role: Action, row: A): Promise<void> {
    const viewer = await this.who(request);
    const reach = reachOf(clausesOf(this.declaration.policy, role), viewer, this.owner, this.declaration.team);
    if (reach.kind === "all") return;
    if (reach.kind === "none" || !matchesReach(row, reach.anyOf)) {
      throw new Forbidden(viewer.key === undefined ? `Only some users may change this ${this.words}, and nobody is signed in.` : `You may not change this ${this.words}.`);
    }
  }

  /**
   * Which rows a page shows the control for `role` on: display only (access is `checkWrite`'s).
   * Who is looking and what their clauses reach are worked out once for the page, not once a
   * row (an Index of 50 rows asked 50 times: bench/FINDINGS.md 48).
   */
  showing(request: Request, role: Action): ShownRows<A> {
    const viewer = this.declaration.whoNow?.(request) ?? { key: request.currentUser, roles: [] };
    const reach = reachOf(clausesOf(this.declaration.policy, role), viewer, this.owner, this.declaration.team);
    if (reach.kind === "all") return EVERY_ROW;
    if (reach.kind === "none") return NO_ROW;
    const anyOf = reach.anyOf;
    return { has: (row) => matchesReach(row, anyOf) };
  }
}

/** `store` whose inserts go into the viewer's current team (403 when they act in none). */
function teamStamped<A>(store: Store<A>, field: string, viewer: Viewer): Store<A> {
  const team = viewer.team;
  if (team === undefined) throw new Forbidden("This belongs to a team, and you are in none: create or join a team first.");
  const stamped: Store<A> = {
    list: (page) => store.list(page),
    count: (query) => store.count(query),
    search: (text, page) => store.search(text, page),
    get: (key) => store.get(key),
    insert: (draft) => store.insert({ ...draft, [field]: team.key } as Draft<A>),
    // The row's version too: a change on a stale form stays a 409 (optimistic locking).
    update: (key, draft, expected) => store.update(key, draft, expected),
    delete: (key) => store.delete(key),
  };
  // A narrowing the wrapped store does in its query (SqlStore's WHERE) stays in the query, stamped as well.
  const where = store.where?.bind(store);
  return where === undefined ? stamped : { ...stamped, where: (filter) => teamStamped(where(filter), field, viewer) };
}

/** Whether a row meets one of a reach's conditions (equalities: a policy names no other rows). */
function matchesReach(row: unknown, anyOf: readonly RowCondition[]): boolean {
  const record = row as Record<string, unknown>;
  // A loop, not `some` and its callback: asked of every row of an Index.
  for (const condition of anyOf) if ("equals" in condition && record[condition.field] === condition.equals) return true;
  return false;
}
