import type * as ts from "typescript";
import { capabilityUses, type CapabilityUse } from "./capability-parameter.js";
import { fail, spot, type Checking, type SignatureSite } from "./checking.js";
import { Codes } from "./diagnostics.js";
import { fwTypeName } from "./fw-symbols.js";
import { notARequest, returnedFailure } from "./handler-advice.js";
import { checkBodyReads, declaredBody } from "./json-body.js";
import { answerTypes, isTypedAnswer, jsonAnswers, thrownStatuses, type JsonAnswers } from "./json-answer.js";
import { notJsonPlaces } from "./json-writable.js";
import { analyseLivePage, type LiveHandler } from "./live-page.js";
import { paramUses, type ParamUse } from "./param-types.js";
import { queryShape, type QueryParamShape } from "./query-types.js";
import { checkJsonHoldsNoFile, uploadShape, type UploadShape } from "./upload-body.js";
import { listenerProblem, listenerShape, meantAsListener } from "./ws-listener.js";
import type { RouteFile } from "./scan.js";

export type Handler =
  | {
      readonly case: "http";
      readonly api: boolean;
      readonly params: readonly ParamUse[];
      readonly capabilities: readonly CapabilityUse[];
      /** An API handler declares a JSON body (`ApiRequest<P, B>`): the row gets typia's validator of `B`. */
      readonly json?: true;
      /** An API handler's body names a model's file field (issue 40): a multipart form, its files stored for those fields. */
      readonly upload?: UploadShape;
      /** The typed answers its return type names (`Json(value)`): the row gets typia's typed stringify. */
      readonly answers?: JsonAnswers;
      /** The handler's doc comment (an API route's OpenAPI description). */
      readonly doc?: string;
      /** Statuses of fw's failures its body throws (`throw new NotFound(…)`), for the OpenAPI document. */
      readonly thrown?: readonly number[];
      /** The query parameters it declares (`Request<P, Q>`): each one's shape, for the route's decoder. */
      readonly query?: Readonly<Record<string, QueryParamShape>>;
    }
  | { readonly case: "ws" }
  | LiveHandler<CapabilityUse>;

/** A handler as the generated module prints it, and as a remembered row keeps it (row-cache.ts). */
export type PrintedHandler =
  | {
      readonly case: "http";
      readonly api: boolean;
      readonly params: readonly ParamUse[];
      readonly capabilities: readonly Omit<CapabilityUse, "required">[];
      readonly json?: true;
      readonly upload?: UploadShape;
      readonly answers?: JsonAnswers;
      readonly doc?: string;
      readonly thrown?: readonly number[];
      readonly query?: Readonly<Record<string, QueryParamShape>>;
    }
  | { readonly case: "ws" }
  | LiveHandler<Omit<CapabilityUse, "required">>;

/** The export a route file must have, with its symbol resolved through `export { x as y }`. */
export function routeExport(c: Checking, source: ts.SourceFile, name: string): ts.Symbol | undefined {
  const module = c.checker.getSymbolAtLocation(source);
  if (module === undefined) return undefined;
  const symbol = c.checker.getExportsOfModule(module).find((s) => s.getName() === name);
  if (symbol === undefined) return undefined;
  return symbol.flags & c.ts.SymbolFlags.Alias ? c.checker.getAliasedSymbol(symbol) : symbol;
}

/**
 * Reads a route file's handler with the type checker: its kind (browser, API, WebSocket), the
 * path parameters it decodes, and the capabilities it asks for. Mistakes become findings that
 * name the file, the export and what to write; the result is then undefined.
 */
export function analyseHandler(c: Checking, route: RouteFile, source: ts.SourceFile, pattern: readonly string[]): Handler | undefined {
  const name = route.role.exportName;
  const where = `${c.shown(route.file)} mounts ${route.role.method} ${route.pattern}`;
  const symbol = routeExport(c, source, name);
  if (symbol === undefined) {
    c.findings.push({ code: Codes.missingExport, category: "error", file: source, message: `${where} but exports no \`${name}\`. Write: ${exampleFor(name)}` });
    return undefined;
  }
  const declaration = symbol.valueDeclaration ?? symbol.getDeclarations()?.[0];
  const node = declaration ?? source;
  const type = c.checker.getTypeOfSymbolAtLocation(symbol, node);
  if (fwTypeName(type, "live") === "LivePage") return analyseLivePage(c, { route, source, declaration, type, pattern, where });
  const signatures = type.getCallSignatures();
  if (route.role.method === "GET" && meantAsListener(type)) {
    const problem = listenerProblem(c, type, node);
    if (problem === undefined) return { case: "ws" };
    const message = `${c.shown(route.file)} mounts WS ${route.pattern}, but \`${name}\` is not a WebSocket listener: ${problem}. ${listenerShape(name)}`;
    c.findings.push({ code: Codes.wsListenerShape, category: "error", file: source, ...spot(declaration), message });
    return undefined;
  }
  if (signatures.length !== 1) {
    const what = signatures.length === 0 ? "is not a function" : "has several call signatures (overloads)";
    const socket = route.role.method === "GET" && signatures.length === 0 ? " (A WebSocket route exports an object with `message(connection, text)` instead.)" : "";
    c.findings.push({ code: Codes.notAHandler, category: "error", file: source, ...spot(declaration), message: `${where}, but \`${name}\` ${what}. A handler is one function: ${exampleFor(name)}${socket}` });
    return undefined;
  }
  return analyseSignature(c, { where, name, source, declaration, signature: signatures[0] as ts.Signature, pattern });
}

