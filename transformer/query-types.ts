import type * as ts from "typescript";
import { spot, type Checking, type Site } from "./checking.js";
import { Codes } from "./diagnostics.js";

/** How one declared query parameter is read from its text (runtime/http/query-params.ts `QueryParamShape`). */
export interface QueryParamShape {
  readonly kind: "string" | "number" | "boolean" | "date";
  readonly list: boolean;
}

const TAKES =
  "A query parameter is read from text as a string, number, boolean or Date (YYYY-MM-DD), a union of literals of one of them, one with typia tags " +
  '(`number & tags.Type<"uint32">`, `Id<Post>`), or an array of them (`?tag=1&tag=2`)';

/**
 * The query parameters a handler declares (`Request<Params, Q>`, `ApiRequest<Params, Body, Q>`):
 * each property's shape, or null when it declares none (the default `QueryText`: every field as
 * text). A property no query text can hold is a finding (TS91110) naming the handler, the
 * parameter, its type and what a parameter may be; the result is then undefined.
 */
export function queryShape(c: Checking, site: Site, query: ts.Type | undefined): Readonly<Record<string, QueryParamShape>> | null | undefined {
  if (query === undefined || query.getStringIndexType() !== undefined) return null;
  const written = c.checker.typeToString(query);
  if ((query.flags & c.ts.TypeFlags.Object) === 0 || query.getCallSignatures().length > 0 || c.checker.isArrayType(query)) {
    report(c, site, undefined, `\`${site.name}\` declares its query parameters as \`${written}\`, which is not an object of parameters: write one property per parameter, \`{ page?: number; q?: string }\`.`);
    return undefined;
  }
  const shape: Record<string, QueryParamShape> = {};
  let ok = true;
  for (const property of query.getProperties()) {
    const type = c.checker.getNonNullableType(c.checker.getTypeOfSymbol(property));
    const declared = c.checker.getTypeOfSymbol(property);
    const read = paramShape(c, type, declared);
    if (typeof read === "string") {
      ok = false;
      const node = property.valueDeclaration;
      report(c, site, node !== undefined && node.getSourceFile() === site.source ? node : undefined, `\`${site.name}\` reads the query parameter \`${property.getName()}\` as \`${c.checker.typeToString(declared)}\`, which fw cannot read from a query's text: ${read}. ${TAKES}.`);
      continue;
    }
    shape[property.getName()] = read;
  }
  return ok ? shape : undefined;
}

/** A property's shape, or why it has none. */
function paramShape(c: Checking, type: ts.Type, declared: ts.Type): QueryParamShape | string {
  const members = declared.isUnion() ? declared.types : [declared];
  if (members.some((m) => (m.flags & c.ts.TypeFlags.Null) !== 0)) return "a parameter is left out rather than null: drop the `| null` (make it optional)";
  if (c.checker.isArrayType(type)) {
    const element = c.checker.getTypeArguments(type as ts.TypeReference)[0];
    const kind = element === undefined ? undefined : kindOf(c, element);
    return kind === undefined ? "its items are not one primitive" : { kind, list: true };
  }
  const kind = kindOf(c, type);
  return kind === undefined ? "it is not one primitive" : { kind, list: false };
}

/** The one kind a type's text is read as: every member of a union of one primitive kind. */
function kindOf(c: Checking, type: ts.Type): QueryParamShape["kind"] | undefined {
  const members = type.isUnion() && (type.flags & c.ts.TypeFlags.Boolean) === 0 ? type.types : [type];
  const kinds = new Set(members.map((m) => atomOf(c, m)));
  return kinds.size === 1 ? [...kinds][0] : undefined;
}

function atomOf(c: Checking, type: ts.Type): QueryParamShape["kind"] | undefined {
  const F = c.ts.TypeFlags;
  if ((type.flags & F.StringLike) !== 0) return "string";
  if ((type.flags & F.NumberLike) !== 0) return "number";
  if ((type.flags & F.BooleanLike) !== 0) return "boolean";
  if (type.getSymbol()?.getName() === "Date") return "date";
  if (type.isIntersection()) {
    // typia's tags are object types intersected with one primitive: `number & tags.Minimum<1>`; fw's Id too.
    const primitives = type.types.filter((t) => (t.flags & F.Object) === 0);
    return primitives.length === 1 ? atomOf(c, primitives[0] as ts.Type) : undefined;
  }
  return undefined;
}

function report(c: Checking, site: Site, node: ts.Node | undefined, message: string): void {
  c.findings.push({ code: Codes.queryNotDecodable, category: "error", file: site.source, ...spot(node ?? site.declaration), message: `${site.where}: ${message}` });
}
