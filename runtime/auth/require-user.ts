import { Forbidden } from "../http/failure.js";
import { withCurrentUser, type Request } from "../http/request.js";
import { Redirect, type Response } from "../http/response.js";
import { API } from "../routing/kind.js";
import type { HttpRoute, Route } from "../routing/route.js";
import { withNext } from "./sign-in-pages.js";
import { signedInUser } from "./session-user.js";

/** What `routes` prints in the guard column for a route the form sign-in wraps. */
export const FORM_GUARD = "formSignIn";

/**
 * The form sign-in's `through` (spec 2.12, 5.3–5.5): a browser page answers nobody with a 303
 * to the login page (carrying where to come back to, on GET and HEAD only) and otherwise runs
 * with `currentUser` named; a socket needs a user at the handshake (403 otherwise, as it cannot
 * follow a redirect); an API route, which carries no session, is refused with 403.
 */
export function requireUser(loginPath: string): (route: Route) => Route {
  return (route) => {
    if (route.case === "ws") return { ...route, guard: FORM_GUARD, requiresUser: true };
    if (route.kind === API) return { ...route, guard: FORM_GUARD, handler: refuseApi };
    return { ...route, guard: FORM_GUARD, handler: signedInOnly(route, loginPath) };
  };
}

/** `identify` of the form sign-in: the user the session names; the request unchanged when it names nobody. */
export function identifyFromSession(request: Request): Request {
  const user = signedInUser(request);
  return user === undefined ? request : withCurrentUser(request, user.key);
}

function signedInOnly(route: HttpRoute, loginPath: string): HttpRoute["handler"] {
  const handler = route.handler;
  return (request) => {
    const user = signedInUser(request);
    return user === undefined ? toLogin(request, loginPath) : handler(withCurrentUser(request, user.key));
  };
}

/** 303 to sign in; a GET (or HEAD) comes back to where it was going, a form post does not (it would be replayed as a GET). */
function toLogin(request: Request, loginPath: string): Response {
  const reading = request.method === "GET" || request.method === "HEAD";
  return Redirect(reading ? withNext(loginPath, pathAndQuery(request)) : loginPath);
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
