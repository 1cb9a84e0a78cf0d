import type * as ts from "typescript";
import { fwTypeName } from "./fw-symbols.js";

/** What fw's request types are called, so a look-alike from another module is told apart. */
const REQUEST_NAMES = new Set(["Request", "ApiRequest", "JsonRequest"]);

/**
 * Why a handler's first parameter is no request fw hands over, as the rest of TS91003's
 * sentence. A type that merely shares the name of fw's (the Fetch API's global `Request`, used
 * without an import; another library's) is said to be someone else's, with where it is
 * declared and the import to write: "is `Request`; a handler takes `Request`" told nobody why.
 */
export function notARequest(checker: ts.TypeChecker, shown: (file: string) => string, first: ts.Type | undefined): string {
  const takes = "a handler takes `Request` (a browser page) or `ApiRequest` (an API route) from fw.";
  if (first === undefined) return `is nothing; ${takes}`;
  const symbol = first.aliasSymbol ?? first.getSymbol();
  const name = symbol?.getName();
  if (symbol === undefined || name === undefined || !REQUEST_NAMES.has(name)) return `is \`${checker.typeToString(first)}\`; ${takes}`;
  const file = symbol.getDeclarations()?.[0]?.getSourceFile();
  const where = file === undefined ? "" : `: it is declared in ${shownFile(shown, file.fileName)}`;
  const global = name === "Request" && file !== undefined && file.isDeclarationFile && /[\\/]node_modules[\\/](undici-types|@types[\\/]node|typescript[\\/]lib)[\\/]/.test(file.fileName);
  const why = global ? " (without an import, `Request` names the Fetch API's global)" : "";
  const suggestion =
    name === "Request"
      ? '`import type { Request } from "fw"` (a browser page), or `ApiRequest` (an API route)'
      : '`import type { ApiRequest } from "fw"` (an API route), or `Request` (a browser page)';
  return `is a \`${name}\` that is not fw's${where}${why}. Import fw's: ${suggestion}.`;
}

/** A declaration file as a message names it: from its package on when under node_modules, else as the app's files are. */
function shownFile(shown: (file: string) => string, fileName: string): string {
  const marker = fileName.lastIndexOf("node_modules/");
  return marker === -1 ? shown(fileName) : fileName.slice(marker + "node_modules/".length);
}

/** A failure of fw's among what a handler returns (`return new NotFound()`, the return type inferred), for TS91002's advice. */
export function returnedFailure(checker: ts.TypeChecker, signature: ts.Signature): string | undefined {
  const awaited = checker.getAwaitedType(signature.getReturnType()) ?? signature.getReturnType();
  const parts = awaited.isUnion() ? awaited.types : [awaited];
  return parts.map((part) => fwTypeName(part, "failure")).find((name) => name !== undefined);
}
