import { ApiRequest, expectingJson, expectingUpload, withQueryParams, type Request } from "../http/request.js";
import type { Fields } from "../http/fields.js";
import { decodeQuery, type QueryDecoder } from "../http/query-params.js";
import type { JsonCheck } from "../http/json.js";
import type { Response } from "../http/response.js";
import { isMethod, type Method } from "../http/method.js";
import { API, BROWSER, type Kind } from "./kind.js";
import { PathPattern } from "./path-pattern.js";
import type { ParamDecoders } from "./from-path.js";
import type { WsListener } from "./ws-listener.js";
import { BootError } from "./boot-error.js";
import { isFwEndpoint } from "./fw-endpoint.js";
import type { ApiDescription } from "./api-description.js";
import { fileFieldsProblem, type FileFields } from "../http/uploads.js";
import type { UploadBody } from "../http/upload-body.js";

/**
 * A browser route's handler (spec 2.4). `P` is the params type the handler reads; dispatch has
 * decoded them through the route's `params` decoders before the call.
 * `any` is the default so that a table can hold handlers that each narrowed `P` differently.
 */
// biome-ignore lint/suspicious/noExplicitAny: see above
export type Handler<P = any, Q = any> = (request: Request<P, Q>) => Response | Promise<Response>;

/** An API route's handler: it takes an `ApiRequest`, and that alone makes the route an API route. */
// biome-ignore lint/suspicious/noExplicitAny: as for Handler
export type ApiHandler<P = any, Q = any> = (request: ApiRequest<P, never, Q>) => Response | Promise<Response>;

/** Which of two routes on one method and path wins (spec 2.1, 4.3). */
export const Origin = { Handwritten: "Handwritten", Resource: "Resource" } as const;
export type Origin = (typeof Origin)[keyof typeof Origin];

export interface HttpRoute {
  readonly case: "http";
  readonly method: Method;
  readonly path: PathPattern;
  readonly kind: Kind;
  readonly origin: Origin;
  /** Always called with a `Request`; an API route's handler is adapted through `ApiRequest.of`. */
  readonly handler: Handler;
  /** Decoders for the path parameters; a parameter without one stays a string. */
  readonly params?: ParamDecoders;
  /** Where the handler comes from, for `routes` and messages: a source file or a function name. */
  readonly source: string;
  /** The guard that covers this route, as `routes` prints it; none on an unguarded route. */
  readonly guard?: string;
  /** A form page's submit target (New → POST /posts): boot warns when it is not mounted. */
  readonly submits?: { readonly method: Method; readonly path: string };
  /** A derived route's role (`Index` … `Destroy`): what a model's guard declaration covers. */
  readonly role?: string;
  /** A derived route's model, by name: one name is one model, so boot refuses two of one name from two sources (conflicts.ts). */
  readonly model?: string;
  /** The prefix `Route.under` put the route under ("/admin"): the handler's `request.mount`. */
  readonly mount?: string;
  /**
   * Writes the handler's `Json(value)` answers: typia's typed stringify of the answer type the
   * handler's return type says (`json.createAssertStringify<T>()`, written by the build), which
   * checks the value and writes only `T`'s properties. Without one, `JSON.stringify`.
   */
  readonly stringify?: (value: unknown) => string;
  /** Where the app's OpenAPI description of this route is (written by the build; API routes). */
  readonly described?: Described;
  /**
   * The file fields a `multipart/form-data` body may carry, with their limits and types (the
   * generated table writes them from a model's file fields). A route without them takes no file:
   * a file part is a 400, while its text fields are read from a multipart body as from any form.
   */
  readonly files?: FileFields;
}

/**
 * How a generated API route finds its OpenAPI description: its operation's key in the app's
 * generated description (`"GET /api/posts/:id"`), and a loader of that module, imported only
 * when the document is asked for (`<app> openapi`, `/fw/openapi.json` in dev).
 */
export interface Described {
  readonly operation: string;
  readonly load: () => Promise<ApiDescription>;
}

export interface WsRoute {
  readonly case: "ws";
  readonly path: PathPattern;
  readonly origin: Origin;
  readonly listener: WsListener;
  readonly source: string;
  readonly guard?: string;
  /**
   * Refuse the handshake with Forbidden unless the table's `identify` names a user (spec 5.4):
   * a socket cannot follow a redirect to the login page. Set by a guard's `through`.
   */
  readonly requiresUser?: boolean;
  /** The prefix `Route.under` put the route under ("/admin"): the connection's `request.mount`. */
  readonly mount?: string;
}

