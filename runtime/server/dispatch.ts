import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import { asFailure, BadRequest, MethodNotAllowed, NotFound, NotImplemented, type HttpFailure } from "../http/failure.js";
import { hasHeader, names } from "../http/default-headers.js";
import { Fields } from "../http/fields.js";
import { RequestHeaders } from "../http/headers.js";
import { isMethod, OVERRIDABLE, UNSAFE, type Method } from "../http/method.js";
import { originForm, splitPath } from "../http/path.js";
import { ApiRequest, copyRequest, CSRF_ENTRY, formOf, isUrlEncoded, LAZY_ADDRESS, Request, SIGNER, textOf } from "../http/request.js";
import { flatHeaders, rendered, type Body, type Response, type StreamBody } from "../http/response.js";
import { jsonText } from "../http/json.js";
import { Session, withoutReserved, withReserved } from "../http/session.js";
import { arrivedSession, sessionChanged, type SessionCodec } from "../http/session-codec.js";
import type { ValueSigner } from "../http/signed-value.js";
import { decodeParams } from "../routing/from-path.js";
import { API } from "../routing/kind.js";
import type { Lookup, Matcher } from "../routing/matcher.js";
import { adaptedApiHandler, type Route } from "../routing/route.js";
import type { Html } from "../html/node.js";
import type { Answer } from "./answer.js";
import { ClientGone, readBody } from "./body.js";
import { checkCsrf, mintToken } from "./csrf.js";
import type { devDetails } from "./dev-details.js";
import { incidentId } from "../http/error-log.js";
import { inRequestContext, requestContextOn } from "../log/request-context.js";
import { freshRequestId } from "../log/request-id.js";
import { ALLOWED_HOSTS_ENV, twoHosts, type HostPolicy } from "./hosts.js";
import type { DevHook, DevStandIn } from "./dev-hook.js";
import { renderPage, type Layout } from "./layout.js";
import { clientAddress, isSecure } from "../http/secure.js";
import { plainAnswer, problemContent, problemOf, renderProblemPage } from "./problem.js";
import { writeSession } from "./session-cookie.js";
import { storeFailure } from "./store-failure.js";
import type { PublicFiles } from "./static-files.js";
import { mergedFiles, readMultipartBody, type UploadSettings } from "./multipart-body.js";
import { isMultipart, Uploads, uploadsMisfit } from "../http/uploads.js";
import type { HttpRoute } from "../routing/route.js";
import type { Readiness, ReadinessState } from "./readiness.js";

export interface DispatchOptions {
  readonly matcher: Matcher;
  readonly codec: SessionCodec;
  readonly layout: Layout;
  readonly maxBodySize: number;
  /** How long a handler's promise may take to settle before the request is answered with a 500. */
  readonly handlerTimeoutMs: number;
  /**
   * Dev problem pages: a 500's source location and stack, the routes under a 404. Given by
   * `HttpApp` in dev only (dev-details.ts is loaded then), so production never loads it.
   */
  readonly details?: typeof devDetails;
  /** The checked table, listed on dev 404 pages. */
  readonly routes?: readonly Route[];
  /** What the dev server adds to answers (dev only): the reload client, the broken-build page. */
  readonly hook?: DevHook;
  /** Believe `X-Forwarded-Proto` from a proxy in front (only when it is yours). */
  readonly trustProxy: boolean;
  /** The hosts the `Host` header may name; undefined allows any. */
  readonly hosts: HostPolicy | undefined;
  /**
   * Logs a cause once; called for every 500 with what failed (`500 GET /path (route …)`), the
   * incident id its problem page shows and the request's id, and (without an incident) for a
   * session that could not be saved under an answer that went out.
   */
  readonly logError: (what: string, cause: unknown, incident: string | undefined, requestId: string) => void;
  /** The app's public folder, asked for a GET or HEAD that no route answers (docs/guides/static-files.md). */
  readonly files?: PublicFiles;
  /** What every HTML answer carries unless its handler set the same header: the app's `pageDefaults` (CSP and its companions). */
  readonly pageHeaders: readonly string[];
  /** The `Strict-Transport-Security` value every answer to a secure request carries; undefined sends none (dev, or turned off). */
  readonly hsts?: string;
  /**
   * The app's OpenAPI document as text, served at `/fw/openapi.json` (in dev, or where the app
   * asks: `openapi.serve`); undefined serves none.
   */
  readonly openApi?: () => Promise<string>;
  /** Where `multipart/form-data` files are spooled, and the cap on one request's files (multipart-body.ts). */
  readonly uploads: UploadSettings;
  /** What `/fw/health` says (readiness.ts); undefined: always ready. */
  readonly readiness?: Readiness;
}

