import { BootError } from "./boot-error.js";

/** One segment of a pattern (spec 2.3): a literal, `:name` (one segment) or `*name` (the rest). */
export type Segment =
  | { readonly type: "literal"; readonly value: string }
  | { readonly type: "param"; readonly name: string }
  | { readonly type: "rest"; readonly name: string };

/**
 * A parsed path pattern. Literals are stored percent-decoded, so they compare with request
 * segments, which are decoded one by one after splitting. A trailing slash is ignored.
 */
export class PathPattern {
  private constructor(
    /** The pattern as written, normalised: leading slash, no trailing slash. */
    readonly text: string,
    readonly segments: readonly Segment[],
  ) {}

  /** Parses and validates; a malformed pattern fails boot with a message naming it. */
  static parse(written: string): PathPattern {
    if (!written.startsWith("/")) {
      throw new BootError(`Path pattern "${written}" must start with "/".`);
    }
    const trimmed = written.length > 1 && written.endsWith("/") ? written.slice(0, -1) : written;
    const parts = trimmed === "/" ? [] : trimmed.slice(1).split("/");
    const segments = parts.map((part, index) => parseSegment(written, part, index, parts.length));
    checkNamesUnique(written, segments);
    return new PathPattern(trimmed, segments);
  }

  /**
   * This pattern under `prefix`, a pattern of literal segments (`Route.under`): `/posts/:id`
   * under `/admin` is `/admin/posts/:id`, and `/` under it is `/admin`.
   */
  under(prefix: PathPattern): PathPattern {
    if (prefix.segments.length === 0) return this;
    return new PathPattern(this.segments.length === 0 ? prefix.text : prefix.text + this.text, [...prefix.segments, ...this.segments]);
  }

  /** The pattern with parameter names erased: two patterns with one shape match the same paths. */
  get shape(): string {
    return (
      "/" +
      this.segments
        // encodeURIComponent leaves "*" alone, so a literal "*" is escaped to stay apart from a catch-all.
        .map((s) => (s.type === "literal" ? encodeURIComponent(s.value).replaceAll("*", "%2A") : s.type === "param" ? ":" : "*"))
        .join("/")
    );
  }

  /** Names of the parameters, in order (the catch-all included). */
  get names(): readonly string[] {
    return this.segments.flatMap((s) => (s.type === "literal" ? [] : [s.name]));
  }

  toString(): string {
    return this.text;
  }
}

function parseSegment(pattern: string, part: string, index: number, count: number): Segment {
  if (part === "") {
    throw new BootError(`Path pattern "${pattern}" has an empty segment: remove the doubled "/".`);
  }
  if (part.startsWith(":") || part.startsWith("*")) {
    const name = part.slice(1);
    if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) || name === "__proto__") {
      throw new BootError(
        `Path pattern "${pattern}" has a parameter "${part}" whose name is not an identifier.`,
      );
    }
    if (part.startsWith("*") && index !== count - 1) {
      throw new BootError(
        `Path pattern "${pattern}" has the catch-all "${part}" before its last segment: ` +
          `a catch-all captures everything left, so it must come last.`,
      );
    }
    return part.startsWith(":") ? { type: "param", name } : { type: "rest", name };
  }
  let value: string;
  try {
    value = decodeURIComponent(part);
  } catch {
    throw new BootError(`Path pattern "${pattern}" has a malformed percent-encoding in "${part}".`);
  }
  return { type: "literal", value };
}

function checkNamesUnique(pattern: string, segments: readonly Segment[]): void {
  const seen = new Set<string>();
  for (const segment of segments) {
    if (segment.type === "literal") continue;
    if (seen.has(segment.name)) {
      throw new BootError(
        `Path pattern "${pattern}" uses the parameter name "${segment.name}" twice: rename one.`,
      );
    }
    seen.add(segment.name);
  }
}