/** What `Route.ws` takes beside the path and the listener. */
export interface WsRouteOptions {
  readonly origin?: Origin;
  readonly source?: string;
  readonly guard?: string;
  readonly requiresUser?: boolean;
}

/** A route is one of two cases (spec 2.1). */
export type Route = HttpRoute | WsRoute;

export interface HttpRouteInit {
  readonly method: Method;
  readonly path: string;
  readonly handler: Handler;
  readonly params?: ParamDecoders;
  readonly origin?: Origin;
  readonly source?: string;
  readonly guard?: string;
  readonly submits?: { readonly method: Method; readonly path: string };
  /** See `HttpRoute.stringify`. */
  readonly stringify?: (value: unknown) => string;
  /** See `HttpRoute.described`. */
  readonly described?: Described;
  /** See `HttpRoute.files`. */
  readonly files?: FileFields;
  /**
   * The query parameters the handler declares (`Request<P, { page?: number }>`): `queryDecoder(…)`,
   * written by the build. They are decoded and checked before the handler runs (a bad value is a
   * 400 naming the parameter), and the handler reads them as `request.queryParams`.
   */
  readonly query?: QueryDecoder;
}

export interface ApiRouteInit extends Omit<HttpRouteInit, "handler"> {
  readonly handler: ApiHandler;
  /**
   * The validator of the JSON body the handler declares (`ApiRequest<P, B>`): typia's
   * `createValidate<B>()`, written by the build; `request.json()` checks the body with it.
   */
  readonly json?: JsonCheck;
  /**
   * The reader of the upload the handler declares (a body type naming a model's file field,
   * issue 40): `apiUpload(…)`, written by the build; `request.upload()` reads the body with it.
   * It declares the route's `files` too (give one or the other).
   */
  readonly upload?: UploadBody;
}

function sourceOf(handler: { readonly name: string }, source: string | undefined): string {
  return source ?? (handler.name !== "" ? handler.name : "(anonymous handler)");
}

function checkedMethod(method: string, path: string): Method {
  if (!isMethod(method)) {
    throw new BootError(`Route ${method} ${path}: "${method}" is not a method fw serves.`);
  }
  return method;
}

function checkedFiles(init: HttpRouteInit): FileFields | undefined {
  if (init.files === undefined) return undefined;
  const problem = fileFieldsProblem(init.files);
  if (problem !== undefined) throw new BootError(`Route ${init.method} ${init.path}: ${problem}.`);
  return init.files;
}

/** The handler reading its declared query parameters, decoded (a 400 before it runs when they do not decode). */
function withQuery<R extends { readonly query: Fields }>(handler: (request: R) => Response | Promise<Response>, query: QueryDecoder | undefined): (request: R) => Response | Promise<Response> {
  if (query === undefined) return handler;
  return (request) => handler(withQueryParams(request, decodeQuery(request.query, query)));
}

function http(init: HttpRouteInit): HttpRoute {
  const files = checkedFiles(init);
  return {
    case: "http",
    method: checkedMethod(init.method, init.path),
    path: PathPattern.parse(init.path),
    kind: BROWSER,
    origin: init.origin ?? Origin.Handwritten,
    handler: withQuery(init.handler, init.query),
    ...(init.params === undefined ? {} : { params: init.params }),
    source: sourceOf(init.handler, init.source),
    ...(init.guard === undefined ? {} : { guard: init.guard }),
    ...(init.submits === undefined ? {} : { submits: init.submits }),
    ...(init.stringify === undefined ? {} : { stringify: init.stringify }),
    ...(init.described === undefined ? {} : { described: init.described }),
    ...(files === undefined ? {} : { files }),
  };
}

/**
 * Where an adapter `Route.api` made keeps the API handler behind it (see `adaptedApiHandler`): a
 * property of fw's own adapter function, read per request as a property load (a WeakMap lookup,
 * as before, hashed the function on every request).
 */
const API_HANDLER = Symbol("fw.apiHandler");

type Adapter = Handler & { readonly [API_HANDLER]?: ApiHandler };

/**
 * The `ApiHandler` that `handler` merely adapts, when it is `Route.api`'s own adapter (no guard
 * wrapped it): dispatch then builds the `ApiRequest` directly, without a `Request` first.
 */
export function adaptedApiHandler(handler: Handler): ApiHandler | undefined {
  return (handler as Adapter)[API_HANDLER];
}

