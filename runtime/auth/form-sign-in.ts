import type { Request } from "../http/request.js";
import { Redirect, type Response } from "../http/response.js";
import type { Session } from "../http/session.js";
import type { Actions } from "../resource/actions.js";
import { Route } from "../routing/route.js";
import type { Identify } from "../routing/route-table.js";
import { Guarded } from "./guarded.js";
import { LiveSockets } from "./live-sockets.js";
import { defaultLimiters, Login, type SignInLimiters } from "./login.js";
import { Owned } from "./owned.js";
import { hashPassword } from "./password.js";
import { identifyFromSession, requireUser, type SessionRules } from "./require-user.js";
import { claimOf, sessionUser, signedInSession, signedInUser, type SignedIn } from "./session-user.js";
import type { AuthPaths } from "./sign-in-pages.js";
import { Signup } from "./signup.js";
import type { UserFields, Users } from "./users.js";

/** How long a sign-in counts by default: 14 days from signing in, as HttpApp's session cookie. */
export const SIGN_IN_MAX_AGE_S = 14 * 24 * 60 * 60;

/** What `formSignIn` takes: the users, and optionally sign-up, the mount, the address, the limits and the sign-in's age. */
export interface FormSignInOptions<U extends UserFields> {
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
}

/**
 * fw's own sign-in mechanism (spec 5.1): a login form setting a signed session cookie. Make one
 * per app with `formSignIn`, then make its declarations: `guarded()` for pages and models,
 * `owned(covers)` for models whose rows belong to users. All of them carry the very same
 * routes, so the table mounts `GET|POST /login`, `POST /logout` and `GET|POST /signup` once.
 *
 * A session counts only while the users store agrees, asked on every guarded request and
 * socket handshake: the user still exists, their session epoch is the one the session was
 * signed in with, and this session was not signed out. `logoutEverywhere`, `changePassword` and
 * `deleteUser` end sessions (and close this process's sockets of them).
 */
export class FormSignIn<U extends UserFields = UserFields> {
  /** The sign-in routes every declaration carries. */
  readonly routes: readonly Route[];
  readonly identify: Identify;

  /** @internal use `formSignIn(options)`. */
  constructor(
    readonly paths: AuthPaths,
    routes: readonly Route[],
    private readonly rules: SessionRules<U>,
  ) {
    this.routes = routes;
    this.identify = identifyFromSession(rules.users, rules.maxAgeMs);
  }

  /** Pages and models (the roles `actions` names, all when absent) that need a signed-in user. */
  guarded(actions?: Actions): Guarded {
    return new Guarded({ ...this.declaration(), ...(actions === undefined ? {} : { actions }) });
  }

  /**
   * Rows that belong to their owners: `covers` are the roles that read and write through the
   * current user's rows alone; `actions` (all when absent) the roles that need a signed-in user.
   */
  owned<M = unknown, U2 = unknown>(covers: Actions, actions?: Actions): Owned<M, U2> {
    const init = { ...this.declaration(), covers };
    return new Owned<M, U2>(actions === undefined ? init : { ...init, actions });
  }

  /**
   * Who the request's session says is signed in, for layouts (which frame public pages too,
   * whose `currentUser` is nobody) and socket listeners. Display only: it does not ask the users
   * store (a guarded page does, and drops a session that no longer counts); access is the guard's.
   */
  userOf(request: Pick<Request<unknown>, "session">): SignedIn | undefined {
    return signedInUser(request);
  }

  /** The user the request's session signs in, asked of the users store (as the guard does); undefined when nobody. */
  currentUser(request: Pick<Request<unknown>, "session">): Promise<U | undefined> {
    return sessionUser(this.rules.users, request.session, this.rules.maxAgeMs);
  }

  /** A fresh signed-in session for `user` (after they changed their own password, to stay signed in here). */
  signedIn(session: Session, user: U): Session {
    return signedInSession(session, user);
  }

