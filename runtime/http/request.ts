import { BadRequest } from "./failure.js";
import { Fields } from "./fields.js";
import { RequestHeaders } from "./headers.js";
import { jsonOrThrow, readJsonBody, type JsonCheck, type JsonRead } from "./json.js";
import type { Method } from "./method.js";
import { Session } from "./session.js";
import type { ValueSigner } from "./signed-value.js";
import type { UploadBody } from "./upload-body.js";
import { Uploads } from "./uploads.js";

/** The reserved session entry holding the CSRF token (spec 5.8). */
export const CSRF_ENTRY = "_csrf";

type DefaultParams = Readonly<Record<string, string>>;

/**
 * The query parameters of a handler that declares none: each field's first value, as text. A
 * handler declaring its own (`Request<{}, { page?: number; q?: string }>`) gets them decoded.
 */
export type QueryText = Readonly<Record<string, string>>;

/** What a request is built from; everything is optional, so a test can build one by hand. */
export interface RequestInit<P = DefaultParams> {
  readonly method?: Method;
  readonly path?: string;
  readonly params?: P;
  /** Query text after "?" (without it) or parsed fields. */
  readonly query?: string | Fields;
  readonly headers?: RequestHeaders | Readonly<Record<string, string>>;
  readonly body?: Uint8Array | string;
  /** The parsed form; when left out, an urlencoded body is parsed on first read. */
  readonly form?: Fields;
  /** The files of a `multipart/form-data` body, spooled and checked (none by default). */
  readonly files?: Uploads;
  /** An API request's text parts of a `multipart/form-data` body (`ApiRequest.fields`). */
  readonly fields?: Fields;
  readonly session?: Session;
  readonly secure?: boolean;
  readonly currentUser?: string;
  /** The peer's network address as the server saw it. */
  readonly clientAddress?: string;
  /** The prefix the route's table was put under (`Route.under`): "/admin", or "" (none). */
  readonly mount?: string;
  /** The request's id (`X-Request-Id`); "" on a hand-built request. */
  readonly id?: string;
}

/**
 * Set (true) on a `RequestInit` whose `clientAddress` costs a call into the connection (the
 * server's record of a request): a `Request` built from it reads the address on first ask, and
 * most handlers never ask. Internal: not exported from fw's entry.
 */
export const LAZY_ADDRESS: unique symbol = Symbol("fw.lazyAddress");

type LazyAddress = { readonly [LAZY_ADDRESS]?: boolean };

/**
 * On a `RequestInit` the server builds: what signs fw's own cookies with the app secret (the
 * session codec's `signer`), read back with `requestSigner`. Internal: not exported from fw's entry.
 */
export const SIGNER: unique symbol = Symbol("fw.signer");

type WithSigner = { readonly [SIGNER]?: ValueSigner | undefined };

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** A body as UTF-8 text; invalid UTF-8 is a 400. */
export function textOf(body: Uint8Array): string {
  try {
    return utf8.decode(body);
  } catch {
    throw new BadRequest("The request body is not valid UTF-8.");
  }
}

/** The body of a request built without one: shared, and frozen (an empty view has nothing to change). */
const NO_BYTES: Uint8Array = Object.freeze(new Uint8Array(0));

function bytesOf(body: Uint8Array | string | undefined): Uint8Array {
  if (body === undefined) return NO_BYTES;
  return typeof body === "string" ? Buffer.from(body, "utf8") : body;
}

function headersOf(headers: RequestInit["headers"]): RequestHeaders {
  return headers instanceof RequestHeaders ? headers : new RequestHeaders(headers ?? {});
}

