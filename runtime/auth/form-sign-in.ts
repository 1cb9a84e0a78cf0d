import type { Request } from "../http/request.js";
import { Redirect, type Response } from "../http/response.js";
import type { Session } from "../http/session.js";
import type { Actions } from "../resource/actions.js";
import { Route } from "../routing/route.js";
import type { Identify } from "../routing/route-table.js";
import type { AccountControl } from "./account-control.js";
import { Accounts, type AccountMailer } from "./accounts.js";
import { InMemoryTokens, type AccountTokens } from "./account-tokens.js";
import { InMemoryApiTokens, type ApiTokenStore } from "./api-token-store.js";
import { ApiTokens, type Scopes, type TokenGuard } from "./api-tokens.js";
import { PER_ACCOUNT_AND_ADDRESS, PER_ADDRESS, RateLimiter, type AttemptLimiter, type Limit } from "./rate-limit.js";
import { SecondFactor } from "./second-factor.js";
import { InMemorySecondFactors, type SecondFactorStore } from "./second-factor-store.js";
import { InMemoryIdentities, type IdentityStore } from "./identity-store.js";
import { ProviderSignIn } from "./provider-sign-in.js";
import type { SignInProvider } from "./providers.js";
import { Passkeys } from "./passkeys.js";
import { InMemoryPasskeys, type PasskeyStore } from "./passkey-store.js";
import { NO_PASSWORD } from "./provider-sign-in.js";
import { Guarded } from "./guarded.js";
import { LiveSockets } from "./live-sockets.js";
import { defaultLimiters, Login, type SignInLimiters } from "./login.js";
import { Owned } from "./owned.js";
import { Policy, policyRules, viewerOf, type Can, type PolicyInit } from "./policy.js";
import type { Viewer } from "../resource/policy.js";
import { OwnedModels } from "./owned-models.js";
import { hashPassword } from "./password.js";
import { holdsRole, identifyFromSession, requireRole, requireUser, type SessionRules } from "./require-user.js";
import { SessionEnds, type Ending } from "./session-ends.js";
import { SessionReads } from "./session-reads.js";
import { claimOf, signedInSession, type SignedIn } from "./session-user.js";
import type { AuthPaths } from "./sign-in-pages.js";
import { Signup } from "./signup.js";
import { TeamFlows } from "./team-flows.js";
import { currentMembership, type MemberRole, type TeamStore } from "./teams.js";
import { canonicalRoles, type UserFields, type Users } from "./users.js";

/** How long a sign-in counts by default: 14 days from signing in, as HttpApp's session cookie. */
export const SIGN_IN_MAX_AGE_S = 14 * 24 * 60 * 60;

