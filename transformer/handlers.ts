import type * as ts from "typescript";
import { at, Codes, type Finding } from "./diagnostics.js";
import { bareCapabilityAdvice, isBareCapability } from "./capability-parameter.js";
import { fwTypeName } from "./fw-symbols.js";
import { notARequest, returnedFailure } from "./handler-advice.js";
import { checkBodyReads, declaredBody } from "./json-body.js";
import { undecodable } from "./param-types.js";
import { analyseLivePage } from "./live-page.js";
import { listenerProblem, listenerShape, meantAsListener } from "./ws-listener.js";
import type { RouteFile } from "./scan.js";

/** A path parameter the handler reads, and whether it needs a typia decoder (non-string). */
export interface ParamUse {
  readonly name: string;
  readonly type: string;
  readonly decode: boolean;
}

/** One capability a handler asks for in its second parameter, and who supplies it. */
export interface CapabilityUse {
  readonly name: string;
  /** The type as the handler wrote it, for messages. */
  readonly type: string;
  /** The type itself, to check what the capabilities module exports against. */
  readonly required: ts.Type;
  /**
   * `Store<M>` (or `ScopedStore<M>`, of an owned model) of a known model: supplied by the
   * model's store, not the capabilities module (a broken model's leaves the row out).
   */
  readonly store?: string;
}

export type Handler =
  | {
      readonly case: "http";
      readonly api: boolean;
      readonly params: readonly ParamUse[];
      readonly capabilities: readonly CapabilityUse[];
      /** An API handler declares a JSON body (`ApiRequest<P, B>`): the row gets typia's validator of `B`. */
      readonly json?: true;
    }
  | { readonly case: "ws" }
  | LiveHandler<CapabilityUse>;

/**
 * A live page (fw/live's `LivePage`, spec 4.6): its GET and no-JavaScript POST at the file's
 * place, its socket after the table. `id` names the socket (`counter.Index`); `params` and
 * `capabilities` are read from `mount` as a handler's are; `forms` maps each form event whose
 * payload is `FormInput<M>` to the model M it is read with.
 */
export interface LiveHandler<Capability> {
  readonly case: "live";
  readonly id: string;
  readonly params: readonly ParamUse[];
  readonly capabilities: readonly Capability[];
  readonly forms: readonly { readonly event: string; readonly model: string }[];
}

/** A handler as the generated module prints it, and as a remembered row keeps it (row-cache.ts). */
export type PrintedHandler =
  | { readonly case: "http"; readonly api: boolean; readonly params: readonly ParamUse[]; readonly capabilities: readonly Omit<CapabilityUse, "required">[]; readonly json?: true }
  | { readonly case: "ws" }
  | LiveHandler<Omit<CapabilityUse, "required">>;

/** What the analysis needs from the compiler. */
export interface Checking {
  readonly ts: typeof ts;
  readonly checker: ts.TypeChecker;
  /** Shows a file path as messages do. */
  readonly shown: (file: string) => string;
  readonly findings: Finding[];
  /** Models the build found, by name: a `Store<M>` of one is supplied by its store. */
  readonly models: ReadonlySet<string>;
  /** Models deriving Form alone: a live page's `FormInput<M>` may name one (the table gets its ModelSpec, no store). */
  readonly formModels: ReadonlySet<string>;
  /** Models that failed the build with their own diagnostic: a `Store<M>` of one is not looked for elsewhere. */
  readonly brokenModels: ReadonlySet<string>;
  /** Models declaring `owned`: only their store is a `ScopedStore` a handler may ask for. */
  readonly ownedModels: ReadonlySet<string>;
  /** fw's `WsListener` type, to check socket listeners against (undefined when fw's declarations are not in the program). */
  readonly wsListener: ts.Type | undefined;
  /** The capabilities module as messages show it, and what it exports by name (nothing when there is no module). */
  readonly capabilityModule: { readonly shown: string; readonly exports: ReadonlyMap<string, ts.Symbol> };
  /** fw/live's `LiveValues` type, what a click, key or change event sends (undefined when fw/live is not in the program). */
  readonly liveValues: ts.Type | undefined;
  /** The app folder: a live page's id is its route file's path under it. */
  readonly appDir: string;
}

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