/** Where the OpenAPI document is served (under `/fw`, fw's own prefix: no app route can be there). */
export const OPENAPI_PATH = "/fw/openapi.json";

const HTML_TYPE = "text/html; charset=utf-8";

/**
 * Runs one request through the table: health check, matching, body, `_method`, session, CSRF,
 * parameter decoding, the handler, the layout, and the session cookie. Every failure, whatever
 * threw it, is answered here through the sealed set.
 */
export class Dispatcher {
  constructor(private readonly options: DispatchOptions) {}

  /**
   * The answer to one request; undefined when the client left before it could be read.
   * Synchronous when nothing on the way is (no body to read, a handler that returns a
   * Response): most GETs never touch the microtask queue.
   */
  dispatch(incoming: IncomingMessage, id: string = freshRequestId()): Maybe<Answer | undefined> {
    const exchange = new Exchange(incoming.method ?? "", id);
    // The request's context (its id, for the jobs it enqueues and the log lines written meanwhile)
    // exists only once something asked for it (request-context.ts).
    return requestContextOn() ? inRequestContext(exchange, () => this.dispatchAs(incoming, exchange)) : this.dispatchAs(incoming, exchange);
  }

  private dispatchAs(incoming: IncomingMessage, exchange: Exchange): Maybe<Answer | undefined> {
    try {
      const answer = this.answer(incoming, exchange);
      // One reaction and one promise a request, held while its handler waits: the spooled files
      // are released inside it (bench/FINDINGS.md 42), not by a second `then` every request pays for.
      return answer instanceof Promise
        ? answer.then(
            (done) => released(this.finish(done, exchange, incoming), exchange),
            (thrown: unknown) => released(this.caught(thrown, exchange, incoming), exchange),
          )
        : this.finish(answer, exchange, incoming);
    } catch (thrown) {
      return this.caught(thrown, exchange, incoming);
    }
  }

  private caught(thrown: unknown, exchange: Exchange, incoming: IncomingMessage): Maybe<Answer | undefined> {
    if (thrown instanceof ClientGone) return undefined;
    return then(this.failure(thrown, exchange), (answer) => this.finish(answer, exchange, incoming));
  }

  private finish(answer: Answer, exchange: Exchange, incoming: IncomingMessage): Maybe<Answer> {
    answer.route = exchange.route;
    // On every answer to a secure request, whatever its route or status; never over plain HTTP
    // (browsers ignore it there: RFC 6797 8.1).
    const hsts = this.options.hsts;
    if (hsts !== undefined && isSecure(incoming, this.options.trustProxy) && !names(answer.headers, "strict-transport-security")) {
      answer.headers.push("strict-transport-security", hsts);
    }
    const hook = this.options.hook;
    return hook === undefined ? answer : this.devAnswer(answer, exchange, hook);
  }

  /**
   * The last word in dev, on HTML answers only: while the build is broken a GET gets the
   * diagnostics page instead (whatever the stale code answered), and every page gets the
   * reload client, so the browser follows saves and recovers once the build is fixed.
   */
  private devAnswer(answer: Answer, exchange: Exchange, hook: DevHook): Maybe<Answer> {
    if (!isHtml(answer)) return answer;
    const reading = exchange.sentMethod === "GET" || exchange.sentMethod === "HEAD";
    const broken = reading ? hook.buildFailure(exchange.path) : undefined;
    const decorated = (shown: Answer): Answer => (typeof shown.body === "string" && isHtml(shown) ? { ...shown, body: hook.decorate(shown.body) } : shown);
    return broken === undefined ? decorated(answer) : then(this.page(broken, 500, exchange, []), decorated);
  }

  /** A failure page for a request that never reaches `dispatch` (CONNECT, for one); later when the layout answers later. */
  refuse(failure: HttpFailure, method: string, path: string): Maybe<Answer> {
    const exchange = new Exchange(method, freshRequestId());
    exchange.path = path;
    return this.failure(failure, exchange);
  }

  /**
   * Refuses with 400 a request carrying two `Host` headers: Node keeps the first, a proxy in
   * front may have read the other. Socket upgrades are checked here too, before their handshake.
   */
  refuseTwoHosts(incoming: IncomingMessage): void {
    const refusal = this.twoHostsRefusal(incoming);
    if (refusal !== undefined) throw refusal;
  }

