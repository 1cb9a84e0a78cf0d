/**
 * Paths as an app writes them (a literal, a template literal, a `+` chain starting with a
 * literal) and the route patterns that may answer them: the matching behind the build's path
 * checks (TS91050). Pure functions of text: no compiler here.
 */

/** A piece of a written path: literal text, or a substitution (`${id}`, `+ id +`) shown as written. */
export type Piece = { readonly text: string } | { readonly hole: string };

/** One segment of a written path: its pieces (a segment may mix text and substitutions, `post-${id}`). */
export type WrittenSegment = readonly Piece[];

/** One segment of a route pattern. */
type PatternSegment = { readonly literal: string } | { readonly param: string } | { readonly rest: string };

/**
 * The path part of a written path, split into segments: the query and fragment are cut off,
 * a trailing slash is ignored (as the matcher ignores it). Undefined when it is not a path
 * of the app: it does not start with one `/` (an external or protocol-relative URL, a relative
 * path, a `#fragment`), or it has an empty segment (`//`, which fw answers 400).
 */
export function writtenSegments(pieces: readonly Piece[]): WrittenSegment[] | undefined {
  const first = pieces[0];
  if (first === undefined || !("text" in first) || !first.text.startsWith("/") || first.text.startsWith("//")) return undefined;
  const segments: Piece[][] = [[]];
  for (const piece of pieces) {
    if ("hole" in piece) {
      (segments[segments.length - 1] as Piece[]).push(piece);
      continue;
    }
    const end = piece.text.search(/[?#]/);
    const text = end === -1 ? piece.text : piece.text.slice(0, end);
    const parts = text.split("/");
    parts.forEach((part, i) => {
      if (i > 0) segments.push([]);
      if (part !== "") (segments[segments.length - 1] as Piece[]).push({ text: part });
    });
    if (end !== -1) break;
  }
  // The leading "/" opened an empty first segment; a trailing "/" leaves an empty last one.
  segments.shift();
  if (segments.length > 0 && (segments[segments.length - 1] as Piece[]).length === 0) segments.pop();
  if (segments.some((segment) => segment.length === 0)) return undefined;
  return segments;
}

/** The written path as messages show it: `/posts/${post.id}/edti`. */
export function shownPath(pieces: readonly Piece[]): string {
  const text = pieces.map((piece) => ("text" in piece ? piece.text : `\${${piece.hole}}`)).join("");
  const end = text.search(/[?#]/);
  return end === -1 ? text : text.slice(0, end);
}

/** Whether a written path has no substitution (its segments are all text). */
export function isLiteral(segments: readonly WrittenSegment[]): boolean {
  return segments.every((segment) => segment.every((piece) => "text" in piece));
}

/** The literal segments of a written path before its first substitution, decoded. */
export function literalHead(segments: readonly WrittenSegment[]): string[] {
  const head: string[] = [];
  for (const segment of segments) {
    if (segment.length !== 1 || !("text" in (segment[0] as Piece))) break;
    head.push(decoded((segment[0] as { text: string }).text));
  }
  return head;
}

const parsedPatterns = new Map<string, readonly PatternSegment[]>();

function patternSegments(pattern: string): readonly PatternSegment[] {
  let segments = parsedPatterns.get(pattern);
  if (segments === undefined) {
    const trimmed = pattern.length > 1 && pattern.endsWith("/") ? pattern.slice(0, -1) : pattern;
    segments = (trimmed === "/" ? [] : trimmed.slice(1).split("/")).map((part): PatternSegment => {
      if (part.startsWith(":")) return { param: part.slice(1) };
      if (part.startsWith("*")) return { rest: part.slice(1) };
      return { literal: decoded(part) };
    });
    parsedPatterns.set(pattern, segments);
  }
  return segments;
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Whether the pattern may answer the written path: segment by segment, a literal equals the
 * written text (both decoded), a `:name` takes any segment, a `*rest` everything left. A
 * substitution stands for any text: a segment holding one matches a literal its text around
 * it allows, and a segment that is a substitution alone may also stand for several segments
 * (`/docs/${slug}` where `slug` is "guides/live"), so the check never refuses a path the
 * values could make.
 */
export function patternMatches(pattern: string, written: readonly WrittenSegment[]): boolean {
  return matchFrom(patternSegments(pattern), 0, written, 0);
}

function matchFrom(pattern: readonly PatternSegment[], p: number, written: readonly WrittenSegment[], w: number): boolean {
  if (p === pattern.length) return w === written.length;
  const segment = pattern[p] as PatternSegment;
  if ("rest" in segment) return true;
  if (w === written.length) return false;
  const here = written[w] as WrittenSegment;
  if (!segmentMatches(segment, here)) return false;
  if (matchFrom(pattern, p + 1, written, w + 1)) return true;
  // A lone substitution may hold slashes: let it take the next pattern segments too.
  if (here.length === 1 && "hole" in (here[0] as Piece)) {
    for (let q = p + 1; q < pattern.length && !("rest" in (pattern[q] as PatternSegment)); q++) {
      if (matchFrom(pattern, q + 1, written, w + 1)) return true;
    }
  }
  return false;
}

function segmentMatches(segment: PatternSegment, written: WrittenSegment): boolean {
  if ("param" in segment) return true;
  if (!("literal" in segment)) return true;
  if (written.every((piece) => "text" in piece)) return decoded(written.map((piece) => (piece as { text: string }).text).join("")) === segment.literal;
  const source = written.map((piece) => ("text" in piece ? escapeRegExp(decoded(piece.text)) : "[^]*")).join("");
  return new RegExp(`^${source}$`).test(segment.literal);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * How far a pattern is from a written path, for "nearest routes": an edit distance over
 * segments. A written segment against a literal costs the letters to change; against a
 * parameter nothing when it looks like a value (a substitution, something with a digit), one
 * when it looks like a word (`edti` is more likely a mistyped `edit` than an id); a segment
 * added or left out costs its length and two.
 */
export function distance(pattern: string, written: readonly WrittenSegment[]): number {
  const target = patternSegments(pattern);
  const texts = written.map((segment) => segment.map((piece) => ("text" in piece ? decoded(piece.text) : "*")).join(""));
  const valueLike = written.map((segment) => segment.some((piece) => "hole" in piece || /[0-9]/.test(piece.text)));
  const weight = (s: PatternSegment): number => ("literal" in s ? s.literal.length + 2 : 2);
  // d[i][j]: the cost of the first i written segments against the first j pattern segments.
  const d: number[][] = [];
  for (let i = 0; i <= texts.length; i++) {
    const row: number[] = [];
    for (let j = 0; j <= target.length; j++) {
      if (i === 0 && j === 0) row.push(0);
      else if (i === 0) row.push((row[j - 1] as number) + weight(target[j - 1] as PatternSegment));
      else {
        const text = texts[i - 1] as string;
        const above = d[i - 1] as number[];
        const dropped = (above[j] as number) + text.length + 2;
        if (j === 0) {
          row.push(dropped);
          continue;
        }
        const s = target[j - 1] as PatternSegment;
        const change = "literal" in s ? letters(text, s.literal) : valueLike[i - 1] === true ? 0 : 1;
        row.push(Math.min((above[j - 1] as number) + change, dropped, (row[j - 1] as number) + weight(s)));
      }
    }
    d.push(row);
  }
  return (d[texts.length] as number[])[target.length] as number;
}

/** Levenshtein distance between two short texts. */
function letters(a: string, b: string): number {
  if (a === b) return 0;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] as number;
}
