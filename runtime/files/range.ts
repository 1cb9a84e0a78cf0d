import type { ByteRange } from "./storage.js";

/** What a `Range` header asks of a file of `size` bytes (RFC 9110 14.2). */
export type RangeAsk =
  /** No range (none sent, one fw does not serve, or several): the whole file, 200. */
  | { readonly kind: "whole" }
  /** One satisfiable range: 206 with it. */
  | { readonly kind: "part"; readonly range: ByteRange }
  /** A range that lies past the end of the file: 416. */
  | { readonly kind: "unsatisfiable" };

const WHOLE: RangeAsk = { kind: "whole" };
const SPEC = /^\s*(\d*)\s*-\s*(\d*)\s*$/;

/**
 * Reads a `Range` header: a single `bytes=` range (`a-b`, `a-`, `-n`) is served; several ranges
 * are served as the whole file (RFC 9110 allows ignoring Range; multipart/byteranges is rarely
 * asked for and costs a parser of its own); another unit or a malformed header is ignored too.
 * A range starting past the end is unsatisfiable; one ending past it is cut to the end.
 */
export function rangeOf(header: string | undefined, size: number): RangeAsk {
  if (header === undefined) return WHOLE;
  const eq = header.indexOf("=");
  if (eq === -1 || header.slice(0, eq).trim().toLowerCase() !== "bytes") return WHOLE;
  const specs = header.slice(eq + 1).split(",");
  if (specs.length !== 1) return WHOLE;
  const match = SPEC.exec(specs[0] as string);
  if (match === null) return WHOLE;
  const [, first = "", last = ""] = match;
  if (first === "" && last === "") return WHOLE;
  if (first === "") {
    // The last n bytes.
    const n = Number(last);
    if (n === 0) return { kind: "unsatisfiable" };
    return size === 0 ? { kind: "unsatisfiable" } : { kind: "part", range: { start: Math.max(0, size - n), end: size - 1 } };
  }
  const start = Number(first);
  const end = last === "" ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== "" && Number(last) < start) return WHOLE;
  if (start >= size) return { kind: "unsatisfiable" };
  return { kind: "part", range: { start, end } };
}
