import type { Request } from "../http/request.js";
import { Redirect, type Response } from "../http/response.js";
import type { Actions } from "../resource/actions.js";
import { Route } from "../routing/route.js";
import type { Identify } from "../routing/route-table.js";
import { Guarded } from "./guarded.js";
import { defaultLimiters, Login } from "./login.js";
import { Owned } from "./owned.js";
import { identifyFromSession, requireUser } from "./require-user.js";
import { signedInUser, type SignedIn } from "./session-user.js";
import type { AuthPaths } from "./sign-in-pages.js";
import { Signup } from "./signup.js";
import type { RateLimiter } from "./rate-limit.js";
import type { UserFields, Users } from "./users.js";

/** What `formSignIn` takes: the users, and optionally sign-up, the mount, the address and the limits. */
export interface FormSignInOptions<U extends UserFields> {
  /** Where users are looked up and sign-up adds them. */
  readonly users: Users<U>;
  /** Mount `GET|POST /signup`. Default true. */
  readonly signUp?: boolean;
  /** The path the routes go under: `/login`, `/logout`, `/signup` relative to it. Default "/". */
  readonly mount?: string;
  /**
   * The client address sign-in failures are counted by. Default: the connection's address
   * (`request.clientAddress`). Behind a proxy of your own, read its header instead. When it
   * answers undefined only the per-account limit applies.
   */
  readonly addressOf?: (request: Request) => string | undefined;
  /** Replaces the limiters (tests, other numbers); default 5 per account and 20 per address per 15 minutes. */
  readonly limiters?: { readonly perAccount: RateLimiter; readonly perAddress: RateLimiter };
}

/**
 * fw's own sign-in mechanism (spec 5.1): a login form setting a signed session cookie. Make one
 * per app with `formSignIn`, then make its declarations: `guarded()` for pages and models,
 * `owned(covers)` for models whose rows belong to users. All of them carry the very same
 * routes, so the table mounts `GET|POST /login`, `POST /logout` and `GET|POST /signup` once.
 */
export class FormSignIn {
  /** The sign-in routes every declaration carries. */
  readonly routes: readonly Route[];
  readonly identify: Identify = identifyFromSession;

  /** @internal use `formSignIn(options)`. */
  constructor(
    readonly paths: AuthPaths,
    routes: readonly Route[],
  ) {
    this.routes = routes;
  }

  /** Pages and models (the roles `actions` names, all when absent) that need a signed-in user. */
  guarded(actions?: Actions): Guarded {
    return new Guarded({ through: requireUser(this.paths.login), identify: this.identify, carries: this.routes, ...(actions === undefined ? {} : { actions }) });
  }

  /**
   * Rows that belong to their owners: `covers` are the roles that read and write through the
   * current user's rows alone; `actions` (all when absent) the roles that need a signed-in user.
   */
  owned<M = unknown, U = unknown>(covers: Actions, actions?: Actions): Owned<M, U> {
    const init = { through: requireUser(this.paths.login), identify: this.identify, carries: this.routes, covers };
    return new Owned<M, U>(actions === undefined ? init : { ...init, actions });
  }

  /**
   * Who the request's session says is signed in, for layouts (which frame public pages too,
   * whose `currentUser` is nobody) and socket listeners. Display only: access is the guard's.
   */
  userOf(request: Pick<Request<unknown>, "session">): SignedIn | undefined {
    return signedInUser(request);
  }
}

/** Makes the form sign-in: its login, logout and (unless switched off) sign-up routes under `mount`. */
export function formSignIn<U extends UserFields>(options: FormSignInOptions<U>): FormSignIn {
  const paths = pathsUnder(options.mount ?? "/", options.signUp ?? true);
  const addressOf = options.addressOf ?? ((request: Request) => request.clientAddress);
  const login = new Login<U>({ users: options.users, paths, addressOf, ...(options.limiters ?? defaultLimiters()) });
  const source = "fw/auth";
  const routes: Route[] = [
    Route.get(paths.login, (request) => login.page(request), { source }),
    Route.post(paths.login, (request) => login.submit(request), { source }),
    Route.post(paths.logout, logout, { source }),
  ];
  if (paths.signup !== undefined) {
    const signup = new Signup<U>(options.users, { ...paths, signup: paths.signup });
    routes.push(Route.get(paths.signup, (request) => signup.page(request), { source }), Route.post(paths.signup, (request) => signup.submit(request), { source }));
  }
  return new FormSignIn(paths, routes);
}

/** `POST /logout` (the core has checked its CSRF token): an empty session, 303 to the home page. */
function logout(request: Request): Response {
  return Redirect("/").withSession(request.session.cleared().flash("notice", "You are signed out."));
}

function pathsUnder(mount: string, signUp: boolean): AuthPaths {
  if (!mount.startsWith("/")) throw new Error(`formSignIn: mount ${JSON.stringify(mount)} must be a path starting with "/", like "/" or "/account".`);
  const base = mount.replace(/\/+$/, "");
  return { login: `${base}/login`, logout: `${base}/logout`, signup: signUp ? `${base}/signup` : undefined };
}