/** What `formSignIn` takes: the users, and optionally sign-up, the mount, the address, the limits and the sign-in's age. */
export interface FormSignInOptions<U extends UserFields, S extends string = never> {
  /** Where users are looked up, sign-up adds them, and signed-out sessions are remembered. */
  readonly users: Users<U>;
  /** Mount `GET|POST /signup`. Default true. */
  readonly signUp?: boolean;
  /** The path the routes go under: `/login`, `/logout`, `/signup` relative to it. Default "/". */
  readonly mount?: string;
  /**
   * The client address sign-in and sign-up attempts are counted by. Default: the connection's
   * address (`request.clientAddress`). Behind a proxy of your own, read its header instead.
   * When it answers undefined, such requests share one count.
   */
  readonly addressOf?: (request: Request) => string | undefined;
  /** Replaces the limiters (tests, other numbers, counts kept in a database). */
  readonly limiters?: SignInLimiters;
  /**
   * How long a sign-in counts, in seconds from signing in. Default 14 days (HttpApp's default
   * `sessionMaxAge`); a shorter HttpApp `sessionMaxAge` ends the cookie sooner anyway. Signed-out
   * sessions are remembered this long.
   */
  readonly maxAge?: number;
  /**
   * The app's mailer (fw/mail's `Mailer`): turns on the account flows (docs/security.md):
   * sign-up confirms the email by a link that makes the account and signs its user in,
   * "Forgot your password?" (`/password/forgot`), and the settings page (`/account`: change
   * password, change email, sign out everywhere, delete the account). Without it, sign-up makes
   * the account at once and there are no such pages.
   */
  readonly mailer?: AccountMailer;
  /** Where emailed tokens wait. Default: the users store's (`users.tokens()`), else in memory. */
  readonly tokens?: AccountTokens;
  /**
   * The app's API scopes (needs `mailer`: tokens are made on `/account`): each name and what it
   * lets a token do, `{ "posts:write": "Add posts" }`. Their names are the app's string-literal
   * union; an API route asks for one with `export const guarded = auth.token({ scope: "posts:write" })`,
   * and the build checks the name. Users then create, list and revoke per-user tokens on `/account`.
   */
  readonly scopes?: Scopes<S>;
  /** Where per-user API tokens are kept. Default: the users store's (`users.apiTokens()`), else in memory. */
  readonly apiTokens?: ApiTokenStore;
  /**
   * Where second factors (TOTP) are kept. Default: the users store's (`users.secondFactors()`),
   * else in memory. Two-step sign-in comes with the account pages (the mailer): users turn it on
   * and off on `/account`.
   */
  readonly secondFactors?: SecondFactorStore;
  /**
   * "Sign in with …": OpenID Connect issuers and GitHub (`providersFromEnv()` reads them from the
   * environment; an empty list hides the buttons). A first sign-in makes an account from the
   * provider's verified email; an account links a provider from `/account` or after its password.
   */
  readonly providers?: readonly SignInProvider[];
  /** Where linked provider accounts are kept. Default: the users store's (`users.identities()`), else in memory. */
  readonly identities?: IdentityStore;
  /**
   * Where passkeys are kept. Default: the users store's (`users.passkeys()`), else in memory.
   * Passkeys come with the account pages (the mailer): made on `/account`, used on the sign-in page.
   */
  readonly passkeys?: PasskeyStore;
  /**
   * Teams (issue 41): organisations whose members share rows (a model's policy names its `team`
   * field). Mounts `/teams` (your teams, a team's members, invitations by mail). Needs the mailer
   * and a users store that keeps teams (fw/db's `SqlUsers`). Default false.
   */
  readonly teams?: boolean;
}

/** The roles of the app's user type (`roles?: readonly ("admin" | "editor")[]`), else any role name. */
export type RoleOf<U> = U extends { readonly roles?: readonly (infer R)[] | undefined } ? (string extends R ? string : R & string) : string;

/**
 * fw's own sign-in mechanism (spec 5.1): a login form setting a signed session cookie. Make one
 * per app with `formSignIn`, then make its declarations: `guarded()` for pages and models,
 * `owned(covers)` for models whose rows belong to users. All of them carry the very same
 * routes, so the table mounts `GET|POST /login`, `POST /logout` and `GET|POST /signup` once.
 *
 * A session counts only while the users store agrees, asked once per request (the guard, the
 * layout's `userOf` and the handler share the read) and on every socket handshake: the user
 * still exists, their session epoch is the one the session was signed in with, and this session
 * was not signed out. Sign-out, `logoutEverywhere`, `changePassword` and `deleteUser` end
 * sessions, and close their sockets (public pages' too) in every process of the app.
 */
export class FormSignIn<U extends UserFields = UserFields, S extends string = never> {
  /** The sign-in routes every declaration carries. */
  readonly routes: readonly Route[];
  /** The account flows, when the sign-in was given a mailer. */
  accounts: Accounts<U> | undefined;
  /** The per-user API tokens, when the sign-in was given scopes. */
  apiTokens: ApiTokens<S> | undefined;
  /** The teams, when the sign-in keeps them (`teams: true`). */
  teams: TeamStore | undefined;
  /** @internal What the sign-in keeps of a user beside the users store: forgotten when the user is deleted. */
  forgets: readonly ((id: number) => Promise<unknown>)[] = [];
  /** @internal The models declared `owned` with this sign-in, as their routes were made: what can still name a user. */
  readonly ownedModels = new OwnedModels();
  readonly identify: Identify;

  /** @internal use `formSignIn(options)`. */
  constructor(
    readonly paths: AuthPaths,
    routes: readonly Route[],
    private readonly rules: SessionRules<U>,
  ) {
    this.routes = routes;
    this.identify = identifyFromSession(rules);
  }

