import { BadRequest } from "./failure.js";

/**
 * Splits a request path into percent-decoded segments, one by one after splitting, so an
 * encoded "/" (`%2F`) stays inside its segment (spec 2.3). A trailing slash is ignored.
 * Malformed or overlong encodings, invalid UTF-8, NUL, and "." or ".." segments are a 400:
 * fw never resolves dot segments, so they would only ever reach a handler as a trick.
 */
export function splitPath(path: string): string[] {
  if (path === "/" || path === "") return [];
  const end = path.endsWith("/") ? path.length - 1 : path.length;
  const parts = path.slice(1, end).split("/");
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as string;
    const segment = part.includes("%") ? decodeSegment(part) : part;
    if (segment === "." || segment === ".." || segment.includes("\0")) {
      throw new BadRequest(`The path has a segment fw does not serve: ${JSON.stringify(segment)}.`);
    }
    parts[i] = segment;
  }
  return parts;
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
