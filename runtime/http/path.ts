import { BadRequest } from "./failure.js";

/**
 * Splits a request path into percent-decoded segments, one by one after splitting, so an
 * encoded "/" (`%2F`) stays inside its segment (spec 2.3). A trailing slash is ignored.
 * Malformed or overlong encodings, invalid UTF-8, NUL, and "." or ".." segments are a 400:
 * fw never resolves dot segments, so they would only ever reach a handler as a trick.
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
  if (segment === "." || segment === ".." || segment.includes("\0")) {
    throw new BadRequest(`The path has a segment fw does not serve: ${JSON.stringify(segment)}.`);
  }
  return segment;
}

function decodeSegment(part: string): string {
  try {
    // decodeURIComponent rejects truncated escapes, invalid UTF-8 and overlong encodings.
    return decodeURIComponent(part);
  } catch {
    throw new BadRequest("The path has a malformed percent-encoding.");
  }
}

/** Splits a request target into its path and query text (the part after "?", without it). */
export function splitTarget(target: string): { path: string; query: string } {
  const q = target.indexOf("?");
  return q === -1 ? { path: target, query: "" } : { path: target.slice(0, q), query: target.slice(q + 1) };
}