  /** Pages and models (the roles `actions` names, all when absent) that need a signed-in user. */
  guarded(actions?: Actions): Guarded {
    return new Guarded({ ...this.declaration(), ...(actions === undefined ? {} : { actions }) });
  }

  /**
   * Pages and models (the roles `actions` names, all when absent) that need a signed-in user
   * holding one of `roles` (issue 41): anyone else, signed in or not, gets a 404, so such a
   * page does not say it exists. The roles are the app's (`User.roles?: readonly Role[]`).
   */
  role(roles: RoleOf<U> | readonly RoleOf<U>[], actions?: Actions): Guarded {
    const wanted = canonicalRoles(typeof roles === "string" ? [roles] : roles);
    if (wanted.length === 0) throw new TypeError("fw/auth: role() needs at least one role: auth.role(\"admin\").");
    return new Guarded({ ...this.declaration(), through: requireRole(this.rules, wanted), admits: holdsRole(this.rules, wanted), ...(actions === undefined ? {} : { actions }) });
  }

  /** Whether the request's signed-in user holds `role` (read with the user, once per request). */
  async hasRole(request: Pick<Request<unknown>, "session"> & Partial<Pick<Request<unknown>, "headers">>, role: RoleOf<U>): Promise<boolean> {
    return (await this.rules.reads.of(request))?.roles?.includes(role) === true;
  }

  /**
   * Gives the user exactly these roles (the users store's `setRoles`); their sockets close in
   * every process, to be asked again, and every process reads the new roles at its next
   * request. The user, or undefined when there is none.
   */
  async setRoles(id: number, roles: readonly RoleOf<U>[]): Promise<U | undefined> {
    const set = this.rules.users.setRoles;
    if (set === undefined) throw new Error("fw/auth: this users store keeps no roles (it has no setRoles): use InMemoryUsers or fw/db's SqlUsers, or add setRoles to yours.");
    const user = await set.call(this.rules.users, id, roles);
    this.rules.ends.announce({ user: String(id), access: true });
    return user;
  }

  /**
   * A model's policy (issue 41): who may read, create, update and destroy its rows, each action a
   * list of clauses any of which lets the viewer in (`can.anyone`, `can.signedIn`, `can.own`,
   * `can.role("admin")`, `can.where("published", true)`). `owner` names the field `can.own`
   * compares with the signed-in user's key, which Create fills and forms never show. Reads are
   * filtered in the query, writes checked before they happen, and the actions no clause opens to
   * anyone need a signed-in user.
   */
  policy<M, U2 = U>(init: { readonly owner?: keyof M & string; readonly team?: keyof M & string }, rules: (can: Can<M, RoleOf<U2>>) => PolicyInit): Policy<M, U2> {
    if (init.team !== undefined && this.teams === undefined) {
      throw new TypeError(`fw/auth: the policy names the team field "${init.team}", but this sign-in keeps no teams: formSignIn({ users, mailer, teams: true }).`);
    }
    const made = policyRules<M, RoleOf<U2>>(init.owner, rules, init.team);
    const whoNow = (request: Request): Viewer | undefined => {
      const known = this.rules.reads.known(request);
      return known === undefined ? undefined : viewerOf(known.user, request.session);
    };
    const who = (request: Request): Viewer | Promise<Viewer> => {
      // An API call carries no session: nobody.
      if ((request as { session?: unknown }).session === undefined) return viewerOf(undefined);
      // On a guarded page the guard's read of this request's user has settled: the same user, answered
      // at once (no promise, no turn before the page's statement: bench/FINDINGS.md 48).
      return whoNow(request) ?? this.rules.reads.of(request).then((user) => viewerOf(user, request.session));
    };
    return new Policy<M, U2>({ ...this.declaration(), models: this.ownedModels }, { owner: init.owner, team: init.team }, made, { who, whoNow });
  }

  /**
   * Rows that belong to their owners: `covers` are the roles that read and write through the
   * current user's rows alone; `actions` (all when absent) the roles that need a signed-in user.
   */
  owned<M = unknown, U2 = unknown>(covers: Actions, actions?: Actions): Owned<M, U2> {
    const init = { ...this.declaration(), covers, models: this.ownedModels };
    return new Owned<M, U2>(actions === undefined ? init : { ...init, actions });
  }