  /**
   * Refuses with 400 a request whose `Host` the app does not answer for (DNS rebinding). Only dev
   * lists the allowed hosts on the page: production's may be internal names. Socket upgrades are
   * checked here too, before their handshake.
   */
  refuseUnknownHost(incoming: IncomingMessage): void {
    const refusal = this.unknownHostRefusal(incoming);
    if (refusal !== undefined) throw refusal;
  }

  private twoHostsRefusal(incoming: IncomingMessage): BadRequest | undefined {
    return twoHosts(incoming.rawHeaders) ? new BadRequest("The request carries more than one Host header.") : undefined;
  }

  private unknownHostRefusal(incoming: IncomingMessage): BadRequest | undefined {
    const hosts = this.options.hosts;
    if (hosts === undefined || hosts.allows(incoming.headers.host)) return undefined;
    const listed = this.options.details === undefined ? "" : ` (it answers for ${hosts.described})`;
    return new BadRequest(
      `This server does not answer for the host ${JSON.stringify(truncated(incoming.headers.host ?? ""))}${listed}. ` +
        `If that host is yours, add it to allowedHosts (or ${ALLOWED_HOSTS_ENV}).`,
    );
  }

  /**
   * A request refused for its `Host` (two of them, or one the app does not answer for): its page,
   * with the connection closed, as a 413's. Its body (a declared 10 MB, a chunked one that never
   * ends) is never read nor waited for, and the client is not talking to this app anyway.
   */
  private refusedHost(refusal: BadRequest, exchange: Exchange): Maybe<Answer> {
    return then(this.failure(refusal, exchange), (answer): Answer => ({ ...answer, close: true }));
  }

  private answer(incoming: IncomingMessage, exchange: Exchange): Maybe<Answer> {
    const method = exchange.sentMethod;
    // Node builds this record on first read and returns it through a getter: read it once.
    const headers = incoming.headers;
    const target = originForm(incoming.url ?? "/", headers.host);
    // Split here rather than through splitTarget: no {path, query} record per request.
    const q = target.indexOf("?");
    const path = q === -1 ? target : target.slice(0, q);
    exchange.path = path;
    exchange.query = q === -1 ? "" : target.slice(q + 1);
    const twoHosts = this.twoHostsRefusal(incoming);
    if (twoHosts !== undefined) return this.refusedHost(twoHosts, exchange);
    if (!isMethod(method)) throw new NotImplemented(`fw does not serve ${method} requests.`);
    exchange.method = method;
    // Before the allowed-hosts check: a load balancer asking by address still gets its answer.
    if ((path === HEALTH_PATH || path === LIVENESS_PATH) && (method === "GET" || method === "HEAD")) return health(path === HEALTH_PATH ? (this.options.readiness?.state ?? "ready") : "ready");
    const unknownHost = this.unknownHostRefusal(incoming);
    if (unknownHost !== undefined) return this.refusedHost(unknownHost, exchange);
    const openApi = this.options.openApi;
    if (openApi !== undefined && path === OPENAPI_PATH && (method === "GET" || method === "HEAD")) return openApi().then(openApiAnswer);
    const standIn = this.options.hook?.standIn?.();
    const lookup = standIn === undefined ? this.options.matcher.lookupPath(method, path) : this.standInLookup(standIn, method, path);
    if (lookup.type === "none") {
      if (this.options.matcher.lookupWs(splitPath(path)) !== undefined) {
        throw new BadRequest("This address accepts WebSocket connections only.");
      }
      const files = this.options.files;
      if (files !== undefined && (method === "GET" || method === "HEAD")) return files.answer(path, headers).then((file) => file ?? notFound());
      throw new NotFound();
    }
    const hasBody = headers["content-length"] !== undefined || headers["transfer-encoding"] !== undefined;
    if (!hasBody) return this.matched(incoming, headers, exchange, lookup);
    const takers = isMultipart(headers["content-type"]) ? this.multipartTakers(method, path, lookup) : undefined;
    if (takers !== undefined) return this.multipart(incoming, headers, exchange, lookup, takers);
    return readBody(incoming, this.options.maxBodySize).then((body) => {
      exchange.body = body;
      return this.matched(incoming, headers, exchange, lookup);
    });
  }

