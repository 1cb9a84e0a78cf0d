/**
 * fw/auth's side of a model's policy (issue 41): `auth.policy<Post, User>({ owner: "author" },
 * (can) => ({ read: [can.where("published", true), can.own, can.role("admin")], … }))`. The
 * rules are data (runtime/resource/policy.ts): the pages read through them in the query and
 * check writes by them; this adds who is looking (the sign-in's user and roles, once per
 * request) and the guard (the actions no clause opens to anyone need a signed-in user).
 */
import type { Request } from "../http/request.js";
import { Actions, type Action } from "../resource/actions.js";
import { clausesOf, NOBODY, needsSignIn, type Clause, type PolicyDeclaration, type PolicyRules, type Viewer } from "../resource/policy.js";
import type { FieldValue } from "../resource/query.js";
import { Owned } from "./owned.js";
import type { GuardedInit } from "./guarded.js";
import type { OwnedModels } from "./owned-models.js";
import { canonicalRoles, type UserFields } from "./users.js";
import { currentMembership, isMemberRole, type MemberRole } from "./teams.js";
import type { Session } from "../http/session.js";

/** The clauses a policy's rules are written with: `can.own`, `can.role("admin")`, `can.where("published", true)`. */
export interface Can<M, R extends string> {
  /** Anyone, signed in or not, on every row. */
  readonly anyone: Clause;
  /** Any signed-in user, on every row. */
  readonly signedIn: Clause;
  /** A signed-in user, on their own rows (the policy's `owner` field holds their key). */
  readonly own: Clause;
  /** A signed-in user holding one of the roles, on every row. */
  role(...roles: readonly R[]): Clause;
  /** Anyone, on the rows whose field holds the value (`can.where("published", true)`). */
  where<K extends keyof M & string>(field: K, value: NonNullable<M[K]> & FieldValue): Clause;
  /** A member of the current team, on its rows (the policy's `team` field holds its key). */
  readonly member: Clause;
  /** A member of the current team holding `role` or a higher one (an owner is an admin), on its rows. */
  memberAs(role: MemberRole): Clause;
}

/** What the rules callback answers: the clauses of each action (any of which lets the viewer in). */
export interface PolicyInit {
  /** Index and Show. */
  readonly read: Clause | readonly Clause[];
  /** New and Create. */
  readonly create: Clause | readonly Clause[];
  /** Edit and Update. */
  readonly update: Clause | readonly Clause[];
  /** Destroy and its confirmation. */
  readonly destroy: Clause | readonly Clause[];
}

function canFor<M, R extends string>(): Can<M, R> {
  return {
    anyone: { who: { kind: "anyone" } },
    signedIn: { who: { kind: "signedIn" } },
    own: { who: { kind: "signedIn" }, rows: { kind: "own" } },
    role: (...roles) => ({ who: { kind: "role", roles: canonicalRoles(roles) } }),
    where: (field, value) => ({ who: { kind: "anyone" }, rows: { kind: "equals", field, value } }),
    member: { who: { kind: "member", atLeast: "member" }, rows: { kind: "team" } },
    memberAs: (role) => {
      if (!isMemberRole(role)) throw new TypeError(`fw/auth: can.memberAs(${JSON.stringify(role)}): a member role is "owner", "admin" or "member".`);
      return { who: { kind: "member", atLeast: role }, rows: { kind: "team" } };
    },
  };
}

const ACTIONS: readonly Action[] = ["Index", "New", "Show", "Edit", "Create", "Update", "Destroy"];

/** The rules as data, each action's clauses a list; `own` needs the policy's owner field, `member` its team field. */
export function policyRules<M, R extends string>(owner: string | undefined, rules: (can: Can<M, R>) => PolicyInit, team?: string): PolicyRules {
  const made = rules(canFor<M, R>());
  const list = (value: Clause | readonly Clause[]): readonly Clause[] => (Array.isArray(value) ? (value as readonly Clause[]) : [value as Clause]);
  const out: PolicyRules = { read: list(made.read), create: list(made.create), update: list(made.update), destroy: list(made.destroy) };
  for (const [action, clauses] of Object.entries(out)) {
    if (clauses.length === 0) throw new TypeError(`fw/auth: the policy's ${action} rule has no clause, so nobody could ${action}: name who may (can.role("admin")), or leave the action out of the model's \`actions\`.`);
    if (owner === undefined && clauses.some((clause: Clause) => clause.rows?.kind === "own")) {
      throw new TypeError(`fw/auth: the policy's ${action} rule says can.own, but the policy names no owner field: auth.policy<Post, User>({ owner: "author" }, …).`);
    }
    if (team === undefined && clauses.some((clause: Clause) => clause.rows?.kind === "team")) {
      throw new TypeError(`fw/auth: the policy's ${action} rule says can.member, but the policy names no team field: auth.policy<Draft, User>({ team: "team" }, …), the model's \`team: Id<Team>\`.`);
    }
  }
  return out;
}

/** The roles whose clauses open nothing to anyone: they need a signed-in user (the guard's `actions`). */
function signedInActions(rules: PolicyRules): Actions {
  return Actions.only(...ACTIONS.filter((role) => needsSignIn(clausesOf(rules, role))));
}

/** A model's policy: its guard (`Owned`, covering no role by ownership) with the rules and who is looking. */
export class Policy<M, U> extends Owned<M, U> implements PolicyDeclaration {
  readonly policy: PolicyRules;
  readonly owner: string | undefined;
  readonly team: string | undefined;
  readonly who: (request: Request) => Viewer | Promise<Viewer>;
  readonly whoNow: (request: Request) => Viewer | undefined;

  constructor(
    init: GuardedInit & { readonly models?: OwnedModels },
    fields: { readonly owner: string | undefined; readonly team: string | undefined },
    rules: PolicyRules,
    who: { readonly who: (request: Request) => Viewer | Promise<Viewer>; readonly whoNow: (request: Request) => Viewer | undefined },
  ) {
    super({ ...init, covers: Actions.only(), actions: signedInActions(rules) });
    this.policy = rules;
    this.owner = fields.owner;
    this.team = fields.team;
    this.who = who.who;
    this.whoNow = who.whoNow;
  }
}

/** Who is looking, from the user the sign-in read (undefined: nobody), acting in the session's current team. */
export function viewerOf(user: Pick<UserFields, "id" | "roles" | "teams"> | undefined, session?: Session): Viewer {
  if (user === undefined) return NOBODY;
  const team = session === undefined ? undefined : currentMembership(user.teams, session);
  return team === undefined ? { key: String(user.id), roles: user.roles ?? [] } : { key: String(user.id), roles: user.roles ?? [], team: { key: team.team, role: team.role } };
}
