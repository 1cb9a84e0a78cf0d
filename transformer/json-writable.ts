import type * as ts from "typescript";

/**
 * Places in a type that JSON cannot carry (issue 31): `$.count: bigint`, `$.seen: Map<string,
 * number>`. typia refuses to write or describe them, and would say so in the generated modules
 * (`.fw/routes.ts`, `.fw/api.ts`), far from the handler; the build reports them at the handler
 * instead (TS91060). Functions are not listed (JSON leaves them out, as typia does); a type with
 * `toJSON` is read as what its `toJSON` returns (a `Date` is its text). At most `limit` places.
 */
export function notJsonPlaces(tsApi: typeof ts, checker: ts.TypeChecker, type: ts.Type, limit = 5): string[] {
  const found: string[] = [];
  const seen = new Set<ts.Type>();
  const visit = (t: ts.Type, path: string, depth: number): void => {
    if (found.length >= limit || depth > 24) return;
    if ((t.flags & (tsApi.TypeFlags.BigInt | tsApi.TypeFlags.BigIntLiteral)) !== 0) {
      found.push(`${path}: bigint`);
      return;
    }
    if ((t.flags & (tsApi.TypeFlags.ESSymbol | tsApi.TypeFlags.UniqueESSymbol)) !== 0) {
      found.push(`${path}: symbol`);
      return;
    }
    if (t.isUnion() || t.isIntersection()) {
      for (const member of t.types) visit(member, path, depth + 1);
      return;
    }
    if ((t.flags & tsApi.TypeFlags.Object) === 0 || seen.has(t)) return;
    seen.add(t);
    if (isLibCollection(t)) {
      found.push(`${path}: ${checker.typeToString(t)}`);
      return;
    }
    const toJson = t.getProperty("toJSON");
    if (toJson !== undefined) {
      const [signature] = checker.getSignaturesOfType(checker.getTypeOfSymbol(toJson), tsApi.SignatureKind.Call);
      if (signature !== undefined) visit(signature.getReturnType(), path, depth + 1);
      return;
    }
    if (checker.isArrayType(t) || checker.isTupleType(t)) {
      for (const element of checker.getTypeArguments(t as ts.TypeReference)) visit(element, `${path}[]`, depth + 1);
      return;
    }
    if (checker.getSignaturesOfType(t, tsApi.SignatureKind.Call).length > 0) return;
    for (const property of checker.getPropertiesOfType(t)) {
      // typia's tags (`string & tags.MaxLength<100>`) carry their data in members named "typia.…".
      if (property.name.startsWith("typia.")) continue;
      visit(checker.getTypeOfSymbol(property), `${path}.${property.name}`, depth + 1);
    }
    for (const index of checker.getIndexInfosOfType(t)) visit(index.type, `${path}[…]`, depth + 1);
  };
  visit(type, "$", 0);
  return found;
}

/** Collections JSON has no form for: `Map`, `Set` and their weak and read-only kinds, as the default library declares them. */
const COLLECTIONS: ReadonlySet<string> = new Set(["Map", "Set", "WeakMap", "WeakSet", "ReadonlyMap", "ReadonlySet"]);

function isLibCollection(type: ts.Type): boolean {
  const symbol = type.aliasSymbol ?? type.getSymbol();
  if (symbol === undefined || !COLLECTIONS.has(symbol.getName())) return false;
  return (symbol.getDeclarations() ?? []).some((declaration) => declaration.getSourceFile().hasNoDefaultLib);
}