function api(init: ApiRouteInit): HttpRoute {
  const { json: check, upload } = init;
  const declared = withQuery(init.handler, init.query);
  if (upload !== undefined && (check !== undefined || init.files !== undefined)) {
    throw new BootError(`Route ${init.method} ${init.path}: an upload route reads its body with its \`upload\` reader, which declares its files: give it no \`json\` check and no \`files\`.`);
  }
  // The check (or the upload's reader) travels on the request the handler gets, so dispatch knows nothing of bodies.
  const apiHandler: ApiHandler =
    upload !== undefined ? (request) => declared(expectingUpload(request, upload)) : check === undefined ? declared : (request) => declared(expectingJson(request, check));
  const handler: Handler = (request: Request) => apiHandler(ApiRequest.of(request));
  Object.defineProperty(handler, API_HANDLER, { value: apiHandler });
  const files = upload === undefined ? {} : { files: upload.files };
  const { query: _decodedAbove, ...rest } = init;
  return { ...http({ ...rest, ...files, handler, source: sourceOf(init.handler, init.source) }), kind: API };
}

/** A table `Route.under` rewrites: a `RouteTable` (its `identify` kept) or an array of routes. */
interface Mappable<T> {
  map(rewrite: (route: Route) => Route): T;
}

/**
 * The table with every path put under `prefix` (spec 4.6: where a table, its guard's routes
 * and its derived pages sit): `Route.under("/admin", table())` serves `/posts/:id` at
 * `/admin/posts/:id`, the guard's `/login` at `/admin/login`. Match order and `identify` are
 * kept. Each route learns its prefix (`mount`), which its handler reads as `request.mount`:
 * derived pages, the sign-in pages and the guard's redirect to sign-in link through it
 * (`request.href`), so they follow the table. fw's own endpoints under `/fw` (fw/live's
 * socket and client) stay where they are: `/fw` is fw's, whatever the table's prefix.
 * `prefix` is a path of literal segments ("/admin", "/app/v2"); "/" leaves the table as it is.
 * Nested calls add up: `under("/a", under("/b", t))` puts `t` under `/a/b`.
 */
function under(prefix: string, routes: readonly Route[]): Route[];
function under<T extends Mappable<T>>(prefix: string, table: T): T;
function under(prefix: string, table: readonly Route[] | Mappable<unknown>): unknown {
  const at = prefixPattern(prefix);
  const rewrite = (route: Route): Route => (at.segments.length === 0 ? route : routeUnder(at, route));
  if (Array.isArray(table)) return (table as readonly Route[]).map(rewrite);
  return at.segments.length === 0 ? table : (table as Mappable<unknown>).map(rewrite);
}

function prefixPattern(prefix: string): PathPattern {
  const at = PathPattern.parse(prefix);
  const named = at.segments.find((segment) => segment.type !== "literal");
  if (named !== undefined) {
    throw new BootError(
      `Route.under(${JSON.stringify(prefix)}): a prefix is a path of literal segments ("/admin"), not a pattern: ` +
        `"${named.type === "param" ? ":" : "*"}${named.name}" would capture a segment no handler reads. Write the prefix out, or put the parameter in the routes' own paths.`,
    );
  }
  return at;
}

function routeUnder(at: PathPattern, route: Route): Route {
  const mount = at.text + (route.mount ?? "");
  // fw's endpoints stay under /fw; they learn the mount all the same (a live socket reads it).
  if (isFwEndpoint(route)) return { ...route, mount };
  if (route.case === "ws") return { ...route, path: route.path.under(at), mount };
  const submits = route.submits === undefined ? {} : { submits: { method: route.submits.method, path: PathPattern.parse(route.submits.path).under(at).text } };
  return { ...route, path: route.path.under(at), mount, ...submits };
}

type Shorthand = (path: string, handler: Handler, options?: Omit<HttpRouteInit, "method" | "path" | "handler">) => HttpRoute;

function shorthand(method: Method): Shorthand {
  return (path, handler, options) => http({ ...options, method, path, handler });
}

/** Constructors for hand-built routes; the generated table uses the same ones. */
export const Route = {
  http,
  api,
  get: shorthand("GET"),
  post: shorthand("POST"),
  put: shorthand("PUT"),
  patch: shorthand("PATCH"),
  delete: shorthand("DELETE"),
  head: shorthand("HEAD"),
  options: shorthand("OPTIONS"),
  under,
  ws(path: string, listener: WsListener, options?: WsRouteOptions): WsRoute {
    return {
      case: "ws",
      path: PathPattern.parse(path),
      origin: options?.origin ?? Origin.Handwritten,
      listener,
      source: options?.source ?? "(websocket listener)",
      ...(options?.guard === undefined ? {} : { guard: options.guard }),
      ...(options?.requiresUser === true ? { requiresUser: true } : {}),
    };
  },
} as const;
