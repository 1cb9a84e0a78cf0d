import type { Cookie } from "./cookie.js";
import { withDefaultHeaders } from "./default-headers.js";
import { BadRequest } from "./failure.js";
import { fragment, isNode, type Html } from "../html/node.js";
import type { Session } from "./session.js";
import type { Readable } from "node:stream";

/**
 * A response body. `html` content is framed by the layout (or sent as written when it is a
 * whole `<html>` document); `json` is a value `Json` answered, written when the answer goes out
 * (by the route's typed stringify when it has one). `stream` is the case spec 2.7 reserves,
 * used for stored files (fw/files' `serveStored`): bytes of a known length, opened only when they
 * are sent (never for HEAD or a 304), so a large file is never held in memory.
 */
export type Body =
  | { readonly type: "empty" }
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "json"; readonly value: unknown }
  | { readonly type: "bytes"; readonly bytes: Uint8Array }
  | { readonly type: "html"; readonly html: Html }
  | OneRequestHtml
  | StreamBody;

/**
 * A page made for one request and never handed out again (fw's derived Index and Show): once
 * the dispatcher has rendered it, it lets go of the page's tree (`rendered`). Under load a
 * handler's promise is often old by the time it settles, and an old promise keeps what it
 * settled with (the Response, its body, the whole tree) through every scavenge until a major
 * collection: the posts' Index promoted ~90 KB a request that way (bench/FINDINGS.md 29). A
 * handler's own `Ok(…)` may be a constant served again, so only these are let go.
 */
interface OneRequestHtml {
  readonly type: "html";
  html: Html;
  readonly once: true;
}

/** Bytes sent as a stream: exactly `length` of them, from `open()`, called once when the answer is written. */
export interface StreamBody {
  readonly type: "stream";
  readonly length: number;
  open(): Promise<Readable>;
}

export type Header = readonly [name: string, value: string];

const EMPTY: Body = { type: "empty" };

/** What a handler may answer with: page content, text, or bytes. */
export type Content = Html | string | Uint8Array;

/**
 * A response (spec 2.7): any integer status, ordered headers with duplicates allowed, a body,
 * and optionally the session to keep. A response that names no session keeps the request's.
 */
export class Response {
  constructor(
    readonly status: number,
    readonly headers: readonly Header[] = [],
    readonly body: Body = EMPTY,
    readonly session: Session | undefined = undefined,
  ) {
    if (!Number.isInteger(status) || status < 100 || status > 999) {
      throw new Error(`Response status ${status} is not a three-digit integer.`);
    }
  }

  /** A copy with one more header (duplicates kept: Set-Cookie repeats). */
  withHeader(name: string, value: string): Response {
    checkHeader(name, value);
    return new Response(this.status, [...this.headers, [name, value]], this.body, this.session);
  }

  /** A copy that hands the session to keep; written into the cookie after dispatch. */
  withSession(session: Session): Response {
    return new Response(this.status, this.headers, this.body, session);
  }

  /** A copy that sets a cookie of the application's own. */
  withCookie(cookie: Cookie): Response {
    return this.withHeader("set-cookie", cookie.render());
  }

  /** The first value of header `name` (any case). */
  header(name: string): string | undefined {
    const lower = name.toLowerCase();
    return this.headers.find(([n]) => n.toLowerCase() === lower)?.[1];
  }
}

const HTML_TYPE = "text/html; charset=utf-8";
const TEXT_TYPE = "text/plain; charset=utf-8";

/** fw's own content-type header for each kind of content: built once, frozen, shared by every response. */
function typeHeaders(type: string): readonly Header[] {
  return Object.freeze([Object.freeze(["content-type", type] as const)]);
}

const BYTES_TYPE = "application/octet-stream";
const TEXT_HEADERS = typeHeaders(TEXT_TYPE);
const BYTES_HEADERS = typeHeaders(BYTES_TYPE);
const HTML_HEADERS = typeHeaders(HTML_TYPE);

/**
 * A response's headers as the flat [name, value, …] list Node's `writeHead` takes, with fw's
 * default headers (default-headers.ts) its content calls for, `page` (the app's `pageDefaults`)
 * on HTML: a new list, the caller's to extend. fw's own shared lists are recognised by identity
 * and written from constants, defaults included: V8 (Node 20) reads a frozen array's elements
 * through a generic call in optimized code, several of them per response here.
 */
