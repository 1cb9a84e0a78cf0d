import type * as ts from "typescript";

/**
 * Recognises fw's own declarations in the checker's view, whether the app compiles against
 * fw's sources (this repository) or its published `.d.ts` files: by name and declaring module.
 */
const MODULES = {
  request: /[\\/]runtime[\\/]http[\\/]request\.(d\.)?ts$/,
  response: /[\\/]runtime[\\/]http[\\/]response\.(d\.)?ts$/,
  json: /[\\/]runtime[\\/]http[\\/]json\.(d\.)?ts$/,
  failure: /[\\/]runtime[\\/]http[\\/]failure\.(d\.)?ts$/,
  derives: /[\\/]runtime[\\/]resource[\\/]derives\.(d\.)?ts$/,
  store: /[\\/]runtime[\\/]resource[\\/]store\.(d\.)?ts$/,
  scopedStore: /[\\/]runtime[\\/]resource[\\/]scoped-store\.(d\.)?ts$/,
  listener: /[\\/]runtime[\\/]ws[\\/]listener\.(d\.)?ts$/,
  live: /[\\/]runtime[\\/]live[\\/]page\.(d\.)?ts$/,
  // What the path and topic checks read (path-sites.ts).
  route: /[\\/]runtime[\\/]routing[\\/]route\.(d\.)?ts$/,
  topics: /[\\/]runtime[\\/]live[\\/]topics\.(d\.)?ts$/,
  room: /[\\/]runtime[\\/]ws[\\/]room\.(d\.)?ts$/,
  form: /[\\/]runtime[\\/]resource[\\/]form\.(d\.ts|tsx)$/,
  formSignIn: /[\\/]runtime[\\/]auth[\\/]form-sign-in\.(d\.)?ts$/,
  tokenGuard: /[\\/]runtime[\\/]auth[\\/]api-tokens\.(d\.)?ts$/,
  testingClient: /[\\/]runtime[\\/]testing[\\/]client\.(d\.)?ts$/,
} as const;

export type FwModule = keyof typeof MODULES;

/** True when `symbol` (after aliases) is the declaration `name` of fw's module `module`. */
export function isFwSymbol(checker: ts.TypeChecker, symbol: ts.Symbol | undefined, module: FwModule, name: string, tsApi: typeof ts): boolean {
  if (symbol === undefined) return false;
  const target = symbol.flags & tsApi.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  if (target.getName() !== name) return false;
  return (target.getDeclarations() ?? []).some((d) => MODULES[module].test(d.getSourceFile().fileName));
}

/** The fw class a type is an instance of (`Request`, `ApiRequest`, …), or undefined. */
export function fwTypeName(type: ts.Type, module: FwModule): string | undefined {
  const symbol = type.aliasSymbol ?? type.getSymbol();
  if (symbol === undefined) return undefined;
  const fromFw = (symbol.getDeclarations() ?? []).some((d) => MODULES[module].test(d.getSourceFile().fileName));
  return fromFw ? symbol.getName() : undefined;
}
