import { BadRequest } from "../http/failure.js";
import { isNumberText, readWholeNumber } from "../http/number-text.js";

/**
 * Converts one decoded path segment to the type a handler asked for (spec 2.3). `read` answers
 * `undefined` when the text does not convert; dispatch then answers 400 (BadRequest).
 * The transformer derives these through typia for the types handlers declare.
 */
export interface FromPath<A> {
  /** The type, as people read it: used in the 400 detail. */
  readonly type: string;
  read(segment: string): { readonly value: A } | undefined;
}

/** Decoders for each parameter of a pattern, by name. */
export type ParamDecoders = Readonly<Record<string, FromPath<unknown>>>;

/**
 * The decoders a hand-built route gives its path parameters (`Route.get("/items/:id", show, { params: { id: FromPath.int } })`);
 * a segment that does not decode answers 400. A generated table derives them from the handler's `Request<{ id: number }>`.
 */
export const FromPath = {
  /** The segment as it is (percent-decoded). */
  string: { type: "string", read: (segment: string) => ({ value: segment }) } satisfies FromPath<string>,

  /** A safe integer written in plain decimal (no sign "+", no leading zeros, no exponent: http/number-text.ts). */
  int: {
    type: "integer",
    read: (segment: string) => {
      const value = readWholeNumber(segment, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
      return value === undefined ? undefined : { value };
    },
  } satisfies FromPath<number>,

  /**
   * A decoder from a parse function that throws on bad input (typia's
   * `http.createParameter<T>()`, which the generated table uses for the types handlers declare).
   * typia reads a number with `Number()`, which takes `0x1`, `1e0`, `01`, `+1` and ` 1` for 1: a
   * number (or bigint) is kept only when the segment is its one spelling (`String(value)`), so
   * `/posts/01` is a 400, as `FromPath.int` answers.
   */
  typia<A>(type: string, parse: (segment: string) => A): FromPath<A> {
    return {
      type,
      read: (segment) => {
        try {
          const value = parse(segment);
          return (typeof value === "number" || typeof value === "bigint") && !isNumberText(segment, value) ? undefined : { value };
        } catch {
          return undefined;
        }
      },
    };
  },

  /** One of a fixed set of strings. */
  oneOf<const T extends string>(...values: readonly T[]): FromPath<T> {
    const allowed: ReadonlySet<string> = new Set(values);
    return {
      type: values.map((v) => JSON.stringify(v)).join(" | "),
      read: (segment) => (allowed.has(segment) ? { value: segment as T } : undefined),
    };
  },
} as const;

/** Applies each decoder to its raw parameter; the first failure is a 400 naming it. */
export function decodeParams(
  raw: Readonly<Record<string, string>>,
  decoders: ParamDecoders | undefined,
): Readonly<Record<string, unknown>> {
  if (decoders === undefined) return raw;
  const out: Record<string, unknown> = { ...raw };
  for (const name of Object.keys(decoders)) {
    const decoder = decoders[name];
    const segment = raw[name];
    if (decoder === undefined || segment === undefined) continue;
    const result = decoder.read(segment);
    if (result === undefined) {
      throw new BadRequest(`The path parameter "${name}" is not a valid ${decoder.type}.`);
    }
    out[name] = result.value;
  }
  return out;
}
