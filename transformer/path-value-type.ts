import type * as ts from "typescript";

/** The values the typed path builder takes for a parameter, and the model an `Id<M>` names. */
export interface Accepted {
  /** A type text that stands on its own in src/.fw/paths.ts: `number`, `"news" | "howto"`, `Id<…>`. */
  readonly accepts: string;
  /** For `Id<M>` of an exported model type: where M is declared, so paths.ts writes `Id<import("…").M>`. */
  readonly idOf?: { readonly file: string; readonly name: string };
}

const FW_ID = /[\\/]runtime[\\/]resource[\\/]types\.(d\.)?ts$/;

/**
 * What the path builder (src/.fw/paths.ts) takes for a path parameter the handler decodes as
 * `type` (already checked decodable, param-types.ts). The generated file cannot name the
 * handler's own types without importing its module (and a page building a link to itself
 * would then make a circle of types), so it writes what stands on its own: `Id<M>` of an
 * exported model type (kept, so a comment's key is no post's), a union of literals as written,
 * else the primitive the decoder reads (`number` for `number & tags.Type<"uint32">`).
 */
export function acceptedType(tsApi: typeof ts, checker: ts.TypeChecker, type: ts.Type): Accepted {
  const id = idTarget(tsApi, checker, type);
  if (id !== undefined) return { accepts: "Id", idOf: id };
  const F = tsApi.TypeFlags;
  const members = type.isUnion() ? type.types : [type];
  const literal = F.StringLiteral | F.NumberLiteral | F.BigIntLiteral | F.BooleanLiteral;
  if (members.every((m) => (m.flags & literal) !== 0 && (m.flags & F.EnumLiteral) === 0)) return { accepts: checker.typeToString(type) };
  const primitive = primitiveOf(tsApi, type);
  // A segment read as text takes any value's text (`String(value)`): a number key for a `string` parameter is fine.
  return { accepts: primitive === "string" && (type.flags & F.String) !== 0 ? "PathValue" : primitive };
}

function primitiveOf(tsApi: typeof ts, type: ts.Type): string {
  const F = tsApi.TypeFlags;
  const members = type.isUnion() ? type.types : type.isIntersection() ? type.types.filter((t) => (t.flags & F.Object) === 0) : [type];
  const flags = members.reduce((all, m) => all | m.flags, 0);
  if ((flags & F.NumberLike) !== 0) return "number";
  if ((flags & F.BigIntLike) !== 0) return "bigint";
  if ((flags & F.BooleanLike) !== 0) return "boolean";
  return "string";
}

/** `M` of fw's `Id<M>`, when M is an interface, class or type alias exported from one of the app's files. */
function idTarget(tsApi: typeof ts, checker: ts.TypeChecker, type: ts.Type): Accepted["idOf"] {
  const alias = type.aliasSymbol;
  if (alias === undefined || alias.getName() !== "Id" || !(alias.getDeclarations() ?? []).some((d) => FW_ID.test(d.getSourceFile().fileName))) return undefined;
  const target = type.aliasTypeArguments?.[0];
  const symbol = target?.aliasSymbol ?? target?.getSymbol();
  const declaration = symbol?.getDeclarations()?.[0];
  if (symbol === undefined || declaration === undefined) return undefined;
  const file = declaration.getSourceFile();
  if (file.isDeclarationFile || file.fileName.includes("/node_modules/") || declaration.parent !== file) return undefined;
  const module = checker.getSymbolAtLocation(file);
  const exported = module === undefined ? [] : checker.getExportsOfModule(module);
  const name = symbol.getName();
  const found = exported.find((s) => s.getName() === name && (s === symbol || ((s.flags & tsApi.SymbolFlags.Alias) !== 0 && checker.getAliasedSymbol(s) === symbol)));
  return found === undefined ? undefined : { file: file.fileName, name };
}