// Lets copyRequest carry the query and form over unparsed (parsing could throw a 400).
let rawQuery: (request: Sent<unknown, unknown>) => string | Fields;
// Lets a route hand a request its decoded query parameters, and copyRequest carry them over.
let attachQuery: (request: Sent<unknown, unknown>, value: unknown) => void;
let decodedQuery: (request: Sent<unknown, unknown>) => unknown;
let rawForm: (request: Request<unknown>) => Fields | undefined;
// Carries an API route's multipart text parts through the Request a guard's wrapper gets.
let rawFields: (request: Request<unknown>) => Fields | undefined;
let signerOf: (request: Request<unknown, unknown>) => ValueSigner | undefined;

/** Parts both request kinds share: what the program or browser sent, read whole. */
abstract class Sent<P, Q> {
  static {
    rawQuery = (request) => request.#query;
    attachQuery = (request, value) => {
      request.#queryParams = value;
    };
    decodedQuery = (request) => request.#queryParams;
  }

  readonly method: Method;
  /** The path as requested, without the query. */
  readonly path: string;
  /** The path parameters, decoded for the types the handler asked for. */
  readonly params: P;
  readonly headers: RequestHeaders;
  /** The entire body, read up to `maxBodySize`. */
  readonly body: Uint8Array;
  /**
   * The prefix the matched route's table was put under with `Route.under` ("/admin"), or ""
   * when none: `path` includes it. Links and redirects to the table's own pages go through
   * `href`, so they follow the table wherever it is mounted.
   */
  readonly mount: string;
  /**
   * The files of a `multipart/form-data` body, by field, on a route that declares them
   * (`HttpRoute.files`): each spooled to a temporary file, its size and type (read from its
   * bytes) checked. Removed once the request is answered unless taken (`UploadedFile.take`).
   * Empty for any other body. (`body` is empty for a multipart request: it is never held whole.)
   */
  readonly files: Uploads;
  /**
   * The request's id: the `X-Request-Id` it arrived with when well-formed, else one fw made. Sent
   * back as `X-Request-Id`, written on every log line of the request (and its 500 page), carried
   * into the jobs it enqueues. Quote it in the app's own log lines: `log.info("…", { requestId: request.id })`.
   */
  readonly id: string;
  #query: string | Fields;
  #queryParams: unknown;

  protected constructor(init: RequestInit<P>) {
    this.id = init.id ?? "";
    this.method = init.method ?? "GET";
    this.path = init.path ?? "/";
    this.params = init.params ?? ({} as P);
    this.headers = headersOf(init.headers);
    this.body = bytesOf(init.body);
    this.mount = init.mount ?? "";
    this.files = init.files ?? Uploads.none;
    this.#query = init.query ?? "";
  }

  /**
   * A path of the route's table as browsers reach it: `href("/posts/3")` is "/admin/posts/3"
   * under `Route.under("/admin", …)`, and "/posts/3" otherwise; `href("/")` is the table's home
   * ("/admin"). For links, form actions and redirects to the table's own pages.
   */
  href(path: string): string {
    if (this.mount === "") return path;
    return path === "/" ? this.mount : this.mount + path;
  }

  /** The query string's fields, as text; a malformed encoding is a 400. */
  get query(): Fields {
    if (typeof this.#query === "string") this.#query = Fields.parse(this.#query, "query");
    return this.#query;
  }

  /**
   * The query parameters the handler declares (`Request<Params, { page?: number; q?: string }>`),
   * decoded and checked before it runs (a bad value is a 400 naming the parameter); without a
   * declaration, each field's first value as text.
   */
  get queryParams(): Q {
    this.#queryParams ??= Object.freeze(Object.fromEntries([...this.query.names].map((name) => [name, this.query.get(name)])));
    return this.#queryParams as Q;
  }

  /** The body as UTF-8 text; invalid UTF-8 is a 400. */
  get text(): string {
    return textOf(this.body);
  }
}

/**
 * One browser request, read whole (spec 2.5). Immutable. `session` is read from the signed
 * cookie once the route matched; `currentUser` is written only by a guard's wrapper or by the
 * table's `identify` on a socket upgrade, never from anything the client sent.
 */
export class Request<P = DefaultParams, Q = QueryText> extends Sent<P, Q> {
  readonly session: Session;
  /** The browser reached the application over HTTPS; decides the cookie's Secure attribute. */
  readonly secure: boolean;
  /** The key of the user the guard identified; undefined means nobody. */
  readonly currentUser: string | undefined;
  #address: string | undefined;
  /** Where the address is read from on first ask, when the init said to wait (LAZY_ADDRESS). */
  #addressFrom: RequestInit<P> | undefined;
  #form: Fields | undefined;
  #fields: Fields | undefined;
  #signer: ValueSigner | undefined;

