/**
 * fw/client's calls: plain `fetch`, nothing of Node's, so the same module runs in Node 20, a
 * browser and a worker. Its only imports are types.
 */
import type { JsonCheck } from "../http/json.js";
import type { AnswerChecks, ApiClient, CallOptions, ProblemDetails, RawAnswer, UploadRoutes } from "./types.js";

/** What `createClient` takes beside the app's address. */
export interface ClientOptions<A> {
  /**
   * The generated checks of each route's JSON answer (`answers` from the app's `.fw/api.ts`): an
   * answer that is not what the handler's type says then rejects with an `ApiError` instead of
   * reaching the caller typed as what it is not.
   */
  readonly answers?: AnswerChecks<A>;
  /**
   * The routes that take an upload (`uploads` from the app's `.fw/api.ts`): their bodies go as
   * `multipart/form-data` forms, with or without a file. Required when the app has one (a body
   * carrying a `Blob` is sent as a form anyway).
   */
  readonly uploads?: UploadRoutes<A>;
  /** Headers every call sends (an API key: `{ authorization: "Bearer …" }`). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * A bearer token every call sends as `Authorization: Bearer <token>`: a per-user API token
   * (fw/auth, made on /account) or an API key. Never a cookie: the client sends none.
   */
  readonly token?: string;
  /** The `fetch` to call with (default: the global one). */
  readonly fetch?: typeof fetch;
}

/**
 * `createClient`'s options: optional, unless the app has routes that take an upload; then
 * `uploads` (from its `.fw/api.ts`) must be among them, so a call without a file is still a form.
 */
export type ClientArgs<A> = [keyof UploadRoutes<A>] extends [never] ? [options?: ClientOptions<A>] : [options: ClientOptions<A> & { readonly uploads: UploadRoutes<A> }];

/** Why a call did not answer what its type says. */
export type ApiErrorKind = "refused" | "unexpected";

/**
 * A call that did not succeed. `refused`: the app answered 4xx or 5xx (`problem` holds what its
 * answer said: RFC 9457's members, from `application/problem+json` or from fw's HTML problem
 * page). `unexpected`: a 2xx whose body is not what the handler's type says (`errors` names the
 * failing places, when the generated checks were given), or not JSON where JSON was promised.
 */
export class ApiError extends Error {
  readonly kind: ApiErrorKind;
  readonly method: string;
  /** The path called (parameters filled in, no query). */
  readonly path: string;
  readonly status: number;
  readonly problem: ProblemDetails | undefined;
  readonly errors: readonly { readonly path: string; readonly expected: string }[];
  /** The answer's body as text. */
  readonly body: string;

  constructor(init: { kind: ApiErrorKind; method: string; path: string; status: number; message: string; body: string; problem?: ProblemDetails; errors?: readonly { path: string; expected: string }[] }) {
    super(init.message);
    this.name = "ApiError";
    this.kind = init.kind;
    this.method = init.method;
    this.path = init.path;
    this.status = init.status;
    this.problem = init.problem;
    this.errors = init.errors ?? [];
    this.body = init.body;
  }
}

/** Methods whose calls carry a body slot (after the parameters). */
const BODY_METHODS: ReadonlySet<string> = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * A typed client of an app's JSON API. `A` is the app's generated `Api` type
 * (`import type { Api } from "./.fw/api.js"`); `baseUrl` is where the app is served (with the
 * prefix a `Route.under` put its table under, if any):
 *
 * ```ts
 * const api = createClient<Api>("http://localhost:3000", { answers });
 * const post = await api.get("/api/posts/:id", { id: 7 });
 * ```
 */
export function createClient<A>(baseUrl: string, ...given: ClientArgs<A>): ApiClient<A> {
  const options: ClientOptions<A> = given[0] ?? {};
  const base = baseUrl.replace(/\/+$/, "");
  if (options.token !== undefined && (options.token === "" || /[\s\p{Cc}]/u.test(options.token))) {
    throw new TypeError("fw/client: the token is empty or holds a space or control character: pass the token as it was shown (fwt_…).");
  }
  const call = (method: string) => (pattern: string, ...args: unknown[]): Promise<unknown> => send({ base, options, method, pattern, args });
  return {
    get: call("GET"),
    post: call("POST"),
    put: call("PUT"),
    patch: call("PATCH"),
    delete: call("DELETE"),
  } as ApiClient<A>;
}

