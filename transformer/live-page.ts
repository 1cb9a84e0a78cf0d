import * as path from "node:path";
import type * as ts from "typescript";
import { Codes } from "./diagnostics.js";
import { isFwSymbol } from "./fw-symbols.js";
import { capabilityUses, type CapabilityUse } from "./capability-parameter.js";
import { spot, type Checking, type Site } from "./checking.js";
import { checkEvents, memberName } from "./live-events.js";
import { paramUses, type ParamUse } from "./param-types.js";
import { queryShape, type QueryParamShape } from "./query-types.js";
import type { RouteFile } from "./scan.js";

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
  /** The query parameters `mount` declares (`Request<P, Q>`): each one's shape, for the page's decoder. */
  readonly query?: Readonly<Record<string, QueryParamShape>>;
  readonly capabilities: readonly Capability[];
  readonly forms: readonly { readonly event: string; readonly model: string }[];
}

/** Where a route file's live page is, as the handler analysis found it. */
export interface LivePageSite {
  readonly route: RouteFile;
  readonly source: ts.SourceFile;
  readonly declaration: ts.Declaration | undefined;
  /** The export's type: `LivePage<S, C, P, Q>`. */
  readonly type: ts.Type;
  readonly pattern: readonly string[];
  /** `<file> mounts GET <path>`, how findings start. */
  readonly where: string;
}

/**
 * Reads a route file whose handler export is a live page (fw/live's `LivePage`): its id, the
 * path parameters and capabilities its `mount` asks for (read and checked as a handler's
 * are), and its events checked against the markup (live-events.ts). Mistakes become findings
 * on the file; the result is then undefined.
 */
export function analyseLivePage(c: Checking, site: LivePageSite): LiveHandler<CapabilityUse> | undefined {
  const name = site.route.role.exportName;
  if (site.route.role.method !== "GET") {
    c.findings.push({
      code: Codes.notAHandler,
      category: "error",
      file: site.source,
      ...spot(site.declaration),
      message: `${site.where}, but \`${name}\` is a live page, which is a page to GET (fw mounts its no-JavaScript POST itself). Move it to a GET route file: Index.tsx, Show.tsx, New.tsx, Edit.tsx or a custom name (About.tsx).`,
    });
    return undefined;
  }
  // LivePage<S, C, P, Q>: C, P and Q as `live()` inferred them from `mount`'s parameters.
  const [, capabilitiesType, paramsType, queryType] = c.checker.getTypeArguments(site.type as ts.TypeReference);
  const spec = specLiteral(c, site.declaration);
  const mount = spec === undefined ? undefined : memberFunction(c, spec, "mount");
  const mountSite: Site = { where: site.where, name: `${name}.mount`, source: site.source, declaration: mount ?? site.declaration, pattern: site.pattern };
  const params = paramUses(c, mountSite, paramsType);
  const query = queryShape(c, mountSite, queryType);
  const capabilities = capabilitiesOf(c, mountSite, mount, capabilitiesType);
  const forms = checkEvents(c, { file: c.shown(site.route.file), name, source: site.source, declaration: site.declaration, spec });
  if (params === undefined || query === undefined || capabilities === undefined || forms === undefined) return undefined;
  return { case: "live", id: pageId(c.appDir, site.route.file), params, ...(query === null ? {} : { query }), capabilities, forms };
}

/** The page's id: the route file's path under the app folder, `/` → `.`, no extension (`counter.Index`, `posts._id.Show`). */
export function pageId(appDir: string, file: string): string {
  return path.relative(appDir, file).replace(/\.tsx?$/, "").split(path.sep).join(".");
}

/** The object literal passed to fw/live's `live()` in `export const index = live({ … })`, when the build can read it. */
function specLiteral(c: Checking, declaration: ts.Declaration | undefined): ts.ObjectLiteralExpression | undefined {
  if (declaration === undefined || !c.ts.isVariableDeclaration(declaration) || declaration.initializer === undefined) return undefined;
  const call = skipParentheses(c, declaration.initializer);
  if (!c.ts.isCallExpression(call)) return undefined;
  const callee = c.ts.isPropertyAccessExpression(call.expression) ? call.expression.name : call.expression;
  if (!isFwSymbol(c.checker, c.checker.getSymbolAtLocation(callee), "live", "live", c.ts)) return undefined;
  const argument = call.arguments[0];
  if (argument === undefined) return undefined;
  const literal = skipParentheses(c, argument);
  return c.ts.isObjectLiteralExpression(literal) ? literal : undefined;
}

function skipParentheses(c: Checking, node: ts.Expression): ts.Expression {
  let inner = node;
  while (c.ts.isParenthesizedExpression(inner) || c.ts.isSatisfiesExpression(inner) || c.ts.isAsExpression(inner)) inner = inner.expression;
  return inner;
}

/** A member of an object literal written as a function (`mount: (request) => …`, `mount(request) { … }`). */
export function memberFunction(c: Checking, literal: ts.ObjectLiteralExpression, name: string): ts.SignatureDeclaration | undefined {
  for (const property of literal.properties) {
    if (property.name === undefined || memberName(c, property.name) !== name) continue;
    if (c.ts.isMethodDeclaration(property)) return property;
    if (c.ts.isPropertyAssignment(property)) {
      const value = skipParentheses(c, property.initializer);
      if (c.ts.isArrowFunction(value) || c.ts.isFunctionExpression(value)) return value;
    }
    return undefined;
  }
  return undefined;
}

/** The capabilities `mount` asks for in its second parameter (`C` of the page), checked as a handler's. */
function capabilitiesOf(c: Checking, site: Site, mount: ts.SignatureDeclaration | undefined, type: ts.Type | undefined): CapabilityUse[] | undefined {
  if (type === undefined) return [];
  const written = mount?.parameters[1];
  // `live()`'s default C (`Record<string, never>`): `mount` takes no capabilities.
  if (written === undefined && (type.getProperties().length === 0 || type.getStringIndexType() !== undefined)) return [];
  const parameter = written === undefined ? undefined : c.checker.getSymbolAtLocation(written.name);
  const symbol = parameter ?? type.getSymbol() ?? type.aliasSymbol;
  if (symbol === undefined) return [];
  return capabilityUses(c, site, symbol, type);
}
