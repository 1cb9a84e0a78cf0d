/**
 * RFC 9110 13.1.2: whether an `If-None-Match` header names `etag` (weak comparison: a `W/`
 * prefix is ignored; `*` matches any). Undefined (no header) never matches.
 */
export function noneMatchHits(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(",").some((tag) => {
    const trimmed = tag.trim();
    return trimmed === "*" || trimmed.replace(/^W\//, "") === etag;
  });
}