function analyseSignature(c: Checking, site: SignatureSite): Handler | undefined {
  const parameters = site.signature.getParameters();
  if (parameters.length > 2) {
    fail(c, site, Codes.notAHandler, `\`${site.name}\` takes ${parameters.length} parameters; a handler takes the request and, optionally, one object of capabilities.`);
    return undefined;
  }
  if (!returnsResponse(c, site.signature)) {
    const returned = c.checker.typeToString(site.signature.getReturnType());
    const failure = returnedFailure(c.checker, site.signature);
    const thrown = failure === undefined ? "" : ` \`${failure}\` is one of fw's failures: throw it, do not return it (\`throw new ${failure}(…)\`).`;
    fail(c, site, Codes.notAHandler, `\`${site.name}\` returns \`${returned}\`; a handler returns a \`Response\` (or a Promise of one): Ok(…), Redirect(…) or status(…).${thrown}`);
    return undefined;
  }
  const [first, second] = parameters.map((p) => c.checker.getTypeOfSymbol(p));
  const named = first === undefined ? "Request" : fwTypeName(first, "request");
  // `JsonRequest<B>` is an alias of `ApiRequest<Params, B>`.
  const requestKind = named === "JsonRequest" ? "ApiRequest" : named;
  if (requestKind !== "Request" && requestKind !== "ApiRequest") {
    fail(c, site, Codes.unknownRequestType, `the first parameter of \`${site.name}\` ${notARequest(c.checker, c.shown, first)}`);
    return undefined;
  }
  const typeArguments = first === undefined ? [] : c.checker.getTypeArguments(first as ts.TypeReference);
  const params = first === undefined ? [] : paramUses(c, site, typeArguments[0]);
  // `Request<P, Q>`, `ApiRequest<P, B, Q>`: the query parameters' type, when declared.
  const query = queryShape(c, site, typeArguments[requestKind === "ApiRequest" ? 2 : 1]);
  const capabilities = second === undefined ? [] : capabilityUses(c, site, parameters[1] as ts.Symbol, second);
  const json = requestKind === "ApiRequest" && first !== undefined ? declaredBody(c, site, first) : false;
  const reads = checkBodyReads(c, site);
  if (params === undefined || capabilities === undefined || json === undefined || query === undefined || !reads) return undefined;
  const body = json ? c.checker.getTypeArguments(first as ts.TypeReference)[1] : undefined;
  // A body naming a model's file field is an upload (a multipart form), not JSON.
  const upload = body === undefined ? undefined : uploadShape(c, site, body);
  if (upload === null) return undefined;
  if (!jsonCarries(c, site, upload === undefined ? body : undefined)) return undefined;
  if (upload === undefined && body !== undefined && !checkJsonHoldsNoFile(c, site, body)) return undefined;
  const answers = jsonAnswers(c.ts, c.checker, site.signature);
  const doc = c.ts.displayPartsToString(site.signature.getDocumentationComment(c.checker)).trim();
  const thrown = thrownStatuses(c.ts, c.checker, site.declaration);
  return {
    case: "http",
    api: requestKind === "ApiRequest",
    params,
    capabilities,
    ...(json && upload === undefined ? { json: true as const } : {}),
    ...(upload === undefined ? {} : { upload }),
    ...(answers === undefined ? {} : { answers }),
    ...(doc === "" ? {} : { doc }),
    ...(thrown.length === 0 ? {} : { thrown }),
    ...(query === null ? {} : { query }),
  };
}

/**
 * Whether JSON can carry the handler's JSON answers and its JSON body; else a finding (TS91060)
 * naming the places, at the handler, where typia would have refused them in the generated modules.
 */
function jsonCarries(c: Checking, site: SignatureSite, body: ts.Type | undefined): boolean {
  const fix =
    "JSON carries strings, numbers, booleans, null, arrays and plain objects (a Date goes as its text): convert the value (`Number(count)` or `String(count)` for a bigint, " +
    "`Object.fromEntries(map)` or `[...set]`) and say so in the type";
  const answered = answerTypes(c.ts, c.checker, site.signature).flatMap((type) => notJsonPlaces(c.ts, c.checker, type));
  if (answered.length > 0) {
    fail(c, site, Codes.notJson, `\`${site.name}\` answers JSON of a type JSON cannot carry: ${[...new Set(answered)].join(", ")}. ${fix}, or declare the handler \`: Response\` and write the answer yourself.`);
    return false;
  }
  const taken = body === undefined ? [] : notJsonPlaces(c.ts, c.checker, body);
  if (taken.length > 0) {
    fail(c, site, Codes.notJson, `\`${site.name}\` takes a JSON body of a type JSON cannot carry: ${taken.join(", ")}, so no request could send it. ${fix}: declare what arrives and convert it in the handler.`);
    return false;
  }
  return true;
}

function returnsResponse(c: Checking, signature: ts.Signature): boolean {
  const awaited = c.checker.getAwaitedType(signature.getReturnType()) ?? signature.getReturnType();
  const parts = awaited.isUnion() ? awaited.types : [awaited];
  return parts.every((part) => fwTypeName(part, "response") === "Response" || isTypedAnswer(part) || (part.flags & c.ts.TypeFlags.Never) !== 0);
}

function exampleFor(name: string): string {
  if (name === "new") return "function fresh(request: Request): Response { … } export { fresh as new };";
  return `export function ${name}(request: Request): Response { … }`;
}