  /** Ends every session of the user, in every process (a new session epoch), and closes their sockets here. */
  async logoutEverywhere(id: number): Promise<void> {
    await this.rules.users.revokeAll(id);
    this.rules.sockets.closeUser(String(id));
  }

  /**
   * Sets the user's password (check it with `passwordProblem` first) and ends all their
   * sessions, as `logoutEverywhere` does; the user, or undefined when there is none. Give the
   * request that changed it `signedIn(session, user)` to keep that browser signed in.
   */
  async changePassword(id: number, password: string): Promise<U | undefined> {
    const user = await this.rules.users.setPasswordHash(id, await hashPassword(password));
    this.rules.sockets.closeUser(String(id));
    return user;
  }

  /** Deletes the user, which ends their sessions; false when there was none. */
  async deleteUser(id: number): Promise<boolean> {
    const deleted = await this.rules.users.delete(id);
    this.rules.sockets.closeUser(String(id));
    return deleted;
  }

  /** @internal `POST /logout` (the core has checked its CSRF token): this session revoked, an empty one, 303 home. */
  async logout(request: Request): Promise<Response> {
    const claim = claimOf(request.session);
    if (claim !== undefined) {
      const until = (request.session.issuedAt ?? Date.now()) + this.rules.maxAgeMs + 60_000;
      await this.rules.users.revokeSession(claim.id, claim.sessionId, until);
      this.rules.sockets.closeSession(String(claim.id), claim.sessionId);
    }
    return Redirect(request.href("/")).withSession(request.session.cleared().flash("notice", "You are signed out."));
  }

  private declaration(): { readonly through: (route: Route) => Route; readonly identify: Identify; readonly carries: readonly Route[]; readonly viewer: (request: Request) => string | undefined } {
    return { through: requireUser(this.rules), identify: this.identify, carries: this.routes, viewer: (request) => signedInUser(request)?.key };
  }
}

/** Makes the form sign-in: its login, logout and (unless switched off) sign-up routes under `mount`. */
export function formSignIn<U extends UserFields>(options: FormSignInOptions<U>): FormSignIn<U> {
  const paths = pathsUnder(options.mount ?? "/", options.signUp ?? true);
  const addressOf = options.addressOf ?? ((request: Request) => request.clientAddress);
  const limiters = options.limiters ?? defaultLimiters(options.users);
  const maxAge = options.maxAge ?? SIGN_IN_MAX_AGE_S;
  if (!Number.isFinite(maxAge) || maxAge <= 0) throw new Error(`formSignIn: maxAge ${maxAge} must be a positive number of seconds, like 1209600 (14 days).`);
  const rules: SessionRules<U> = { users: options.users, loginPath: paths.login, maxAgeMs: maxAge * 1000, sockets: new LiveSockets() };
  const login = new Login<U>({ users: options.users, paths, addressOf, limiters });
  const source = "fw/auth";
  const routes: Route[] = [
    Route.get(paths.login, (request) => login.page(request), { source }),
    Route.post(paths.login, (request) => login.submit(request), { source }),
  ];
  const auth = new FormSignIn<U>(paths, routes, rules);
  routes.push(Route.post(paths.logout, (request) => auth.logout(request), { source }));
  if (paths.signup !== undefined) {
    const signup = new Signup<U>(options.users, { ...paths, signup: paths.signup }, limiters.signUps, addressOf);
    routes.push(Route.get(paths.signup, (request) => signup.page(request), { source }), Route.post(paths.signup, (request) => signup.submit(request), { source }));
  }
  return auth;
}

function pathsUnder(mount: string, signUp: boolean): AuthPaths {
  if (!mount.startsWith("/")) throw new Error(`formSignIn: mount ${JSON.stringify(mount)} must be a path starting with "/", like "/" or "/account".`);
  const base = mount.replace(/\/+$/, "");
  return { login: `${base}/login`, logout: `${base}/logout`, signup: signUp ? `${base}/signup` : undefined };
}
