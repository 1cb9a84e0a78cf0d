import { BadRequest } from "./failure.js";
import type { RequestHeaders } from "./headers.js";
import { Response, type Header } from "./response.js";

/** What typia's `createValidate<B>()` answers; the build writes one per handler that declares a JSON body. */
export type JsonCheck = (input: unknown) =>
  | { readonly success: true; readonly data: unknown }
  | { readonly success: false; readonly errors: readonly { readonly path: string; readonly expected: string; readonly value: unknown }[] };

/** One place a JSON body breaks its declared type: where (`$.tags[0]`) and what was expected there. */
export interface JsonError {
  readonly path: string;
  readonly expected: string;
}

/**
 * An RFC 9457 problem as JSON (`application/problem+json`), for an API handler's own answers.
 * `errors` lists the failing places of a body that did not match its type.
 */
export interface JsonProblemBody {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly errors?: readonly JsonError[];
}

/** What `request.readJson()` answers: the body as its declared type, or why it is not. */
export type JsonRead<B> = { readonly ok: true; readonly value: B } | { readonly ok: false; readonly problem: JsonProblemBody };

/** At most this many failing places are named in one answer (a huge wrong body lists no more). */
export const MAX_JSON_ERRORS = 20;

/**
 * Reads a body as JSON of the declared type: the content type must be JSON
 * (`application/json`, or any `…+json`), the text UTF-8 and well-formed, the value what the type
 * says (the build's typia validator). The size was capped when the body was read (`maxBodySize`, 413).
 */
export function readJsonBody<B>(headers: RequestHeaders, body: Uint8Array, check: JsonCheck): JsonRead<B> {
  const type = mediaType(headers.get("content-type"));
  if (type !== "application/json" && !/^application\/[a-z0-9.+-]+\+json$/.test(type)) {
    const sent = type === "" ? "no Content-Type" : `Content-Type ${type.slice(0, 60)}`;
    return refusedBody(`The request body must be JSON sent with Content-Type: application/json; this request has ${sent}.`);
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(body);
  } catch {
    return refusedBody("The request body is not valid UTF-8.");
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const why = text.trim() === "" ? "it is empty" : (error as Error).message.slice(0, 200);
    return refusedBody(`The request body is not valid JSON: ${why}.`);
  }
  const checked = check(value);
  if (checked.success) return { ok: true, value: checked.data as B };
  const errors = checked.errors.slice(0, MAX_JSON_ERRORS).map((e): JsonError => ({ path: e.path.replace(/^\$input/, "$"), expected: e.expected }));
  const more = checked.errors.length > errors.length ? ` (the first ${errors.length} of ${checked.errors.length})` : "";
  const listed = errors.map((e) => `${e.path}: expected ${e.expected}`).join("; ");
  return refusedBody(`The request body does not match the expected type${more}: ${listed}.`, errors);
}

/** The body as its type, or a `BadRequest` (fw's HTML problem page, spec 2.16) saying why. */
export function jsonOrThrow<B>(read: JsonRead<B>): B {
  if (read.ok) return read.value;
  throw new BadRequest(read.problem.detail);
}

/** A body refused with a 400: its problem, with the failing places when it was of another shape. For fw's body readers. */
export function refusedBody(detail: string, errors?: readonly JsonError[]): JsonRead<never> {
  const problem: JsonProblemBody = { type: "about:blank", title: "Bad Request", status: 400, detail, ...(errors === undefined ? {} : { errors }) };
  return { ok: false, problem };
}

