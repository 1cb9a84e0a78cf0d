import { createHash } from "node:crypto";
import { Forbidden } from "../http/failure.js";
import type { RequestHeaders } from "../http/headers.js";
import { withCurrentUser, type Request } from "../http/request.js";
import type { HttpRoute, Route } from "../routing/route.js";
import { Guarded } from "./guarded.js";

/** What `routes` prints in the guard column for a route an API key guards. */
export const API_KEY_GUARD = "apiKey";

/** What `apiKey` takes. */
export interface ApiKeyOptions {
  /** Each API key and the key of the user it acts for. */
  readonly keys: ReadonlyMap<string, string | number>;
}

/** User keys by the SHA-256 of an API key's text: a lookup never compares the secret itself. */
type KeyTable = ReadonlyMap<string, string>;

/**
 * A guard for API routes (spec 5.1, 5.7): a program names itself with
 * `Authorization: Bearer <key>`; no cookie is read. A call without a key, or with one not
 * listed, is refused with 403, its detail saying which (there is no 401, spec 5.6).
 */
export class ApiKeyGuard extends Guarded {
  readonly #keys: KeyTable;

  constructor(options: ApiKeyOptions) {
    const keys: KeyTable = new Map([...options.keys].map(([key, user]) => [digest(key), String(user)]));
    super({ through: (route) => wrap(keys, route), identify: (request) => identify(keys, request) });
    this.#keys = keys;
  }

  /**
   * The user key a request's API key acts for, or undefined. For API handlers: an `ApiRequest`
   * carries no `currentUser`, so the handler asks the guard that let the call through.
   */
  callerOf(request: { readonly headers: RequestHeaders }): string | undefined {
    return callerOf(this.#keys, request.headers);
  }
}

/** A guard admitting API calls that carry one of `keys` (`Authorization: Bearer <key>`). */
export function apiKey(options: ApiKeyOptions): ApiKeyGuard {
  return new ApiKeyGuard(options);
}

function identify(keys: KeyTable, request: Request): Request {
  const user = callerOf(keys, request.headers);
  return user === undefined ? request : withCurrentUser(request, user);
}

function wrap(keys: KeyTable, route: Route): Route {
  if (route.case === "ws") return { ...route, guard: API_KEY_GUARD, requiresUser: true };
  const handler = route.handler;
  const checked: HttpRoute["handler"] = (request) => handler(withCurrentUser(request, admit(keys, request.headers)));
  return { ...route, guard: API_KEY_GUARD, handler: checked };
}

/** The caller's user key, or the 403 saying what was wrong. */
function admit(keys: KeyTable, headers: RequestHeaders): string {
  const header = headers.get("authorization");
  if (header === undefined) throw new Forbidden("This API needs an API key: send the header Authorization: Bearer <key>.");
  if (bearer(header) === undefined) throw new Forbidden("The Authorization header is not a bearer key: send Authorization: Bearer <key>.");
  const user = callerOf(keys, headers);
  if (user === undefined) throw new Forbidden("The API key is not valid.");
  return user;
}

function callerOf(keys: KeyTable, headers: RequestHeaders): string | undefined {
  const key = bearer(headers.get("authorization"));
  return key === undefined ? undefined : keys.get(digest(key));
}

function bearer(header: string | undefined): string | undefined {
  const match = header === undefined ? null : /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  return match?.[1];
}

function digest(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}
