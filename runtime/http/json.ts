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
    return refused(`The request body must be JSON sent with Content-Type: application/json; this request has ${sent}.`);
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(body);
  } catch {
    return refused("The request body is not valid UTF-8.");
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const why = text.trim() === "" ? "it is empty" : (error as Error).message.slice(0, 200);
    return refused(`The request body is not valid JSON: ${why}.`);
  }
  const checked = check(value);
  if (checked.success) return { ok: true, value: checked.data as B };
  const errors = checked.errors.slice(0, MAX_JSON_ERRORS).map((e): JsonError => ({ path: e.path.replace(/^\$input/, "$"), expected: e.expected }));
  const more = checked.errors.length > errors.length ? ` (the first ${errors.length} of ${checked.errors.length})` : "";
  const listed = errors.map((e) => `${e.path}: expected ${e.expected}`).join("; ");
  return refused(`The request body does not match the expected type${more}: ${listed}.`, errors);
}

/** The body as its type, or a `BadRequest` (fw's HTML problem page, spec 2.16) saying why. */
export function jsonOrThrow<B>(read: JsonRead<B>): B {
  if (read.ok) return read.value;
  throw new BadRequest(read.problem.detail);
}

function refused(detail: string, errors?: readonly JsonError[]): JsonRead<never> {
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
 * A JSON answer: `value` serialised, `Content-Type: application/json; charset=utf-8` and
 * `Cache-Control: no-store` (an API's answers are usually about one caller's data; add your own
 * caching with `status(code, text, { contentType })` for one that is not). 200 unless `code` says.
 */
export function Json(value: unknown, code = 200): Response {
  return jsonResponse(code, JSON_TYPE, value);
}

/**
 * An RFC 9457 problem answered as `application/problem+json`, for an API handler's own errors
 * (fw's own refusals stay HTML problem pages, spec 2.16). Its status is the problem's.
 * `JsonProblem(read.problem)` answers a body `request.readJson()` refused.
 */
export function JsonProblem(problem: JsonProblemBody): Response {
  return jsonResponse(problem.status, "application/problem+json", problem);
}

function jsonResponse(code: number, contentType: string, value: unknown): Response {
  const text = JSON.stringify(value);
  if (text === undefined) throw new Error(`Json: ${typeof value} cannot be written as JSON; answer a value, an array or null.`);
  const headers: readonly Header[] = [
    ["content-type", contentType],
    ["cache-control", "no-store"],
  ];
  return new Response(code, headers, { type: "text", text });
}