function mediaType(contentType: string | undefined): string {
  if (contentType === undefined) return "";
  const semi = contentType.indexOf(";");
  return (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

const JSON_TYPE = "application/json; charset=utf-8";

/**
 * What a `JsonResponse` says it carries, for the compiler alone: never set at run time (no value
 * of the symbol exists), so a plain `Response` is not a `JsonResponse` and the type cannot lie.
 */
declare const carries: unique symbol;

/**
 * A JSON answer of type `T` at status `S`: what `Json(value, status)` returns. A handler whose
 * return type says it (`Json(post)` with the return type inferred, or declared as
 * `Promise<JsonResponse<Post>>`) gets its answers written by typia's typed stringify (checked
 * against `T`, and writing only `T`'s properties), described in the app's OpenAPI document, and
 * typed in fw/client's calls (docs/guides/json-apis.md).
 */
export interface JsonResponse<T, S extends number = number> extends Response {
  readonly [carries]: { readonly body: T; readonly status: S };
}

/**
 * An RFC 9457 problem answered as `application/problem+json` at status `S`: what
 * `JsonProblem(problem)` returns. The OpenAPI document lists it among the route's failures.
 */
export interface JsonProblemResponse<S extends number = number> extends Response {
  readonly [carries]: { readonly problem: JsonProblemBody; readonly status: S };
}

/**
 * A JSON answer: `value` serialised, `Content-Type: application/json; charset=utf-8` and
 * `Cache-Control: no-store` (an API's answers are usually about one caller's data; add your own
 * caching with `status(code, text, { contentType })` for one that is not). 200 unless `code` says.
 * The value is written when the answer goes out: by the route's typed stringify when the build
 * wrote one for the handler's answer type (typia's, checked), else by `JSON.stringify`.
 */
export function Json<T, S extends number = 200>(value: T, code?: S): JsonResponse<T, S> {
  // What JSON cannot write at all is refused here, where the handler's stack says who sent it.
  const kind = typeof value;
  if (value === undefined || kind === "function" || kind === "symbol") {
    throw new Error(`Json: ${kind} cannot be written as JSON; answer a value, an array or null.`);
  }
  return new Response(code ?? 200, JSON_HEADERS, { type: "json", value }) as JsonResponse<T, S>;
}

/** Json's headers: one frozen list shared by every JSON answer. */
const JSON_HEADERS: readonly Header[] = Object.freeze([
  Object.freeze(["content-type", JSON_TYPE] as const),
  Object.freeze(["cache-control", "no-store"] as const),
]);

/**
 * An RFC 9457 problem answered as `application/problem+json`, for an API handler's own errors
 * (fw's own refusals stay HTML problem pages, spec 2.16). Its status is the problem's.
 * `JsonProblem(read.problem)` answers a body `request.readJson()` refused.
 */
export function JsonProblem<S extends number = number>(problem: JsonProblemBody & { readonly status: S }): JsonProblemResponse<S> {
  const text = JSON.stringify(problem);
  const headers: readonly Header[] = [
    ["content-type", "application/problem+json"],
    ["cache-control", "no-store"],
  ];
  return new Response(problem.status, headers, { type: "text", text }) as JsonProblemResponse<S>;
}

/**
 * The text of a JSON body: through `stringify` (a route's typed one) when given, else
 * `JSON.stringify`. A value JSON cannot write throws, naming it.
 */
export function jsonText(value: unknown, stringify: ((value: unknown) => string) | undefined): string {
  const text = stringify === undefined ? JSON.stringify(value) : stringify(value);
  // JSON.stringify answers undefined for a function or a symbol (typia's typed stringify never does).
  if (typeof text !== "string") throw new Error(`Json: ${typeof value} cannot be written as JSON; answer a value, an array or null.`);
  return text;
}

/** What typia's assert functions hand their error factory. */
interface TypeGuardProps {
  readonly path?: string;
  readonly expected: string;
  readonly value: unknown;
}

/**
 * The error a route's typed stringify throws when a handler's JSON answer is not its declared
 * type (the build passes this to `json.createAssertStringify`): a 500 whose log line names the
 * route file, the place and what was expected there.
 */
export function jsonAnswerMismatch(source: string): (props: TypeGuardProps) => Error {
  return (props) => {
    const place = (props.path ?? "$input").replace(/^\$input/, "$");
    const got = props.value === undefined ? "undefined" : props.value === null ? "null" : Array.isArray(props.value) ? "an array" : typeof props.value;
    const error = new Error(
      `${source} answered JSON that is not its answer type: ${place}: expected ${props.expected}, got ${got}. ` +
        "The answer was not sent. Fix what the handler answers, or the type it says it answers (its return type).",
    );
    error.name = "JsonAnswerMismatch";
    return error;
  };
}

/** What a handler's answer is: its return type, awaited. */
type AnswerOfHandler<H> = H extends (...args: never[]) => infer R ? Awaited<R> : never;

/**
 * The JSON values a handler answers with (`Json(value)`), read off its return type: the union
 * of every `JsonResponse<T, S>`'s `T`. What the build's typed stringify is typed by.
 */
export type JsonAnswerOf<H> = AnswerOfHandler<H> extends infer R ? (R extends JsonResponse<infer T, number> ? T : never) : never;

/**
 * The JSON values a handler answers with at status `S` (`number`: those whose status its type
 * leaves open, OpenAPI's "default"). What the OpenAPI document lists under each status.
 */
export type JsonAnswerAt<H, S extends number> =
  AnswerOfHandler<H> extends infer R ? (R extends JsonResponse<infer T, infer Code> ? (number extends Code ? (number extends S ? T : never) : S extends Code ? T : never) : never) : never;