  /**
   * The guard of an API route a per-user token with `scope` (one of the app's `scopes`) may call:
   * `export const guarded = auth.token({ scope: "posts:write" })`. The build checks that the scope
   * is one of the app's (TS91090) and that the route is an API route (TS91091): a token never
   * works on a browser page, nor a session cookie on such a route.
   */
  token<T extends string>(options: { readonly scope: T }): TokenGuard<T, S> {
    if (this.apiTokens === undefined) throw new Error(`auth.token: the sign-in has no scopes. Give formSignIn({ …, mailer, scopes: { ${JSON.stringify(options.scope)}: "what it lets a token do" } }).`);
    return this.apiTokens.guard(options.scope);
  }

  /**
   * Who is signed in (their key and email), for layouts (which frame public pages too, whose
   * `currentUser` is nobody) and socket listeners: whom the guard would let in, asked of the
   * users store as the guard asks it, and once per request (the guard, the handler and the
   * layout share the read); undefined when the session names nobody or no longer counts. For
   * display: when the store cannot answer (a lost database) it is undefined too, so the page
   * (the guard's 503, say) is framed rather than lost to a failing layout. Access is the
   * guard's, and `currentUser` fails when the store does.
   */
  async userOf(request: Pick<Request<unknown>, "session"> & Partial<Pick<Request<unknown>, "headers">>): Promise<SignedIn | undefined> {
    let user: U | undefined;
    try {
      user = await this.rules.reads.of(request);
    } catch {
      return undefined;
    }
    return user === undefined ? undefined : { key: String(user.id), email: user.email, roles: user.roles ?? [] };
  }

  /**
   * The team the request's user works in (issue 41): the session's current team while they are a
   * member of it, else their first; with its name and their role in it. Undefined when nobody is
   * signed in, they are in no team, or the sign-in keeps no teams. For display and for handlers:
   * derived pages of team models read it themselves.
   */
  async currentTeam(request: Pick<Request<unknown>, "session"> & Partial<Pick<Request<unknown>, "headers">>): Promise<{ readonly id: number; readonly name: string; readonly role: MemberRole } | undefined> {
    if (this.teams === undefined) return undefined;
    const membership = currentMembership((await this.rules.reads.of(request))?.teams, request.session);
    const team = membership === undefined ? undefined : await this.teams.get(membership.team);
    return membership === undefined || team === undefined ? undefined : { id: team.id, name: team.name, role: membership.role };
  }

  /** The user the request's session signs in, as `userOf` reads it (once per request); undefined when nobody. */
  currentUser(request: Pick<Request<unknown>, "session"> & Partial<Pick<Request<unknown>, "headers">>): Promise<U | undefined> {
    return this.rules.reads.of(request);
  }

  /** A fresh signed-in session for `user` (after they changed their own password, to stay signed in here). */
  signedIn(session: Session, user: U): Session {
    return signedInSession(session, user);
  }

  /**
   * Locks the account (issue 41): it cannot sign in, by any way fw has, and every session of it
   * ends at once in every process, its sockets closed (the lock and a new session epoch are one
   * write); its per-user API tokens are revoked (unlocking does not bring them back). The user,
   * or undefined when there is none.
   */
  async lock(id: number): Promise<U | undefined> {
    const user = await this.lockable().call(this.rules.users, id, true);
    this.rules.ends.announce({ user: String(id) });
    if (user !== undefined) await this.apiTokens?.revokeAll(id);
    return user;
  }

  /** Unlocks the account: it may sign in again (its old sessions stay ended). The user, or undefined when there is none. */
  async unlock(id: number): Promise<U | undefined> {
    return this.lockable().call(this.rules.users, id, false);
  }

  /** @internal What fw/admin's back office changes accounts through (account-control.ts). */
  accountControl(): AccountControl<U> {
    return {
      users: this.rules.users,
      rolesChanged: (id) => this.rules.ends.announce({ user: String(id), access: true }),
      sessionsEnded: (id) => this.rules.ends.announce({ user: String(id) }),
      tokensRevoked: async (id) => {
        await this.apiTokens?.revokeAll(id);
      },
      currentUser: (request) => this.rules.reads.of(request),
    };
  }