  /**
   * The routes a multipart body on `method` and `path` may be read for, or undefined when it is
   * read as any other body (up to `maxBodySize`, as before): an API route that declares no files
   * (it reads its body itself), or a request no route will take (its 405 comes after). A browser
   * POST may land elsewhere through `_method`: those routes count too.
   */
  private multipartTakers(method: Method, path: string, lookup: Lookup): HttpRoute[] | undefined {
    const takers: HttpRoute[] = [];
    if (lookup.type === "found" && (lookup.route.kind !== API || lookup.route.files !== undefined)) takers.push(lookup.route);
    if (method === "POST" && this.readsOverride(lookup, path)) {
      for (const other of OVERRIDABLE) {
        const found = this.options.matcher.lookupPath(other, path);
        if (found.type === "found" && found.route.kind !== API) takers.push(found.route);
      }
    }
    return takers.length === 0 ? undefined : takers;
  }

  /**
   * Reads a multipart body whole (files spooled, text fields as a form) before the route runs.
   * When reading fails, the rest of the body is unread: the answer closes the connection.
   */
  private multipart(incoming: IncomingMessage, headers: IncomingHttpHeaders, exchange: Exchange, lookup: Lookup, takers: readonly HttpRoute[]): Promise<Answer> {
    return readMultipartBody(incoming, mergedFiles(takers), this.options.maxBodySize, this.options.uploads).then(
      ({ fields, files }) => {
        exchange.files = files;
        if (lookup.type === "found" && lookup.route.kind === API) exchange.fields = fields;
        else exchange.form = fields;
        return this.matched(incoming, headers, exchange, lookup);
      },
      (error: unknown) => {
        exchange.unread = true;
        throw error;
      },
    );
  }

  /**
   * While a dev page stands in front of the app: its own routes first; then every GET and HEAD
   * that is not an API route's gets its page; anything else its refusal.
   */
  private standInLookup(standIn: DevStandIn, method: Method, path: string): Lookup {
    const own = standIn.route(method, path);
    if (own !== undefined) return { type: "found", route: own, params: NO_PARAMS_TEXT };
    const app = this.options.matcher.lookupPath(method, path);
    const api = app.type === "found" && app.route.kind === API;
    if ((method === "GET" || method === "HEAD") && !api) return { type: "found", route: standIn.page, params: NO_PARAMS_TEXT };
    throw standIn.refusal();
  }

  /** The rest of a request whose path matched, once its body is read: `_method`, the route, the handler. */
  private matched(incoming: IncomingMessage, headers: IncomingHttpHeaders, exchange: Exchange, found: Lookup): Maybe<Answer> {
    let lookup = found;
    exchange.headers = RequestHeaders.fromNode(headers);
    if (exchange.method === "POST" && (exchange.form !== undefined || isUrlEncoded(headers["content-type"]))) {
      const form = exchange.form ?? Fields.parse(textOf(exchange.body), "form");
      exchange.form = form;
      const override = this.readsOverride(found, exchange.path) ? methodOverride(form) : undefined;
      if (override !== undefined) {
        const overridden = this.options.matcher.lookupPath(override, exchange.path);
        // API routes skip CSRF: an override landing on one would let a cross-site HTML form
        // (which can only POST) reach an API's PUT, PATCH or DELETE. It is not honoured.
        if (overridden.type !== "found" || overridden.route.kind !== API) {
          exchange.method = override;
          lookup = overridden;
        }
      }
    }
    if (lookup.type === "method") throw new MethodNotAllowed(lookup.allowed);
    if (lookup.type === "none") throw new NotFound();
    if (exchange.files !== Uploads.none) {
      const misfit = uploadsMisfit(exchange.files, lookup.route.files);
      if (misfit !== undefined) throw misfit;
    }
    exchange.route = lookup.route.path.text;
    exchange.mount = lookup.route.mount ?? "";
    exchange.params = lookup.params;
    exchange.incoming = incoming;
    exchange.trustProxy = this.options.trustProxy;
    const sent = exchange as Sent;
    return lookup.route.kind === API ? this.api(lookup, sent) : this.browser(lookup, sent);
  }

  /**
   * Whether a POST's `_method` field is read at all: only where a browser route could take the
   * request, that is when the POST itself reached a browser route, or reached none on a path a
   * browser route serves on another method. On an API route, and on a path only API routes
   * serve, the field is nothing (spec 2.6: an API request has no form): neither honoured nor
   * checked, so `_method=GET` or a repeated `_method` there is no 400.
   */
  private readsOverride(found: Lookup, path: string): boolean {
    if (found.type === "found") return found.route.kind !== API;
    if (found.type === "none") return false;
    return found.allowed.some((method) => {
      const other = this.options.matcher.lookupPath(method, path);
      return other.type === "found" && other.route.kind !== API;
    });
  }

