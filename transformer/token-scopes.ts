import type * as ts from "typescript";
import type { Checking } from "./checking.js";
import { at, Codes } from "./diagnostics.js";
import { fwTypeName } from "./fw-symbols.js";
import type { Handler } from "./handlers.js";

/**
 * Checks a route file's `guarded` when it is fw/auth's per-user token guard
 * (`auth.token({ scope: "posts:write" })`): the scope must be one string literal among the
 * app's scopes (TS91090: `TokenGuard<S, A>`'s `S` among `A`, the keys of `formSignIn`'s
 * `scopes`), and the route an API route (TS91091): a token never works on a browser page or a
 * socket, which carry a browser's cookie. True when the guard is not a token guard or passes.
 */
export function checkTokenGuard(c: Checking, source: ts.SourceFile, guarded: ts.Symbol, handler: Handler, where: string): boolean {
  const type = c.checker.getTypeOfSymbol(guarded);
  if (fwTypeName(type, "tokenGuard") !== "TokenGuard") return true;
  const node = guarded.valueDeclaration ?? source;
  const [scope, app] = c.checker.getTypeArguments(type as ts.TypeReference);
  const scopes = app === undefined ? [] : literals(c, app);
  const named = scope !== undefined && scope.isStringLiteral() ? scope.value : undefined;
  if (named === undefined || !scopes.includes(named)) {
    const wrote = scope === undefined ? "no scope" : named === undefined ? `\`${c.checker.typeToString(scope)}\`` : JSON.stringify(named);
    const known = scopes.length === 0 ? "the app declares none: give formSignIn({ …, scopes: { \"posts:write\": \"what it lets a token do\" } })" : `the app's scopes are ${scopes.map((s) => JSON.stringify(s)).join(", ")}`;
    c.findings.push({
      code: Codes.unknownScope,
      category: "error",
      file: source,
      ...at(node),
      message: `${where}: its token guard asks for the scope ${wrote}, which is not one of the app's scopes (${known}). Write one of them as a literal: auth.token({ scope: ${JSON.stringify(scopes[0] ?? "posts:write")} }), or add it to formSignIn's scopes.`,
    });
    return false;
  }
  if (handler.case === "http" && handler.api) return true;
  c.findings.push({
    code: Codes.tokenOnBrowserRoute,
    category: "error",
    file: source,
    ...at(node),
    message:
      `${where} is a ${handler.case === "ws" ? "WebSocket" : "browser"} route guarded by a per-user token (scope ${JSON.stringify(named)}), but a token never works there: a browser sends its session cookie, never a token, and tokens and cookies stay apart. ` +
      "Guard it with auth.guarded(), or make it an API route (its handler takes ApiRequest).",
  });
  return false;
}

/** The string literals a type is made of (`"a" | "b"` → ["a", "b"]); none for `never` or `string`. */
function literals(c: Checking, type: ts.Type): string[] {
  const members = type.isUnion() ? type.types : [type];
  return members.flatMap((member) => (member.isStringLiteral() ? [member.value] : []));
}