  private lockable(): NonNullable<Users<U>["setLocked"]> {
    const set = this.rules.users.setLocked;
    if (set === undefined) throw new Error("fw/auth: this users store cannot lock an account (it has no setLocked): use InMemoryUsers or fw/db's SqlUsers, or add setLocked to yours.");
    return set;
  }

  /** Ends every session of the user, in every process (a new session epoch), and closes their sockets. */
  async logoutEverywhere(id: number): Promise<void> {
    this.ended(id, await this.rules.users.revokeAll(id));
  }

  /**
   * Sets the user's password (check it with `newPasswordProblem` first) and ends all their
   * sessions, as `logoutEverywhere` does; the user, or undefined when there is none. Give the
   * request that changed it `signedIn(session, user)` to keep that browser signed in.
   */
  async changePassword(id: number, password: string): Promise<U | undefined> {
    const user = await this.rules.users.setPasswordHash(id, await hashPassword(password));
    this.ended(id, user);
    return user;
  }

  /** Deletes the user, which ends their sessions (and closes their sockets); false when there was none. */
  async deleteUser(id: number): Promise<boolean> {
    const deleted = await this.rules.users.delete(id);
    // Records kept outside the users store do not go with their user by themselves (a foreign
    // key): tokens, and passkeys, a second factor and linked providers kept by stores of their own.
    if (deleted) {
      await this.apiTokens?.revokeAll(id);
      for (const forget of this.forgets) await forget(id);
    }
    this.rules.ends.announce({ user: String(id) });
    return deleted;
  }

  /** @internal `POST /logout` (the core has checked its CSRF token): this session revoked, an empty one, 303 home. */
  async logout(request: Request): Promise<Response> {
    const claim = claimOf(request.session);
    if (claim !== undefined) {
      const until = (request.session.issuedAt ?? Date.now()) + this.rules.maxAgeMs + 60_000;
      await this.rules.users.revokeSession(claim.id, claim.sessionId, until);
      this.rules.ends.announce({ user: String(claim.id), session: claim.sessionId });
    }
    return Redirect(request.href("/")).withSession(request.session.cleared().flash("notice", "You are signed out."));
  }

  /** Every session of user `id` but those at `user`'s new epoch ended (all of them when there is no such user). */
  private ended(id: number, user: U | undefined): void {
    const ending: Ending = user === undefined ? { user: String(id) } : { user: String(id), epoch: user.sessionEpoch };
    this.rules.ends.announce(ending);
  }

  private declaration(): { readonly through: (route: Route) => Route; readonly identify: Identify; readonly carries: readonly Route[]; readonly viewer: (request: Request) => string | undefined } {
    return { through: requireUser(this.rules), identify: this.identify, carries: this.routes, viewer: (request) => this.viewer(request) };
  }

  /**
   * Who is looking, at once, for display (an owner's Edit link on a public page): whom this
   * request's read of the store found, when one was made; else whom the session names.
   */
  private viewer(request: Request): string | undefined {
    const known = this.rules.reads.known(request);
    if (known !== undefined) return known.user === undefined ? undefined : String(known.user.id);
    const claim = claimOf(request.session);
    return claim === undefined ? undefined : String(claim.id);
  }
}

