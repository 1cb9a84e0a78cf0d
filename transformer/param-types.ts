import type * as ts from "typescript";

const READ_AS =
  'A segment is read as one string, number, bigint or boolean (a union of literals of one of them, or one with typia tags such as `number & tags.Type<"uint32">` or `Id<Post>`, is fine): ' +
  "type it so, or take it as a string and convert it in the handler";

/** The one primitive a path parameter's decoder reads a segment as. */
type Atomic = "string" | "number" | "bigint" | "boolean";

/**
 * Why a path parameter's type has no decoder, or undefined when it has one. typia's
 * `http.createParameter` (what the generated table calls) reads one segment as one primitive:
 * string, number, bigint or boolean, a literal union of one of them, or one carrying typia
 * tags (`number & tags.Type<"uint32">`, `Id<Post>`). Anything else would fail inside the
 * generated module with typia's own error; here it is found first, on the handler.
 */
export function undecodable(tsApi: typeof ts, type: ts.Type): string | undefined {
  const F = tsApi.TypeFlags;
  if ((type.flags & (F.Any | F.Unknown)) !== 0) return `it says nothing a segment could be checked against. ${READ_AS}`;
  // `boolean` and enums are unions too: their members are literals of one primitive.
  const members = type.isUnion() ? type.types : [type];
  if (members.some((m) => (m.flags & (F.Undefined | F.Void)) !== 0)) return "a path parameter is always present: drop the `?` (or the `| undefined`)";
  if (members.some((m) => (m.flags & F.Null) !== 0)) return "a path parameter is never null: drop the `| null`";
  const kinds = new Set(members.map((m) => atomicOf(tsApi, m)));
  if (kinds.has(undefined)) return `it is not a primitive. ${READ_AS}`;
  if (kinds.size > 1) return `it mixes ${[...kinds].join(" and ")}. ${READ_AS}`;
  return undefined;
}

function atomicOf(tsApi: typeof ts, type: ts.Type): Atomic | undefined {
  const F = tsApi.TypeFlags;
  if ((type.flags & F.StringLike) !== 0) return "string";
  if ((type.flags & F.NumberLike) !== 0) return "number";
  if ((type.flags & F.BigIntLike) !== 0) return "bigint";
  if ((type.flags & F.BooleanLike) !== 0) return "boolean";
  if (type.isIntersection()) {
    // typia's tags are object types intersected with one primitive: `number & tags.Minimum<1>`.
    const primitives = type.types.filter((t) => (t.flags & F.Object) === 0);
    return primitives.length === 1 ? atomicOf(tsApi, primitives[0] as ts.Type) : undefined;
  }
  return undefined;
}