interface Call<A> {
  readonly base: string;
  readonly options: ClientOptions<A>;
  readonly method: string;
  readonly pattern: string;
  readonly args: readonly unknown[];
}

async function send<A>(call: Call<A>): Promise<unknown> {
  const { method, pattern } = call;
  const args = [...call.args];
  const params = patternNames(pattern).length > 0 ? (args.shift() as Readonly<Record<string, unknown>> | undefined) : undefined;
  const body = BODY_METHODS.has(method) ? args.shift() : undefined;
  const given = (args.shift() ?? {}) as CallOptions;
  const path = filled(pattern, params ?? {});
  const token: Record<string, string> = call.options.token === undefined ? {} : { authorization: `Bearer ${call.options.token}` };
  const headers: Record<string, string> = { accept: "application/json", ...token, ...call.options.headers, ...given.headers };
  const uploads = call.options.uploads as Readonly<Record<string, unknown>> | undefined;
  const form = body !== undefined && (uploads?.[`${method} ${pattern}`] !== undefined || holdsBlob(body));
  // A form's Content-Type (with its boundary) is fetch's to write.
  if (body !== undefined && !form) headers["content-type"] = "application/json";
  const response = await (call.options.fetch ?? fetch)(call.base + path + queryOf(given.query), {
    method,
    headers,
    ...(body === undefined ? {} : { body: form ? formOf(body, `${method} ${pattern}`) : JSON.stringify(body) }),
    ...(given.signal === undefined ? {} : { signal: given.signal }),
  });
  const text = await response.text();
  const at = { method, path, status: response.status, body: text };
  if (response.status >= 400) throw refused(at, response.headers.get("content-type") ?? "", response.statusText);
  const check = (call.options.answers as Readonly<Record<string, JsonCheck | undefined>> | undefined)?.[`${method} ${pattern}`];
  const type = mediaType(response.headers.get("content-type"));
  if (response.status < 200 || response.status > 299 || !isJson(type)) {
    if (check !== undefined) throw unexpected(at, `answered ${response.status} ${type === "" ? "with no content type" : type}, not the JSON its handler's type says`);
    return { raw: true, status: response.status, headers: response.headers, text } satisfies RawAnswer;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw unexpected(at, `answered ${type} that is not JSON: ${(error as Error).message}`);
  }
  if (check === undefined) return value;
  const checked = check(value);
  if (checked.success) return checked.data;
  const errors = checked.errors.slice(0, 20).map((e) => ({ path: e.path.replace(/^\$input/, "$"), expected: e.expected }));
  throw unexpected(at, `answered JSON that is not its handler's answer type: ${errors.map((e) => `${e.path}: expected ${e.expected}`).join("; ")}`, errors);
}

/** Whether a body has a file among its fields (or their arrays): it can only go as a form. */
function holdsBlob(body: unknown): boolean {
  if (typeof body !== "object" || body === null) return false;
  return Object.values(body).some((value) => value instanceof Blob || (Array.isArray(value) && value.some((item) => item instanceof Blob)));
}

/**
 * An upload's body as a `multipart/form-data` form: a `Blob` (a `File`) as a file part, a string,
 * number, boolean or bigint as its text, an array as the part repeated; an absent (or null)
 * field is left out. Anything else has no form of its own: a TypeError naming it.
 */
function formOf(body: unknown, operation: string): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item === undefined || item === null) continue;
      if (item instanceof Blob) form.append(name, item, item instanceof File ? item.name : "blob");
      else if (typeof item === "string" || typeof item === "number" || typeof item === "boolean" || typeof item === "bigint") form.append(name, String(item));
      else throw new TypeError(`fw/client: ${operation} takes a form, and its field "${name}" holds ${typeof item === "object" ? "an object" : `a ${typeof item}`}: a form's fields are files (Blob), text, numbers and booleans, or arrays of them.`);
    }
  }
  return form;
}

/** The parameter names of a pattern (`:id`, `*rest`), in order. */
function patternNames(pattern: string): string[] {
  return pattern.split("/").filter((s) => s.startsWith(":") || s.startsWith("*")).map((s) => s.slice(1));
}