export function flatHeaders(headers: readonly Header[], page: readonly string[]): string[] {
  if (headers === TEXT_HEADERS) return ["content-type", TEXT_TYPE, "x-content-type-options", "nosniff"];
  if (headers === HTML_HEADERS) {
    const list = ["content-type", HTML_TYPE];
    for (let i = 0; i < page.length; i++) list.push(page[i] as string);
    return list;
  }
  if (headers === BYTES_HEADERS) return ["content-type", BYTES_TYPE, "x-content-type-options", "nosniff"];
  const list: string[] = [];
  // An index loop: `for … of` here ran the array iterator builtin on every request
  // (bench/instructions.mjs --by-function), where this compiles to plain loads.
  for (let i = 0; i < headers.length; i++) {
    const header = headers[i] as Header;
    list.push(header[0], header[1]);
  }
  return withDefaultHeaders(list, page);
}

function bodyOf(content: Content): { body: Body; headers: readonly Header[] } {
  if (typeof content === "string") return { body: { type: "text", text: content }, headers: TEXT_HEADERS };
  if (content instanceof Uint8Array) return { body: { type: "bytes", bytes: content }, headers: BYTES_HEADERS };
  if (isNode(content)) return { body: { type: "html", html: content }, headers: HTML_HEADERS };
  throw new Error("Response content must be JSX, a string or a Uint8Array.");
}

interface ContentOptions {
  readonly contentType?: string;
}

// A shared default: a handler's `Ok(text)` allocates no options record.
const NO_OPTIONS: ContentOptions = Object.freeze({});

/**
 * 200 with a page built for this request alone (fw's derived pages, `OneRequestHtml`): the
 * dispatcher drops its tree once rendered. Not for a Response that is served again.
 */
export function OkOnce(content: Html): Response {
  return new Response(200, HTML_HEADERS, { type: "html", html: content, once: true });
}

/** What a rendered one-request page holds afterwards: nothing. */
const SPENT: Html = fragment([]);

/** Lets go of a one-request page's tree once its bytes are written (a no-op for any other body). */
export function rendered(body: Body): void {
  if (body.type === "html" && "once" in body) body.html = SPENT;
}

/** 200 with content: JSX is an HTML page (framed by the layout), a string plain text. */
export function Ok(content: Content, options: ContentOptions = NO_OPTIONS): Response {
  return status(200, content, options);
}

/** Any status with optional content, for everything but Ok and Redirect. */
export function status(code: number, content?: Content, options: ContentOptions = NO_OPTIONS): Response {
  if (content === undefined) return new Response(code);
  const { body, headers } = bodyOf(content);
  if (options.contentType === undefined) return new Response(code, headers, body);
  // fw's own content types are known good: only one the handler names is checked (every response).
  checkHeader("content-type", options.contentType);
  return new Response(code, [["content-type", options.contentType]], body);
}

/**
 * A redirect, 303 See Other by default (the answer to a form post). A target holding CR, LF or
 * NUL is refused: it could split the response, and it only ever comes from hostile input.
 */
export function Redirect(location: string, code: 301 | 302 | 303 | 307 | 308 = 303): Response {
  if (/[\r\n\0]/.test(location)) {
    throw new BadRequest("The redirect target contains a line break or NUL.");
  }
  return new Response(code, [["location", encodedLocation(location)]]);
}

/**
 * The target as a Location header can carry it: spaces, control characters and everything
 * beyond ASCII percent-encoded as UTF-8 (`/café` → `/caf%C3%A9`), the rest (existing `%XX`
 * escapes included) kept as written. Node refuses to send a header holding a character beyond
 * Latin-1 at all, and sends Latin-1 ones as single bytes no browser reads as meant.
 */
function encodedLocation(location: string): string {
  if (!/[^\x21-\x7e]/.test(location)) return location;
  return location.replace(/[^\x21-\x7e]+/g, (run) => encodeURIComponent(run.replace(LONE_SURROGATE, "\uFFFD")));
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function checkHeader(name: string, value: string): void {
  if (!TOKEN.test(name)) throw new Error(`Header name ${JSON.stringify(name)} is not an HTTP token.`);
  if (/[\r\n\0]/.test(value)) {
    throw new Error(`Header ${name}: its value contains CR, LF or NUL, which would split the response.`);
  }
  // What Node's writer accepts (RFC 9110 field-vchar, SP, HTAB, obs-text); anything else would
  // make it throw while answering.
  const bad = /[^\t\x20-\x7e\x80-\xff]/.exec(value);
  if (bad !== null) {
    const code = (bad[0].codePointAt(0) as number).toString(16).toUpperCase().padStart(4, "0");
    throw new Error(`Header ${name}: its value holds U+${code}, which an HTTP header cannot carry; percent-encode it.`);
  }
}