/** Makes the form sign-in: its login, logout and (unless switched off) sign-up routes under `mount`. */
export function formSignIn<U extends UserFields, S extends string = never>(options: FormSignInOptions<U, S>): FormSignIn<U, S> {
  const under = pathsUnder(options.mount ?? "/", options.signUp ?? true);
  const paths: AuthPaths = options.mailer === undefined ? under : { ...under, forgot: `${under.login.slice(0, -"/login".length)}/password/forgot` };
  const addressOf = options.addressOf ?? ((request: Request) => request.clientAddress);
  const limiters = options.limiters ?? defaultLimiters(options.users);
  const maxAge = options.maxAge ?? SIGN_IN_MAX_AGE_S;
  if (!Number.isFinite(maxAge) || maxAge <= 0) throw new Error(`formSignIn: maxAge ${maxAge} must be a positive number of seconds, like 1209600 (14 days).`);
  const maxAgeMs = maxAge * 1000;
  const ends = new SessionEnds();
  const reads = new SessionReads(options.users, maxAgeMs, () => ends.generation);
  const sockets = new LiveSockets(ends, async (request) => (await reads.fresh(request.session)) !== undefined);
  const rules: SessionRules<U> = { users: options.users, loginPath: paths.login, maxAgeMs, reads, ends, sockets };
  const secondFactor = options.mailer === undefined ? undefined : makeSecondFactor(options, addressOf, `${paths.login}/code`);
  const base = paths.login.slice(0, -"/login".length);
  // The providers ask the sign-in who is signed in; it is made just below.
  const made: { auth?: FormSignIn<U, S> } = {};
  const identities = options.identities ?? options.users.identities?.() ?? new InMemoryIdentities();
  const passkeyStore = options.passkeys ?? options.users.passkeys?.() ?? new InMemoryPasskeys();
  const passkeys =
    options.mailer === undefined
      ? undefined
      : new Passkeys<U>({
          store: passkeyStore,
          users: options.users,
          base,
          loginPath: paths.login,
          accountPath: `${base}/account`,
          currentUser: (request) => (made.auth as FormSignIn<U, S>).currentUser(request),
          addressOf,
          perAddress: limiters.perAddress,
          otherWaysIn: async (user) => (user.passwordHash === NO_PASSWORD ? 0 : 1) + (await identities.list(user.id)).length,
        });
  const providers =
    (options.providers ?? []).length === 0
      ? undefined
      : new ProviderSignIn<U>({
          providers: options.providers ?? [],
          users: options.users,
          identities,
          base,
          loginPath: paths.login,
          accountPath: `${base}/account`,
          currentUser: (request) => (made.auth as FormSignIn<U, S>).currentUser(request),
          ...(secondFactor === undefined ? {} : { secondFactor }),
          ...(passkeys === undefined ? {} : { otherWaysIn: (id: number) => passkeys.count(id) }),
        });
  const login = new Login<U>({ users: options.users, paths, addressOf, limiters, ...(secondFactor === undefined ? {} : { secondFactor }), ...(providers === undefined ? {} : { providers }), ...(passkeys === undefined ? {} : { passkeys }) });
  const source = "fw/auth";
  const routes: Route[] = [
    Route.get(paths.login, (request) => login.page(request), { source }),
    Route.post(paths.login, (request) => login.submit(request), { source }),
    ...(secondFactor === undefined
      ? []
      : [
          Route.get(secondFactor.path, (request) => secondFactor.page(request, paths.login), { source }),
          Route.post(secondFactor.path, (request) => secondFactor.submit(request, paths.login), { source }),
        ]),
  ];
  const auth = new FormSignIn<U, S>(paths, routes, rules);
  made.auth = auth;
  // The users store's own records go with its user (Users.delete); those kept elsewhere are forgotten by deleteUser.
  const elsewhere = (given: unknown, own: unknown): boolean => given !== undefined || own === undefined;
  auth.forgets = [
    ...(elsewhere(options.identities, options.users.identities)
      ? [
          async (id: number) => {
            for (const linked of await identities.list(id)) await identities.unlink(id, linked.provider);
          },
        ]
      : []),
    ...(elsewhere(options.passkeys, options.users.passkeys)
      ? [
          async (id: number) => {
            for (const key of await passkeyStore.list(id)) await passkeyStore.remove(id, key.id);
          },
        ]
      : []),
    ...(secondFactor !== undefined && elsewhere(options.secondFactors, options.users.secondFactors) ? [(id: number) => secondFactor.store.disable(id)] : []),
  ];
  if (options.scopes !== undefined && options.mailer === undefined) {
    throw new Error("formSignIn: scopes need a mailer: per-user API tokens are made on /account, which the account flows mount. Give formSignIn({ users, mailer, scopes }).");
  }
  auth.apiTokens = options.scopes === undefined ? undefined : new ApiTokens<S>(options.scopes, options.apiTokens ?? options.users.apiTokens?.() ?? new InMemoryApiTokens(), `${base}/account`);
  routes.push(Route.post(paths.logout, (request) => auth.logout(request), { source }));
  const accounts =
    options.mailer === undefined
      ? undefined
      : new Accounts<U>({
          users: options.users,
          mailer: options.mailer,
          tokens: options.tokens ?? options.users.tokens?.() ?? new InMemoryTokens(),
          base: paths.login.slice(0, -"/login".length),
          loginPath: paths.login,
          addressOf,
          currentUser: (request) => auth.currentUser(request),
          changePassword: (id, password) => auth.changePassword(id, password),
          logoutEverywhere: (id) => auth.logoutEverywhere(id),
          deleteUser: (id) => auth.deleteUser(id),
          ownedRows: (id) => auth.ownedModels.holding(String(id)),
          ...(options.users.accountData === undefined ? {} : { data: options.users.accountData() }),
          ...(auth.apiTokens === undefined ? {} : { apiTokens: auth.apiTokens as unknown as ApiTokens }),
          ...(secondFactor === undefined ? {} : { secondFactor }),
          ...(providers === undefined ? {} : { providers }),
          ...(passkeys === undefined ? {} : { passkeys }),
        });
  auth.accounts = accounts;
  if (passkeys !== undefined) routes.push(...passkeys.routes());
  if (providers !== undefined) routes.push(...providers.routes());
  if (accounts !== undefined) routes.push(...accounts.routes());
  if (options.teams === true) routes.push(...teamRoutes(auth, options, paths, rules));
  if (paths.signup !== undefined) {
    const signup = new Signup<U>(options.users, { ...paths, signup: paths.signup }, limiters.signUps, addressOf, accounts);
    routes.push(Route.get(paths.signup, (request) => signup.page(request), { source }), Route.post(paths.signup, (request) => signup.submit(request), { source }));
  }
  return auth;
}