  /**
   * An API route: no cookie is read, the session is empty, and none is written (spec 2.1, 5.7).
   * While the route holds `Route.api`'s own adapter (no guard wrapped it), the handler behind it
   * is called with an `ApiRequest` built directly: the `Request` the adapter would only turn
   * into one is never made (the layout gets one if the answer is a page).
   */
  private api(found: Found, sent: Sent): Maybe<Answer> {
    sent.params = decodeParams(found.params, found.route.params);
    const adapted = adaptedApiHandler(found.route.handler);
    const stringify = found.route.stringify;
    if (adapted !== undefined) return this.answered(this.inTime(adapted(apiRequestOf(sent))), sent, stringify);
    const request = new Request(sent);
    return this.answered(this.inTime(found.route.handler(request)), request, stringify);
  }

  /**
   * A handler's answer (or a layout's page), held to `handlerTimeoutMs` when it is a promise: one
   * that has not settled by then rejects with `HandlerTimedOut` (a 500 whose log line says why);
   * whatever it settles with later is dropped. A synchronous answer costs one type check.
   */
  private inTime<T>(answer: Maybe<T>, what: "handler" | "layout" = "handler"): Maybe<T> {
    return this.inTimeThen(answer, same, what);
  }

  /**
   * `then(this.inTime(answer), next)` in one promise: `next` runs inside the reaction that stops
   * the deadline, not in a `then` of its own on the deadline's promise (a promise and a reaction
   * fewer a browser request, held while its handler waits). As before, `next` never runs for an
   * answer that came too late, and what it throws rejects.
   */
  private inTimeThen<T, U>(answer: Maybe<T>, next: (value: T) => Maybe<U>, what: "handler" | "layout" = "handler"): Maybe<U> {
    if (!(answer instanceof Promise)) return next(answer);
    const ms = this.options.handlerTimeoutMs;
    // One promise and one reaction a request, not a second promise, `Promise.race` (a reaction
    // on each) and `finally` (two more): every page waits on this, and each promise is garbage
    // that lives as long as the request does (bench/FINDINGS.md 26).
    return new Promise<U>((resolve, reject) => {
      let late = false;
      const timer = setTimeout(() => {
        late = true;
        reject(new HandlerTimedOut(ms, what));
      }, ms);
      answer.then(
        (value) => {
          clearTimeout(timer);
          if (late) return;
          try {
            resolve(next(value));
          } catch (thrown) {
            reject(thrown);
          }
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  }

  /** The answer to a handler's response, now or once it settles. */
  private answered(response: Maybe<Response>, layoutRequest: Request<unknown> | Sent, stringify: Stringify | undefined): Maybe<Answer> {
    return then(response, (done) => this.toAnswer(done, layoutRequest, stringify));
  }

  /**
   * A browser route: the session is read from the cookie, an unsafe method's form must return
   * its CSRF token, and only then are the parameters decoded (a forged form gets 403, not 400).
   */
  private browser(found: Found, sent: Sent): Maybe<Answer> {
    const { session: arrived, sent: hadCookie } = arrivedSession(sent.headers.get("cookie"), this.options.codec, Date.now(), sent.secure);
    // Error pages from here on show the session as it arrived (less its CSRF token).
    sent.session = arrived;
    const token = arrived.get(CSRF_ENTRY);
    if (UNSAFE.has(sent.method)) checkCsrf((sent.form ??= formOf(sent.headers, sent.body)), token);
    sent.params = decodeParams(found.params, found.route.params);
    sent[SIGNER] = this.options.codec.signer;
    const asArrived = new Request(sent);
    const session = token === undefined ? withReserved(arrived, CSRF_ENTRY, mintToken()) : arrived;
    const request = session === arrived ? asArrived : copyRequest(asArrived, { session });
    return this.inTimeThen(found.route.handler(request), (response) =>
      then(this.toAnswer(response, asArrived, found.route.stringify), (answer) => {
        const cookie = this.outgoingCookie(response.session ?? session, session, arrived, hadCookie, sent);
        // A page read with a session (one that verified, or one this answer sets) is this visitor's
        // alone: no cache, shared or the browser's back/forward store, keeps it.
        if ((arrived !== Session.empty || cookie !== undefined) && !hasHeader(response.headers, "cache-control")) {
          answer.headers.push("cache-control", "no-store");
        }
        return withCookie(answer, cookie);
      }),
    );
  }

  /**
   * The Set-Cookie for the session going out, or undefined when it did not change. The
   * handler's work is done: whatever the cookie's size, its answer stands (session-cookie.ts).
   * When `outgoing` cannot be written, `handled` (the session the handler got) is, if it differs
   * from what arrived.
   */
  private outgoingCookie(outgoing: Session, handled: Session, arrived: Session, hadCookie: boolean, sent: Sent): string | undefined {
    if (!sessionChanged(arrived, outgoing)) return undefined;
    const written = writeSession(outgoing, handled, { codec: this.options.codec, secure: sent.secure, hadCookie, now: Date.now() });
    if (written.notSaved === undefined) return written.cookie;
    this.notSaved(written.notSaved, sent);
    return sessionChanged(arrived, handled) ? written.cookie : undefined;
  }

  /** Logs a session the handler handed back that could not be written (its answer still went out). */
  private notSaved(cause: Error, exchange: Exchange): void {
    const route = exchange.route === undefined ? "" : ` (route ${exchange.route})`;
    this.options.logError(`${exchange.sentMethod} ${exchange.path}${route}: the session was not saved`, cause, undefined, exchange.id);
  }

  /**
   * The cookie an error answer writes: a session that arrived with flash drops it, since the
   * error page showed it (spec 2.9: delivered flash is dropped from what goes out); its entries
   * are kept as they arrived. Undefined when no flash arrived (nothing changes).
   */
  private flashDropped(exchange: Exchange): string | undefined {
    const arrived = exchange.session;
    if (arrived.incoming.size === 0) return undefined;
    return writeSession(arrived, arrived, { codec: this.options.codec, secure: exchange.secure, hadCookie: true, now: Date.now() }).cookie;
  }

  private toAnswer(response: Response, layoutRequest: Request<unknown> | Sent, stringify: Stringify | undefined): Maybe<Answer> {
    const headers = flatHeaders(response.headers, this.options.pageHeaders);
    return then(this.bodyText(response.body, layoutRequest, stringify), (body): Answer => {
      rendered(response.body);
      return { status: response.status, headers, body };
    });
  }

  private bodyText(body: Body, layoutRequest: Request<unknown> | Sent, stringify: Stringify | undefined): Maybe<string | Uint8Array | StreamBody> {
    switch (body.type) {
      case "empty":
        return "";
      case "text":
        return body.text;
      case "json":
        // A value that does not fit the typed stringify's type throws typia's TypeGuardError: a 500.
        return jsonText(body.value, stringify);
      case "bytes":
        return body.bytes;
      case "stream":
        return body;
      case "html":
        // An API route's record becomes a Request only here, for the layout.
        return framed(() => this.inTime(renderPage(body.html, this.options.layout, layoutRequest instanceof Request ? layoutRequest : new Request(layoutRequest)), "layout"));
    }
  }

  /** Any thrown value, as a problem page framed by the layout; a layout that throws → plain 500. */
  private failure(thrown: unknown, exchange: Exchange): Maybe<Answer> {
    if (thrown instanceof LayoutFailed) return this.plain500("the layout threw", thrown.cause, exchange);
    const failure = asFailure(storeFailure(thrown) ?? thrown);
    const incident = failure.kind === "InternalServerError" ? this.logged(failure.cause, exchange) : undefined;
    const problem = problemOf(failure, exchange.path, incident, incident === undefined ? undefined : exchange.id);
    const details = this.options.details?.(failure, this.options.routes ?? []) ?? [];
    return then(this.page(problemContent(problem, details), problem.status, exchange, extraHeaders(failure, exchange)), (page) => {
      const answer = withCookie(page, this.flashDropped(exchange));
      // A body left unread (over a limit, or a multipart body refused halfway) would be read as the next request.
      return failure.kind === "PayloadTooLarge" || exchange.unread ? { ...answer, close: true } : answer;
    });
  }

  /** A page fw writes itself (a problem, the broken-build page), framed by the layout. */
  private page(content: Html, status: number, exchange: Exchange, headers: readonly string[]): Maybe<Answer> {
    // Error pages carry no CSRF token (spec 2.17); the rest of the session stays readable.
    const request = new Request({
      id: exchange.id,
      path: exchange.path,
      mount: exchange.mount,
      session: withoutReserved(exchange.session, CSRF_ENTRY),
      ...(exchange.headers === undefined ? {} : { headers: exchange.headers }),
    });
    const answer = (page: string): Answer => ({ status, headers: ["content-type", HTML_TYPE, ...this.options.pageHeaders, ...headers], body: page });
    const broken = (cause: unknown): Answer => this.plain500("the layout threw while framing an error page", cause, exchange);
    let page: Maybe<string>;
    try {
      page = this.inTime(renderProblemPage(content, this.options.layout, request), "layout");
    } catch (cause) {
      return broken(cause);
    }
    return page instanceof Promise ? page.then(answer, broken) : answer(page);
  }

  /** Logs a 500's cause once and returns the incident id that ties the log line to the page. */
  private logged(cause: unknown, exchange: Exchange, what?: string): string {
    const incident = incidentId();
    const route = exchange.route === undefined ? "" : ` (route ${exchange.route})`;
    this.options.logError(`500 ${exchange.sentMethod} ${exchange.path}${route}${what === undefined ? "" : `: ${what}`}`, cause, incident, exchange.id);
    return incident;
  }

  private plain500(what: string, cause: unknown, exchange: Exchange): Answer {
    this.logged(cause, exchange, what);
    return plainAnswer(500);
  }
}

/** A route's typed JSON writer (`HttpRoute.stringify`). */
type Stringify = (value: unknown) => string;

/** A value now, or later: dispatch stays synchronous until something really is asynchronous. */
export type Maybe<T> = T | Promise<T>;

/** The answer, once the request's spooled files nobody took are removed (a no-op for requests without files). */
function released<T>(answer: Maybe<T>, exchange: Exchange): Maybe<T> {
  if (exchange.files === Uploads.none) return answer;
  const files = exchange.files;
  return then(answer, (done) =>
    files.discard().then(
      () => done,
      () => done,
    ),
  );
}

function then<T, U>(value: Maybe<T>, next: (value: T) => Maybe<U>): Maybe<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/** A lookup that found its route. */
type Found = Extract<Lookup, { readonly type: "found" }>;

const NO_BODY = Buffer.alloc(0);
const NO_PARAMS: Readonly<Record<string, unknown>> = Object.freeze({});
const NO_PARAMS_TEXT: Readonly<Record<string, string>> = Object.freeze({});

/**
 * One request on its way through dispatch, the only record dispatch makes for it: how far it got
 * (what a problem page and a 500's log line may show) and, once its route matched, what its
 * `Request` (or `ApiRequest`) is built from. Every member is set here, so every request's record
 * has one shape; dispatch fills them in as it learns them.
 */
class Exchange {
  /** The method as sent, for logs and dev pages; `method` becomes a `_method` override. */
  readonly sentMethod: string;
  /** The request's id (request-id.ts): on its log lines, its 500 page and `Request.id`, sent back as `X-Request-Id`. */
  readonly id: string;
  method: Method = "GET";
  path = "/";
  /** The query text after "?", unparsed. */
  query = "";
  /** The pattern of the route that matched, once one has: named in a 500's log line. */
  route: string | undefined = undefined;
  /** The prefix the matched route's table was put under (`Route.under`): its requests' `mount`. */
  mount = "";
  /** As captured from the path until the route's decoders have read them. */
  params: Readonly<Record<string, unknown>> = NO_PARAMS;
  headers: RequestHeaders | undefined = undefined;
  body: Buffer = NO_BODY;
  /** Parsed already for a urlencoded POST (for `_method`), or for the CSRF check; a multipart body's text fields on a browser route. */
  form: Fields | undefined = undefined;
  /** A multipart body's text fields on an API route that takes files (`ApiRequest.fields`). */
  fields: Fields | undefined = undefined;
  /** A multipart body's files: removed once the request is answered, unless taken. */
  files: Uploads = Uploads.none;
  /** The body was refused partway: the rest of it is unread, so the answer closes the connection. */
  unread = false;
  /** The session as the cookie brought it, once a browser route read it. */
  session: Session = Session.empty;
  /** The request as Node parsed it, once its route matched: what `secure` and `clientAddress` read. */
  incoming: IncomingMessage | undefined = undefined;
  trustProxy = false;
  /** A `Request` built from this record reads `clientAddress` only when asked. */
  readonly [LAZY_ADDRESS] = true;
  /** What signs fw's own cookies (the codec's), handed to a browser route's `Request`. */
  [SIGNER]: ValueSigner | undefined = undefined;

  constructor(sentMethod: string, id: string) {
    this.sentMethod = sentMethod;
    this.id = id;
  }

  /**
   * Read from the connection only when asked: a browser route's `Request` reads `secure` (and its
   * cookie does), its `clientAddress` waits for a handler to ask (LAZY_ADDRESS), and an API route
   * reads neither (reading the peer's address costs a call into Node's socket). The server reads
   * each connection's peer as it opens (server.ts, rememberPeer), so a late ask, after the
   * connection closed, still gets it.
   */
  get secure(): boolean {
    return this.incoming !== undefined && isSecure(this.incoming, this.trustProxy);
  }

  get clientAddress(): string | undefined {
    return this.incoming === undefined ? undefined : clientAddress(this.incoming, this.trustProxy);
  }
}

/** An exchange whose route matched: its headers are read and its method is one fw serves. */
type Sent = Exchange & { readonly headers: RequestHeaders };

/**
 * What `ApiRequest.of` makes of the Request built from `sent`, without that Request: a query is
 * parsed now, as there, so a malformed one is a 400 before the handler runs.
 */
function apiRequestOf(sent: Sent): ApiRequest<Readonly<Record<string, unknown>>> {
  const request = new ApiRequest(sent);
  if (sent.query !== "") void request.query;
  return request;
}

/** A handler that did not settle in time: answered as a 500, logged with this message. */
class HandlerTimedOut extends Error {
  constructor(ms: number, what: "handler" | "layout") {
    super(
      `The ${what} did not answer within ${ms} ms (handlerTimeoutMs), so the request was answered with a 500 and ` +
        `its late result will be dropped. A store or service call that never settles is the usual cause.`,
    );
    this.name = "HandlerTimedOut";
  }
}

/** Thrown when the layout fails on a page: answered as a plain 500, not another framed page. */
class LayoutFailed extends Error {
  constructor(override readonly cause: unknown) {
    super("The layout threw");
  }
}

/** The layout's page; whatever it threw (or rejected with) as a `LayoutFailed`. */
function framed(render: () => Maybe<string>): Maybe<string> {
  let page: Maybe<string>;
  try {
    page = render();
  } catch (cause) {
    throw new LayoutFailed(cause);
  }
  return page instanceof Promise
    ? page.catch((cause: unknown) => {
        throw new LayoutFailed(cause);
      })
    : page;
}

function methodOverride(form: Fields): Method | undefined {
  const asked = form.getAll("_method");
  if (asked.length === 0) return undefined;
  if (asked.length > 1) throw new BadRequest("The form sends _method more than once.");
  const method = (asked[0] as string).toUpperCase();
  if (!isMethod(method) || !OVERRIDABLE.has(method)) {
    throw new BadRequest(`_method may ask for PUT, PATCH or DELETE only, not ${JSON.stringify(asked[0])}.`);
  }
  return method;
}

/** At most 100 characters of what a client sent, for a message. */
function truncated(text: string): string {
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}

/** What a problem page adds: `Allow` on a 405, `no-store` when it shows a session (the layout may read it). */
function extraHeaders(failure: HttpFailure, exchange: Exchange): string[] {
  const headers =
    failure.kind === "MethodNotAllowed"
      ? ["allow", failure.allowed.join(", ")]
      : failure.kind === "ServiceUnavailable"
        ? ["retry-after", String(failure.retryAfter)]
        : [];
  if (exchange.session !== Session.empty) headers.push("cache-control", "no-store");
  return headers;
}

/** An answer whose content type is HTML: the ones dev decorates. */
function isHtml(answer: Answer): boolean {
  for (let i = 0; i < answer.headers.length; i += 2) {
    if ((answer.headers[i] as string).toLowerCase() === "content-type") return /^\s*text\/html\b/i.test(answer.headers[i + 1] as string);
  }
  return false;
}

function withCookie(answer: Answer, cookie: string | undefined): Answer {
  if (cookie === undefined) return answer;
  answer.headers.push("set-cookie", cookie);
  return answer;
}

function notFound(): never {
  throw new NotFound();
}

function openApiAnswer(text: string): Answer {
  return { status: 200, headers: ["content-type", "application/json; charset=utf-8", "cache-control", "no-store", "x-content-type-options", "nosniff"], body: text };
}

/** Readiness: 200 `ok` while the process serves, 503 `starting` or `stopping` else. */
export const HEALTH_PATH = "/fw/health";
/** Liveness: 200 `ok` whenever the process answers at all. */
export const LIVENESS_PATH = "/fw/health/live";

function health(state: ReadinessState): Answer {
  const headers = ["content-type", "text/plain; charset=utf-8", "x-content-type-options", "nosniff", "cache-control", "no-store"];
  return state === "ready" ? { status: 200, headers, body: "ok" } : { status: 503, headers, body: state };
}

/** The value itself: `inTime` is `inTimeThen` with nothing after it. */
function same<T>(value: T): T {
  return value;
}
