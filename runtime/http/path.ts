import { BadRequest } from "./failure.js";

/**
 * Splits a request path into percent-decoded segments, one by one after splitting, so an
 * encoded "/" (`%2F`) stays inside its segment (spec 2.3). A trailing slash is ignored.
 * fw never resolves dot segments and never merges slashes, so what could only ever reach a
 * handler as a trick is a 400: malformed or overlong encodings, invalid UTF-8, NUL, an empty
 * segment (`//`), a "." or ".." segment, and a segment holding `/` or `\` (encoded, or a raw
 * backslash) with an empty, "." or ".." piece between them (`..%2Fetc`, `%2Fetc`, `..\x`).
 * So a catch-all's value, joined with "/", never climbs out of its folder nor starts at the root.
 * One scan with indexOf (this runs on every request): a segment is decoded only when it holds "%".
 */
export function splitPath(path: string): string[] {
  if (path === "/" || path === "") return [];
  const end = path.charCodeAt(path.length - 1) === 47 /* "/" */ ? path.length - 1 : path.length;
  const segments: string[] = [];
  let start = 1;
  for (;;) {
    let stop = path.indexOf("/", start);
    if (stop === -1 || stop > end) stop = end;
    const raw = path.slice(start, stop);
    segments.push(checked(raw.includes("%") ? decodeSegment(raw) : raw));
    if (stop >= end) return segments;
    start = stop + 1;
  }
}

function checked(segment: string): string {
  if (segment === "") throw new BadRequest("The path has an empty segment (//): fw does not merge slashes.");
  if (segment === "." || segment === ".." || segment.includes("\0")) {
    throw new BadRequest(`The path has a segment fw does not serve: ${JSON.stringify(segment)}.`);
  }
  if ((segment.includes("/") || segment.includes("\\")) && segment.split(SEPARATOR).some(isDotOrEmpty)) {
    throw new BadRequest(`The path has a segment whose / or \\ would climb or restart a path: ${JSON.stringify(segment)}.`);
  }
  return segment;
}

const SEPARATOR = /[/\\]/;

function isDotOrEmpty(piece: string): boolean {
  return piece === "" || piece === "." || piece === "..";
}

function decodeSegment(part: string): string {
  try {
    // decodeURIComponent rejects truncated escapes, invalid UTF-8 and overlong encodings.
    return decodeURIComponent(part);
  } catch {
    throw new BadRequest("The path has a malformed percent-encoding.");
  }
}

/** `http://` or `https://`, the authority, then the path and query (a fragment is never sent). */
const ABSOLUTE_FORM = /^https?:\/\/([^/?#]*)([^#]*)$/i;

/**
 * The origin-form (`/path?query`) of a request target. RFC 9112 section 3.2.2 has a server
 * accept the absolute-form too (`http://host/path?query`, which clients send to proxies): its
 * path and query are served, provided its authority is the one the Host header names; a
 * mismatch is refused (400) rather than one of the two believed. Any other form (the asterisk
 * of `OPTIONS *`, an authority without a scheme, garbage) is a 400.
 */
export function originForm(target: string, host: string | undefined): string {
  if (target.charCodeAt(0) === 47 /* "/" */) return target;
  const absolute = splitAbsoluteForm(target);
  if (absolute === undefined) throw new BadRequest("The request target must be a path, or an absolute http(s) URL.");
  if (host === undefined || absolute.authority.toLowerCase() !== host.toLowerCase()) {
    throw new BadRequest(`The request target names the host ${JSON.stringify(absolute.authority)}, but the Host header says ${JSON.stringify(host ?? "")}.`);
  }
  return absolute.origin;
}

/**
 * An absolute-form target's authority and its origin-form (`http://host?q` → `host`, `/?q`);
 * undefined for any other form. The access log shows a target by this origin-form too.
 */
export function splitAbsoluteForm(target: string): { authority: string; origin: string } | undefined {
  const absolute = ABSOLUTE_FORM.exec(target);
  if (absolute === null) return undefined;
  const rest = absolute[2] as string;
  return { authority: absolute[1] as string, origin: rest === "" || rest.charCodeAt(0) === 63 /* "?" */ ? `/${rest}` : rest };
}

/** Splits a request target into its path and query text (the part after "?", without it). */
export function splitTarget(target: string): { path: string; query: string } {
  const q = target.indexOf("?");
  return q === -1 ? { path: target, query: "" } : { path: target.slice(0, q), query: target.slice(q + 1) };
}
