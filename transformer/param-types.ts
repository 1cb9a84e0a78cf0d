import type * as ts from "typescript";
import { fail, spot, type Checking, type Site } from "./checking.js";
import { Codes } from "./diagnostics.js";
import { acceptedType, type Accepted } from "./path-value-type.js";

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

/** A path parameter the handler reads, whether it needs a typia decoder (non-string), and what the path builder takes for it. */
export interface ParamUse extends Accepted {
  readonly name: string;
  readonly type: string;
  readonly decode: boolean;
}

/** The params type `P` of `Request<P>`: each property must name a path parameter. */
export function paramUses(c: Checking, site: Site, params: ts.Type | undefined): ParamUse[] | undefined {
  if (params === undefined || params.getStringIndexType() !== undefined) return []; // the default: raw strings
  const uses: ParamUse[] = [];
  for (const property of params.getProperties()) {
    const name = property.getName();
    if (!site.pattern.includes(name)) {
      const known = site.pattern.length === 0 ? "it has none" : `it has ${site.pattern.map((p) => `\`${p}\``).join(", ")}`;
      fail(c, site, Codes.paramNotInPath, `\`${site.name}\` reads the path parameter \`${name}\`, but its path has no such parameter (${known}). Rename the folder to \`_${name}\` or fix the params type.`);
      return undefined;
    }
    const type = c.checker.getTypeOfSymbol(property);
    const why = undecodable(c.ts, type);
    if (why !== undefined) {
      const written = c.checker.typeToString(type);
      const declared = property.valueDeclaration;
      const where = declared !== undefined && declared.getSourceFile() === site.source ? declared : site.declaration;
      c.findings.push({
        code: Codes.paramNotDecodable,
        category: "error",
        file: site.source,
        ...spot(where),
        message:
          `${site.where}: \`${site.name}\` reads the path parameter \`${name}\` as \`${written}\`, which fw cannot decode from a path segment: ${why}.`,
      });
      return undefined;
    }
    const decode = (type.flags & c.ts.TypeFlags.String) === 0;
    uses.push({ name, type: c.checker.typeToString(type), decode, ...acceptedType(c.ts, c.checker, type) });
  }
  return uses;
}