  static {
    rawForm = (request) => request.#form;
    rawFields = (request) => request.#fields;
    signerOf = (request) => request.#signer;
  }

  constructor(init: RequestInit<P> = {}) {
    super(init);
    this.session = init.session ?? Session.empty;
    this.secure = init.secure ?? false;
    this.currentUser = init.currentUser;
    if ((init as LazyAddress)[LAZY_ADDRESS] === true) this.#addressFrom = init;
    else this.#address = init.clientAddress;
    this.#form = init.form;
    this.#fields = init.fields;
    this.#signer = (init as WithSigner)[SIGNER];
  }

  /**
   * The address of the peer that sent the request, as the server saw the connection (what
   * per-address limits count by); undefined on a hand-built request or where the server names none.
   */
  get clientAddress(): string | undefined {
    const from = this.#addressFrom;
    if (from !== undefined) {
      this.#address = from.clientAddress;
      this.#addressFrom = undefined;
    }
    return this.#address;
  }

  /** The submitted form (urlencoded bodies only); empty for any other body. */
  get form(): Fields {
    this.#form ??= formOf(this.headers, this.body);
    return this.#form;
  }

  /** True when the session holds a CSRF token (not on error pages, unmatched requests, first visits' layouts). */
  get hasCsrf(): boolean {
    return this.session.get(CSRF_ENTRY) !== undefined;
  }

  /**
   * The session's CSRF token, for forms (`<input name="_csrf">`). Throws where there is none:
   * on error pages, on unmatched requests, and in the layout of a first visit (spec 2.17).
   */
  get csrf(): string {
    const token = this.session.get(CSRF_ENTRY);
    if (token === undefined) {
      throw new Error(
        "This request carries no CSRF token: error pages, unmatched requests and the layout of a " +
          "first visit have none. Check request.hasCsrf before rendering a form there.",
      );
    }
    return token;
  }
}

// Lets Route.api hand a request the build's validator of its JSON body, or the reader of its upload (not public API).
let attachCheck: (request: ApiRequest<unknown, unknown>, check: JsonCheck) => void;
let attachUpload: (request: ApiRequest<unknown, unknown>, upload: UploadBody) => void;

/**
 * A request on an API route (spec 2.6): sent by a program, no session takes part. No session,
 * flash, CSRF token, cookies or form; the Cookie header stays among the headers as sent.
 *
 * `B` is the JSON body the handler takes (docs/guides/json-apis.md): declared in the handler's
 * signature (`request: ApiRequest<Params, NewTask>`, or `JsonRequest<NewTask>`), the build
 * writes typia's validator for it, and `json()` / `readJson()` answer the body as a `B`. A `B`
 * that names a model's file field (`cover?: Post["cover"]`) is an upload, a `multipart/form-data`
 * form: `await upload()` / `readUpload()` answer it, each file stored.
 */
export class ApiRequest<P = DefaultParams, B = never, Q = QueryText> extends Sent<P, Q> {
  /**
   * The text parts of a `multipart/form-data` body on a route that takes files (`HttpRoute.files`),
   * beside its `files`; empty for any other body. (An API request has no form: no CSRF token
   * is read from it.)
   */
  readonly fields: Fields;
  #check: JsonCheck | undefined;
  #read: JsonRead<B> | undefined;
  #upload: UploadBody | undefined;
  #uploaded: Promise<JsonRead<B>> | undefined;