/** Two-step sign-in: its store, and its code limits kept where sign-in's are (the users store's, else memory). */
function makeSecondFactor<U extends UserFields, S extends string>(options: FormSignInOptions<U, S>, addressOf: (request: Request) => string | undefined, path: string): SecondFactor<U> {
  const make = (scope: string, limit: Limit): AttemptLimiter => options.users.attemptLimiter?.(scope, limit) ?? new RateLimiter(limit);
  const limiters = { perAccountAndAddress: make("second-factor/account+address", PER_ACCOUNT_AND_ADDRESS), perAddress: make("second-factor/address", PER_ADDRESS) };
  const store = options.secondFactors ?? options.users.secondFactors?.() ?? new InMemorySecondFactors();
  return new SecondFactor<U>(store, options.users, limiters, addressOf, path);
}

/** Turns teams on: the users store's team store, and the team pages. */
function teamRoutes<U extends UserFields, S extends string>(auth: FormSignIn<U, S>, options: FormSignInOptions<U, S>, paths: AuthPaths, rules: SessionRules<U>): Route[] {
  const store = options.users.teams?.();
  if (store === undefined) throw new Error("formSignIn: teams: true needs a users store that keeps teams: fw/db's SqlUsers (users.teams()).");
  if (options.mailer === undefined) throw new Error("formSignIn: teams: true needs the mailer: members are invited by mail (formSignIn({ users, mailer, teams: true })).");
  auth.teams = store;
  const flows = new TeamFlows<U>({
    users: options.users,
    store,
    mailer: options.mailer,
    base: paths.login.slice(0, -"/login".length),
    loginPath: paths.login,
    signupPath: paths.signup,
    currentUser: (request) => auth.currentUser(request),
    accessChanged: (id) => rules.ends.announce({ user: String(id), access: true }),
  });
  return flows.routes();
}

function pathsUnder(mount: string, signUp: boolean): AuthPaths {
  if (!mount.startsWith("/")) throw new Error(`formSignIn: mount ${JSON.stringify(mount)} must be a path starting with "/", like "/" or "/account".`);
  const base = mount.replace(/\/+$/, "");
  return { login: `${base}/login`, logout: `${base}/logout`, signup: signUp ? `${base}/signup` : undefined };
}