/** Where a handler (or a live page's `mount`) is, for findings. */
export interface SignatureSite {
  readonly where: string;
  readonly name: string;
  readonly source: ts.SourceFile;
  readonly declaration: ts.Declaration | undefined;
  readonly signature: ts.Signature;
  readonly pattern: readonly string[];
}

/** A site without a signature: what the parameter and capability readers need. */
export type Site = Omit<SignatureSite, "signature">;

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
  const params = first === undefined ? [] : paramUses(c, site, c.checker.getTypeArguments(first as ts.TypeReference)[0]);
  const capabilities = second === undefined ? [] : capabilityUses(c, site, parameters[1] as ts.Symbol, second);
  const json = requestKind === "ApiRequest" && first !== undefined ? declaredBody(c, site, first) : false;
  const reads = checkBodyReads(c, site);
  if (params === undefined || capabilities === undefined || json === undefined || !reads) return undefined;
  return { case: "http", api: requestKind === "ApiRequest", params, capabilities, ...(json ? { json: true as const } : {}) };
}

function returnsResponse(c: Checking, signature: ts.Signature): boolean {
  const awaited = c.checker.getAwaitedType(signature.getReturnType()) ?? signature.getReturnType();
  const parts = awaited.isUnion() ? awaited.types : [awaited];
  return parts.every((part) => fwTypeName(part, "response") === "Response" || (part.flags & c.ts.TypeFlags.Never) !== 0);
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
    uses.push({ name, type: c.checker.typeToString(type), decode });
  }
  return uses;
}

/** The second parameter: an object type whose properties name the capabilities. */
export function capabilityUses(c: Checking, site: Site, parameter: ts.Symbol, capabilities: ts.Type): CapabilityUse[] | undefined {
  let ok = true;
  const uses = capabilities.getProperties().map((property): CapabilityUse => {
    const required = c.checker.getTypeOfSymbol(property);
    const stored = storedModel(c, required);
    const use = { name: property.getName(), type: c.checker.typeToString(required), required };
    if (stored?.scoped === true && !c.ownedModels.has(stored.model) && !c.brokenModels.has(stored.model)) {
      ok = false;
      const message = `\`${site.name}\` asks for \`${use.name}: ${use.type}\`, but ${stored.model} declares no \`owned\`, so its rows belong to nobody and its store is not a ScopedStore: ask for \`${use.name}: Store<${stored.model}>\`.`;
      fail(c, site, Codes.mistypedCapability, message);
    }
    return stored === undefined ? use : { ...use, store: stored.model };
  });
  const notObject = (capabilities.flags & c.ts.TypeFlags.Object) === 0 || capabilities.getCallSignatures().length > 0;
  if (notObject || isBareCapability(c, parameter, capabilities, uses)) {
    fail(c, site, Codes.capabilitiesNotObject, `the second parameter of \`${site.name}\` is ${bareCapabilityAdvice(c, parameter, capabilities)}`);
    return undefined;
  }
  return ok ? uses : undefined;
}

/**
 * The model a `Store<M>` capability is for, when M is a model the build knows; `ScopedStore<M>`
 * too (`scoped`): an owned model's store is one, and asking for it by that type is how a
 * handler reaches one user's rows (`for(user)`). Never the capabilities module's to supply.
 */
function storedModel(c: Checking, type: ts.Type): { readonly model: string; readonly scoped: boolean } | undefined {
  const scoped = fwTypeName(type, "scopedStore") === "ScopedStore";
  if (!scoped && fwTypeName(type, "store") !== "Store") return undefined;
  const argument = (type.aliasTypeArguments ?? c.checker.getTypeArguments(type as ts.TypeReference))[0];
  const name = argument === undefined ? undefined : (argument.aliasSymbol ?? argument.getSymbol())?.getName();
  return name !== undefined && (c.models.has(name) || c.brokenModels.has(name)) ? { model: name, scoped } : undefined;
}

export function fail(c: Checking, site: Site, code: Finding["code"], message: string): void {
  c.findings.push({ code, category: "error", file: site.source, ...spot(site.declaration), message: `${site.where}: ${message}` });
}

export function spot(node: ts.Node | undefined): { start?: number; length?: number } {
  return node === undefined ? {} : at(node);
}

function exampleFor(name: string): string {
  if (name === "new") return "function fresh(request: Request): Response { … } export { fresh as new };";
  return `export function ${name}(request: Request): Response { … }`;
}