  static {
    attachCheck = (request, check) => {
      request.#check = check;
    };
    attachUpload = (request, upload) => {
      request.#upload = upload;
    };
  }

  constructor(init: Omit<RequestInit<P>, "session" | "form" | "secure" | "currentUser" | "clientAddress"> = {}) {
    super(init);
    this.fields = init.fields ?? Fields.empty;
  }

  /** Turns a served request into an API request, dropping everything session-bound. */
  static of<P, Q = QueryText>(request: Request<P, Q>): ApiRequest<P, never, Q> {
    // A Request carries every member an ApiRequest is built from (the query parsed, as before).
    const fields = rawFields(request as Request<unknown>);
    const made = new ApiRequest<P, never, Q>(fields === undefined ? (request as unknown as RequestInit<P>) : { ...requestInit(request as Request<P>), fields });
    return withQueryParams(made, decodedQuery(request as Request<unknown, unknown>));
  }

  /**
   * The JSON body as the declared type `B`, checked against it: anything else (another content
   * type, malformed JSON, a value of another shape) throws `BadRequest`, fw's 400 problem page
   * naming the failing places (`$.title: expected string`). Use `readJson()` to answer a JSON
   * problem of your own instead.
   */
  json(): B {
    return jsonOrThrow(this.readJson());
  }

  /**
   * The JSON body as `{ ok: true, value }`, or `{ ok: false, problem }` with an RFC 9457 problem
   * ready for `JsonProblem(problem)`: for an API that answers its errors in JSON. Read once.
   */
  readJson(): JsonRead<B> {
    const check = this.#check;
    if (check === undefined) {
      throw new Error(
        `${this.method} ${this.path}: request.json() needs the body's type, and this route has no check for it. ` +
          "Declare it in the handler's signature (request: JsonRequest<NewTask>) so the build writes one, or, on a route built by hand, pass Route.api a `json` validator (typia.createValidate<NewTask>()).",
      );
    }
    this.#read ??= readJsonBody<B>(this.headers, this.body, check);
    return this.#read;
  }

  /**
   * An upload's body as the declared type `B` (issue 40: a `B` naming a model's file field,
   * `cover?: Post["cover"]`): its text parts checked against `B`'s other fields (numbers and
   * booleans read from their text), each file already checked by its bytes, stored, and recorded
   * for the model's table and column (a file no row comes to hold is swept a day later). Its
   * file fields hold the stored files (`StoredFile`: key, name, type, size, checksum), ready to
   * be a row's. Anything else (not `multipart/form-data`, a text part not of its type, a required
   * file missing, a file its field does not take, an unreadable image) throws `BadRequest`, fw's
   * 400 problem page naming each failing place. Read once: a second call answers the same.
   */
  async upload(): Promise<B> {
    return jsonOrThrow(await this.readUpload());
  }