/** The pattern with each parameter's value in place, percent-encoded (a catch-all keeps its slashes). */
function filled(pattern: string, params: Readonly<Record<string, unknown>>): string {
  return pattern
    .split("/")
    .map((segment) => {
      if (!segment.startsWith(":") && !segment.startsWith("*")) return segment;
      const name = segment.slice(1);
      const value = params[name];
      if (value === undefined || value === null || value === "") throw new TypeError(`fw/client: ${pattern} needs the parameter "${name}".`);
      const text = String(value);
      return segment.startsWith("*") ? text.split("/").map(encodeURIComponent).join("/") : encodeURIComponent(text);
    })
    .join("/");
}

/** The query as sent: each field's value as text (a `Date` as its day, `YYYY-MM-DD`; a list as the field repeated), an absent one left out. */
function queryOf(query: CallOptions<unknown>["query"]): string {
  if (query === undefined || query === null) return "";
  const fields = new URLSearchParams();
  for (const [name, value] of Object.entries(query as Record<string, unknown>)) {
    for (const one of Array.isArray(value) ? value : [value]) {
      if (one === undefined || one === null) continue;
      fields.append(name, one instanceof Date ? one.toISOString().slice(0, 10) : String(one));
    }
  }
  const text = fields.toString();
  return text === "" ? "" : `?${text}`;
}

function mediaType(contentType: string | null): string {
  if (contentType === null) return "";
  return (contentType.split(";")[0] ?? "").trim().toLowerCase();
}

/** `application/json` or an `application/…+json` other than a problem. */
function isJson(type: string): boolean {
  return type === "application/json" || (/^application\/[a-z0-9.+-]+\+json$/.test(type) && type !== "application/problem+json");
}

interface At {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly body: string;
}

function unexpected(at: At, what: string, errors?: readonly { path: string; expected: string }[]): ApiError {
  return new ApiError({ ...at, kind: "unexpected", message: `${at.method} ${at.path} ${what}.`, ...(errors === undefined ? {} : { errors }) });
}

function refused(at: At, contentType: string, statusText: string): ApiError {
  const problem = problemOf(at, mediaType(contentType), statusText);
  const detail = problem.detail === "" ? "" : `: ${problem.detail}`;
  return new ApiError({ ...at, kind: "refused", message: `${at.method} ${at.path} answered ${at.status} ${problem.title}${detail}`, problem });
}

/** RFC 9457's members from a problem+json body, fw's HTML problem page, or (anything else) the status alone. */
function problemOf(at: At, type: string, statusText: string): ProblemDetails {
  const bare: ProblemDetails = { type: "about:blank", title: statusText, status: at.status, detail: "" };
  if (type === "application/problem+json" || type === "application/json") {
    try {
      const sent = JSON.parse(at.body) as Partial<ProblemDetails> | null;
      if (typeof sent === "object" && sent !== null) {
        return {
          ...bare,
          ...(typeof sent.type === "string" ? { type: sent.type } : {}),
          ...(typeof sent.title === "string" ? { title: sent.title } : {}),
          ...(typeof sent.detail === "string" ? { detail: sent.detail } : {}),
          ...(typeof sent.instance === "string" ? { instance: sent.instance } : {}),
          ...(Array.isArray(sent.errors) ? { errors: sent.errors } : {}),
        };
      }
    } catch {
      return bare;
    }
    return bare;
  }
  if (type !== "text/html") return { ...bare, detail: at.body.slice(0, 500) };
  // fw's problem page (runtime/server/problem.ts): <h1>404 Not Found</h1>, the detail and the instance in their own elements.
  const frame = at.body.indexOf('class="fw-problem"');
  if (frame === -1) return bare;
  const page = at.body.slice(frame);
  const title = textOf(/<h1>\d{3} ([\s\S]*?)<\/h1>/.exec(page)?.[1]);
  const detail = textOf(/<p class="fw-problem-detail">([\s\S]*?)<\/p>/.exec(page)?.[1]);
  const instance = textOf(/<p class="fw-problem-instance">([\s\S]*?)<\/p>/.exec(page)?.[1]);
  return { ...bare, ...(title === undefined ? {} : { title }), ...(detail === undefined ? {} : { detail }), ...(instance === undefined ? {} : { instance }) };
}

/** The text of escaped markup: tags dropped, the five escapes undone, spaces collapsed. */
function textOf(html: string | undefined): string | undefined {
  if (html === undefined) return undefined;
  return unescaped(html.replace(/<[^>]*>/g, "")).replace(/\s+/g, " ").trim();
}

function unescaped(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39|#x27);/g, (_, name: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", "#x27": "'" })[name] ?? "");
}
