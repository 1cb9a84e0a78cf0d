import { Forbidden, NotFound } from "../http/failure.js";
import { copyRequest, withCurrentUser, type Request } from "../http/request.js";
import { Redirect, type Response } from "../http/response.js";
import { API } from "../routing/kind.js";
import type { HttpRoute, Route } from "../routing/route.js";
import type { Identify } from "../routing/route-table.js";
import type { LiveSockets } from "./live-sockets.js";
import type { SessionEnds } from "./session-ends.js";
import type { SessionReads } from "./session-reads.js";
import { withNext } from "./sign-in-pages.js";
import { claimOf, withoutOldEmail } from "./session-user.js";
import type { UserFields, Users } from "./users.js";

/** What `routes` prints in the guard column for a route the form sign-in wraps. */
export const FORM_GUARD = "formSignIn";

/** What the form sign-in's guard checks a session against. */
export interface SessionRules<U extends UserFields> {
  readonly users: Users<U>;
  readonly loginPath: string;
  /** How long a sign-in counts (from sign-in), whatever the session cookie's own maximum age. */
  readonly maxAgeMs: number;
  /** The user each request's session signs in, read once per request. */
  readonly reads: SessionReads<U>;
  /** Session endings, told to every process. */
  readonly ends: SessionEnds;
  readonly sockets: LiveSockets;
}

/**
 * The form sign-in's `through` (spec 2.12, 5.3–5.5): a browser page answers nobody with a 303
 * to the login page (carrying where to come back to, on GET and HEAD only) and otherwise runs
 * with `currentUser` named; a socket needs a user at the handshake (403 otherwise, as it cannot
 * follow a redirect) and is asked again once open; an API route, which carries no session, is
 * refused with 403. "A user" is one the users store still has, with the session still counting
 * (`sessionUser`), asked once per request.
 */
export function requireUser<U extends UserFields>(rules: SessionRules<U>): (route: Route) => Route {
  return (route) => {
    if (route.case === "ws") return { ...route, guard: FORM_GUARD, requiresUser: true, listener: rules.sockets.track(route.listener) };
    if (route.kind === API) return { ...route, guard: FORM_GUARD, handler: refuseApi };
    return { ...route, guard: FORM_GUARD, handler: signedInOnly(route, rules) };
  };
}

/**
 * `identify` of the form sign-in: the request with `currentUser` naming the user its session
 * signs in (asked of the store, once per request); the request unchanged when its session names
 * nobody; and without the user it names when that session no longer counts (a socket's page
 * asking again after its handshake reads nobody, never the user of an ended session).
 */
export function identifyFromSession<U extends UserFields>(rules: Pick<SessionRules<U>, "reads" | "ends" | "sockets">): Identify {
  return (request) => {
    const claim = claimOf(request.session);
    if (claim === undefined) return request;
    const generation = rules.ends.generation;
    return rules.reads.of(request).then((user) => {
      if (user === undefined) return request.currentUser === String(claim.id) ? withCurrentUser(request, undefined) : request;
      const named = request.currentUser === String(user.id) ? request : withCurrentUser(request, String(user.id));
      rules.sockets.named(named, generation);
      return named;
    });
  };
}

/** What `routes` prints in the guard column for a route a role guard wraps. */
export const ROLE_GUARD = "formSignIn role";

/**
 * A role guard's `through` (issue 41): as `requireUser`, but the signed-in user must hold one of
 * `roles` (read with the user, once per request, so a revoked role counts at once in every
 * process). Anyone else, signed in or not, gets a 404: a page of the back office does not say
 * it exists. A socket needs such a user at the handshake and is closed (1008) once open when the
 * user holds none of the roles; when their roles change, their sockets close and are asked again.
 */
export function requireRole<U extends UserFields>(rules: SessionRules<U>, roles: readonly string[]): (route: Route) => Route {
  const holds = holdsOneOf<U>(roles);
  return (route) => {
    if (route.case === "ws") {
      const tracked = rules.sockets.track(route.listener);
      const listener = {
        ...tracked,
        open: async (connection: Parameters<NonNullable<typeof tracked.open>>[0]) => {
          if (!holds(await rules.reads.of(connection.request))) return connection.close(1008, "this page needs a role you do not hold");
          await tracked.open?.(connection);
        },
      };
      return { ...route, guard: ROLE_GUARD, requiresUser: true, listener };
    }
    if (route.kind === API) return { ...route, guard: ROLE_GUARD, handler: refuseApi };
    const handler = route.handler;
    return {
      ...route,
      guard: ROLE_GUARD,
      handler: async (request) => {
        const user = await rules.reads.of(request);
        if (!holds(user)) throw new NotFound();
        return handler(withCurrentUser(request, String((user as U).id)));
      },
    };
  };
}

/** Whether a user holds one of `roles` (what `requireRole` lets through). */
function holdsOneOf<U extends UserFields>(roles: readonly string[]): (user: U | undefined) => boolean {
  return (user) => user !== undefined && roles.some((role) => user.roles?.includes(role) === true);
}

/**
 * Whether the request's viewer would pass `requireRole(rules, roles)`, for display only (a
 * derived page's controls): the user is read once per request, as the guard reads it.
 */
export function holdsRole<U extends UserFields>(rules: SessionRules<U>, roles: readonly string[]): (request: Request) => Promise<boolean> {
  const holds = holdsOneOf<U>(roles);
  return async (request) => (request as { session?: unknown }).session !== undefined && holds(await rules.reads.of(request));
}

function signedInOnly<U extends UserFields>(route: HttpRoute, rules: SessionRules<U>): HttpRoute["handler"] {
  const handler = route.handler;
  return async (request) => {
    const user = await rules.reads.of(request);
    if (user !== undefined) {
      const session = withoutOldEmail(request.session);
      if (session === request.session) return handler(withCurrentUser(request, String(user.id)));
      // A cookie an older fw signed carries the email in readable form: the answer drops it.
      const answer = await handler(copyRequest(request, { session, currentUser: String(user.id) }));
      return answer.session === undefined ? answer.withSession(session) : answer;
    }
    const answer = toLogin(request, rules.loginPath);
    // A session that names someone but no longer counts is dropped, so the layout stops showing them.
    return claimOf(request.session) === undefined ? answer : answer.withSession(request.session.cleared());
  };
}

/**
 * 303 to sign in, at the login page of the table the request's route sits in (under its
 * `Route.under` prefix); a GET (or HEAD) comes back to where it was going, a form post does
 * not (it would be replayed as a GET).
 */
function toLogin(request: Request, loginPath: string): Response {
  const reading = request.method === "GET" || request.method === "HEAD";
  const login = request.href(loginPath);
  return Redirect(reading ? withNext(login, pathAndQuery(request)) : login);
}

function pathAndQuery(request: Request): string {
  let query = "";
  try {
    query = new URLSearchParams([...request.query.entries()]).toString();
  } catch {
    // A malformed query is left behind: the page will answer it once the user is signed in.
  }
  return query === "" ? request.path : `${request.path}?${query}`;
}

function refuseApi(): never {
  throw new Forbidden("This API route is guarded by the form sign-in, and an API call carries no session: guard it with an API key instead.");
}