  /** An upload's body as `{ ok: true, value }`, or `{ ok: false, problem }` for `JsonProblem(problem)`, as `readJson()` for JSON. */
  readUpload(): Promise<JsonRead<B>> {
    const upload = this.#upload;
    if (upload === undefined) {
      return Promise.reject(
        new Error(
          `${this.method} ${this.path}: request.upload() reads a multipart body whose type names a model's file field, and this route has no reader for one. ` +
            'Declare it in the handler\'s signature (request: JsonRequest<NewPost>, with cover?: Post["cover"] in NewPost) so the build writes one, or, on a route built by hand, pass Route.api an `upload` (apiUpload(…)).',
        ),
      );
    }
    this.#uploaded ??= upload.read(this) as Promise<JsonRead<B>>;
    return this.#uploaded;
  }
}

/** An API request whose JSON body is a `B`, for a handler on a path without parameters: `request: JsonRequest<NewTask>`. */
export type JsonRequest<B, P = DefaultParams, Q = QueryText> = ApiRequest<P, B, Q>;

/** Hands `request` its query parameters, decoded by its route (`HttpRoute.query`). For the routes, not the public API. */
export function withQueryParams<R extends object>(request: R, value: unknown): R {
  attachQuery(request as unknown as Sent<unknown, unknown>, value);
  return request;
}

/** Hands `request` the reader of its route's upload body. For `Route.api`, not the public API. */
export function expectingUpload<P, B>(request: ApiRequest<P, B>, upload: UploadBody): ApiRequest<P, B> {
  attachUpload(request as ApiRequest<unknown, unknown>, upload);
  return request;
}

/** Hands `request` the validator of its route's JSON body. For `Route.api`, not the public API. */
export function expectingJson<P, B>(request: ApiRequest<P, B>, check: JsonCheck): ApiRequest<P, B> {
  attachCheck(request as ApiRequest<unknown, unknown>, check);
  return request;
}

/** The form a body carries: parsed when urlencoded (invalid UTF-8 is a 400), else empty. */
export function formOf(headers: RequestHeaders, body: Uint8Array): Fields {
  return isUrlEncoded(headers.get("content-type")) ? Fields.parse(textOf(body), "form") : Fields.empty;
}

export function isUrlEncoded(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const semi = contentType.indexOf(";");
  const type = (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  return type === "application/x-www-form-urlencoded";
}

/** A copy of `request` with some members replaced. For the runtime and guards, not the public API. */
export function copyRequest<P, C = P, Q = QueryText>(
  request: Request<P, Q>,
  changes: Omit<RequestInit<C>, "query" | "body" | "headers" | "path" | "method"> & { readonly method?: Method },
): Request<C, Q> {
  const init: RequestInit<C> & WithSigner = {
    [SIGNER]: signerOf(request as Request<unknown, unknown>),
    id: request.id,
    method: changes.method ?? request.method,
    path: request.path,
    params: changes.params ?? (request.params as unknown as C),
    query: rawQuery(request),
    headers: request.headers,
    body: request.body,
    files: request.files,
    ...optional("fields", rawFields(request as unknown as Request<unknown>)),
    ...optional("form", changes.form ?? rawForm(request as unknown as Request<unknown>)),
    session: changes.session ?? request.session,
    secure: changes.secure ?? request.secure,
    ...optional("currentUser", "currentUser" in changes ? changes.currentUser : request.currentUser),
    ...optional("clientAddress", changes.clientAddress ?? request.clientAddress),
    ...optional("mount", changes.mount ?? (request.mount === "" ? undefined : request.mount)),
  };
  return withQueryParams(new Request<C, Q>(init), decodedQuery(request as Request<unknown, unknown>));
}

/**
 * What signs fw's own cookies with the app secret, on a browser request the server built (and
 * its copies); undefined on one built by hand. For fw's modules (fw/auth's passkey challenge),
 * not the public API.
 */
export function requestSigner(request: Request<unknown, unknown>): ValueSigner | undefined {
  return signerOf(request);
}

/** The members a Request is built from, as an init (for `ApiRequest.of` to add to). */
function requestInit<P>(request: Request<P>): RequestInit<P> {
  return {
    id: request.id,
    method: request.method,
    path: request.path,
    params: request.params,
    query: rawQuery(request as Request<unknown>),
    headers: request.headers,
    body: request.body,
    files: request.files,
    mount: request.mount,
  };
}

function optional<K extends string, V>(key: K, value: V | undefined): { [k in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [k in K]?: V };
}

/**
 * The request with `currentUser` set: for a guard's `through` wrapper and its `identify` only
 * (spec 2.5: the user is never taken from anything the client sent). Any sign-in mechanism
 * (the auth module's form sign-in, an API key, single sign-on) names the user this way.
 */
export function withCurrentUser<P, Q = QueryText>(request: Request<P, Q>, user: string | undefined): Request<P, Q> {
  return copyRequest(request, { currentUser: user });
}
