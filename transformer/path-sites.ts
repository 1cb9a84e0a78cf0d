import * as path from "node:path";
import type * as ts from "typescript";
import { isFwSymbol, type FwModule } from "./fw-symbols.js";
import { untypedRoute, type KnownRoute, type Use } from "./known-routes.js";
import type { Piece } from "./path-shape.js";

/** A path the app writes where fw knows what it is for: a link, a form's action, a redirect, a test's request. */
export interface PathSite {
  readonly file: ts.SourceFile;
  /** The written path (the diagnostic points at it). */
  readonly node: ts.Node;
  readonly pieces: readonly Piece[];
  /** The methods it is used with. */
  readonly use: Use;
  /** Where it is written, as the message says it: `<a href>`, `Redirect(…)`, `client.get(…)`. */
  readonly what: string;
  /** A POST form's literal `_method` field (`<input name="_method" value="PATCH">` inside it): the method, upper-cased, and its value's node. */
  readonly override?: { readonly method: string; readonly node: ts.Node };
}

/** A topic a live page listens to, written as a literal (or a constant of a literal type). */
export interface TopicSite {
  readonly file: ts.SourceFile;
  readonly node: ts.Node;
  readonly topic: string;
}

/** What one walk over the app's files found. */
export interface AppSites {
  readonly paths: PathSite[];
  readonly topics: TopicSite[];
  /** Topics published by name (`publish("chat")`, `publishing(store, "feed")`). */
  readonly published: Set<string>;
  /** The types of topics published by a computed name (`publish(topicOf(post))`): a topic they admit may be published. */
  readonly publishedTypes: ts.Type[];
  /** Names of `new Room("…")`: a separate namespace from topics, named in the message when a topic matches one. */
  readonly rooms: Set<string>;
  /** Routes the app builds by hand (`Route.get("/health", …)` beside `table()`), with literal paths. */
  readonly handRoutes: KnownRoute[];
  /** Literal prefixes of `Route.under(prefix, …)`. */
  readonly prefixes: string[];
  /** fw/auth's form sign-in routes, read from each `formSignIn({ … })` call's literal `mount` and `signUp`. */
  readonly signIn: KnownRoute[];
}

const ANY_METHOD: Use = "any";
const GET: Use = ["GET"];
/** A POST form reaches PUT, PATCH and DELETE routes too, through its `_method` field. */
const FORM_POST: Use = ["POST", "PUT", "PATCH", "DELETE"];
const ROUTE_METHODS: Readonly<Record<string, string>> = { get: "GET", post: "POST", put: "PUT", patch: "PATCH", delete: "DELETE", head: "HEAD", options: "OPTIONS" };
/** Names a call must have before the checker is asked what it calls. */
const CALLEES = new Set(["Redirect", "href", "get", "post", "put", "patch", "delete", "head", "options", "http", "api", "under", "submit", "signUp", "signIn", "signOut", "formSignIn", "publish", "publishing", "live", "button", "render"]);

interface Walk {
  readonly ts: typeof ts;
  readonly checker: ts.TypeChecker;
  readonly file: ts.SourceFile;
  readonly found: AppSites;
  /** Calls already read as a JSX attribute's value (`href={request.href("/posts")}`). */
  readonly done: Set<ts.Node>;
}

/**
 * One walk over the app's own files (not declarations, node_modules or the generated modules):
 * the paths, topics and hand-built routes the build's checks read (app-checks.ts). The checker
 * is asked only about calls whose name and arguments already fit.
 */
export function findAppSites(tsApi: typeof ts, checker: ts.TypeChecker, files: readonly ts.SourceFile[], generated: readonly string[]): AppSites {
  const skip = new Set(generated.map((file) => path.resolve(file)));
  const found: AppSites = { paths: [], topics: [], published: new Set(), publishedTypes: [], rooms: new Set(), handRoutes: [], prefixes: [], signIn: [] };
  for (const file of files) {
    if (file.isDeclarationFile || file.fileName.includes("/node_modules/") || skip.has(path.resolve(file.fileName))) continue;
    const walk: Walk = { ts: tsApi, checker, file, found, done: new Set() };
    const visit = (node: ts.Node): void => {
      visitNode(walk, node);
      tsApi.forEachChild(node, visit);
    };
    visit(file);
  }
  return found;
}

function visitNode(w: Walk, node: ts.Node): void {
  const t = w.ts;
  if (t.isJsxOpeningElement(node) || t.isJsxSelfClosingElement(node)) jsxElement(w, node);
  else if (t.isCallExpression(node)) {
    if (!w.done.has(node)) call(w, node);
  } else if (t.isNewExpression(node)) room(w, node);
}

/** `<a href="…">`, `<form action="…" method="post">`, `<button formaction="…">` on HTML elements. */
function jsxElement(w: Walk, element: ts.JsxOpeningElement | ts.JsxSelfClosingElement): void {
  const t = w.ts;
  if (!t.isIdentifier(element.tagName) || !/^[a-z]/.test(element.tagName.text)) return;
  const tag = element.tagName.text;
  const attributes = new Map<string, ts.JsxAttribute>();
  for (const property of element.attributes.properties) {
    if (t.isJsxAttribute(property) && t.isIdentifier(property.name)) attributes.set(property.name.text.toLowerCase(), property);
  }
  const read = (name: string, use: Use, override?: PathSite["override"]): void => {
    const attribute = attributes.get(name);
    if (attribute?.initializer === undefined) return;
    const what = `<${tag} ${name}>`;
    if (t.isStringLiteral(attribute.initializer)) return record(w, attribute.initializer, [{ text: attribute.initializer.text }], use, what, override);
    const expression = t.isJsxExpression(attribute.initializer) ? attribute.initializer.expression : undefined;
    if (expression === undefined) return;
    const inner = unwrapped(t, expression);
    // `href={request.href("/posts")}`: the path inside, with the element's method.
    if (t.isCallExpression(inner) && t.isPropertyAccessExpression(inner.expression) && t.isIdentifier(inner.expression.name) && inner.expression.name.text === "href") {
      w.done.add(inner);
      if (isFw(w, inner.expression.name, "request", "href")) argument(w, inner.arguments[0], use, `${what} request.href(…)`, override);
      return;
    }
    argument(w, inner, use, what, override);
  };
  if (tag === "form") {
    const use = formUse(w, attributes.get("method"));
    const override = use === FORM_POST ? methodField(w, element) : undefined;
    read("action", override === undefined ? use : [override.method], override);
  }
  else if (tag === "button" || tag === "input") read("formaction", ANY_METHOD);
  read("href", GET);
}

/**
 * The one `_method` field a POST form holds, when its name and value are literals
 * (`<input type="hidden" name="_method" value="PATCH" />`, anywhere inside the form): the method
 * the form sends (dispatch reads it upper-cased). Undefined when there is none, several, or one
 * whose value the build cannot read: the form may then send any of POST, PUT, PATCH, DELETE.
 */
function methodField(w: Walk, element: ts.JsxOpeningElement | ts.JsxSelfClosingElement): PathSite["override"] {
  const t = w.ts;
  if (!t.isJsxOpeningElement(element) || !t.isJsxElement(element.parent)) return undefined;
  const fields: ts.JsxAttributeLike[][] = [];
  const visit = (node: ts.Node): void => {
    if ((t.isJsxSelfClosingElement(node) || t.isJsxOpeningElement(node)) && t.isIdentifier(node.tagName) && node.tagName.text === "input") {
      const props = node.attributes.properties;
      if (props.some((p) => t.isJsxAttribute(p) && t.isIdentifier(p.name) && p.name.text === "name" && p.initializer !== undefined && t.isStringLiteral(p.initializer) && p.initializer.text === "_method")) fields.push([...props]);
    }
    t.forEachChild(node, visit);
  };
  element.parent.children.forEach(visit);
  const value = fields.length === 1 ? fields[0]?.find((p): p is ts.JsxAttribute => t.isJsxAttribute(p) && t.isIdentifier(p.name) && p.name.text === "value") : undefined;
  const literal = value?.initializer !== undefined && t.isStringLiteral(value.initializer) ? value.initializer : undefined;
  return literal === undefined ? undefined : { method: literal.text.toUpperCase(), node: literal };
}

/** A form's methods: GET without `method` (or `method="get"`), a POST (and `_method`) with `method="post"`. */
function formUse(w: Walk, method: ts.JsxAttribute | undefined): Use {
  if (method?.initializer === undefined) return GET;
  const text = w.ts.isStringLiteral(method.initializer) ? method.initializer.text.toLowerCase() : undefined;
  if (text === "get") return GET;
  if (text === "post") return FORM_POST;
  return ANY_METHOD;
}

function call(w: Walk, node: ts.CallExpression): void {
  const t = w.ts;
  const named = t.isPropertyAccessExpression(node.expression) ? node.expression.name : node.expression;
  if (!t.isIdentifier(named) || !CALLEES.has(named.text)) return;
  const callee = named;
  const name = callee.text;
  const args = node.arguments;
  switch (name) {
    case "Redirect":
      if (pathLike(t, args[0]) && isFw(w, callee, "response", "Redirect")) argument(w, args[0], GET, "Redirect(…)");
      return;
    case "href":
      if (pathLike(t, args[0]) && isFw(w, callee, "request", "href")) argument(w, args[0], ANY_METHOD, "request.href(…)");
      return;
    case "formSignIn":
      if (isFw(w, callee, "formSignIn", "formSignIn")) signIn(w, args[0]);
      return;
    case "publish":
    case "publishing":
      if (isFw(w, callee, "topics", name)) published(w, name === "publish" ? args[0] : args[1]);
      return;
    case "live":
      if (args[0] !== undefined && t.isObjectLiteralExpression(args[0]) && isFw(w, callee, "live", "live")) liveTopics(w, args[0]);
      return;
    case "button":
    case "render":
      if (args[0] !== undefined && t.isObjectLiteralExpression(args[0]) && pathLike(t, member(t, args[0], "action")) && isFw(w, callee, "form", name)) formHelper(w, args[0], name);
      return;
    default:
      return routeOrClient(w, node, callee, name);
  }
}

/** `Route.get("/health", …)`, `Route.http({ method, path })`, `Route.under("/admin", …)`; or fw/testing's `client.get("/…")`, `submit`, … */
function routeOrClient(w: Walk, node: ts.CallExpression, callee: ts.Identifier, name: string): void {
  const t = w.ts;
  const args = node.arguments;
  const first = args[0];
  const method = ROUTE_METHODS[name];
  if (name === "http" || name === "api") {
    if (first === undefined || !t.isObjectLiteralExpression(first) || !isFw(w, callee, "route", name)) return;
    const written = literalText(t, member(t, first, "path"));
    const verb = literalText(t, member(t, first, "method"));
    if (written !== undefined && written.startsWith("/")) w.found.handRoutes.push({ ...untypedRoute(verb ?? "*", written), ...(name === "api" ? { api: true } : {}) });
    return;
  }
  if (name === "under") {
    const prefix = literalText(t, first);
    if (prefix !== undefined && prefix.startsWith("/") && isFw(w, callee, "route", name)) w.found.prefixes.push(prefix);
    return;
  }
  if (!pathLike(t, first) && !(name === "signUp" || name === "signIn" || name === "signOut")) return;
  const symbol = w.checker.getSymbolAtLocation(callee);
  if (method !== undefined && isFwSymbol(w.checker, symbol, "route", name, w.ts)) {
    const written = literalText(t, first);
    if (written !== undefined && written.startsWith("/")) w.found.handRoutes.push(untypedRoute(method, written));
    return;
  }
  if (!isFwSymbol(w.checker, symbol, "testingClient", name, w.ts)) return;
  const what = `client.${name}(…)`;
  switch (name) {
    case "get":
      return argument(w, first, GET, what);
    case "post":
      return argument(w, first, ["POST"], what);
    case "submit": {
      argument(w, first, GET, what);
      const options = args[2];
      if (options !== undefined && t.isObjectLiteralExpression(options)) argument(w, member(t, options, "action"), ANY_METHOD, `${what}'s action`);
      return;
    }
    case "signUp":
    case "signIn":
      return argument(w, args[2], GET, what);
    case "signOut":
      argument(w, args[0], GET, what);
      return argument(w, args[1], ANY_METHOD, what);
  }
}

/** fw's `Form.button({ action, method })` and a form's `render({ action, method })`. */
function formHelper(w: Walk, props: ts.ObjectLiteralExpression, name: string): void {
  const method = literalText(w.ts, member(w.ts, props, "method"));
  argument(w, member(w.ts, props, "action"), method === undefined ? ANY_METHOD : [method], `${name === "button" ? "Form.button" : "render"}({ action })`);
}

/** fw/auth's account pages, with a mailer (runtime/auth/accounts.ts `routes()`): method and path under the mount. */
const ACCOUNT_ROUTES: readonly (readonly [string, string])[] = [
  ["GET", "/password/forgot"],
  ["POST", "/password/forgot"],
  ["GET", "/password/reset"],
  ["POST", "/password/reset"],
  ["GET", "/confirm"],
  ["POST", "/confirm"],
  ["GET", "/account"],
  ["POST", "/account/password"],
  ["POST", "/account/email"],
  ["GET", "/account/email/confirm"],
  ["POST", "/account/email/confirm"],
  ["POST", "/account/sign-out-everywhere"],
  ["POST", "/account/delete"],
];

/**
 * fw/auth's form sign-in: `GET|POST <mount>/login`, `POST <mount>/logout`, `GET|POST <mount>/signup`
 * unless `signUp: false`, and with a `mailer` the account pages (`/password/forgot`, `/account`, …).
 */
function signIn(w: Walk, options: ts.Expression | undefined): void {
  const t = w.ts;
  if (options === undefined || !t.isObjectLiteralExpression(options)) return;
  const mountNode = member(t, options, "mount");
  const mount = mountNode === undefined ? "/" : literalText(t, mountNode);
  // A mount the build cannot read: its routes stay unknown (the docs say to list them in extraRoutes).
  if (mount === undefined || !mount.startsWith("/")) return;
  const signUpNode = member(t, options, "signUp");
  const signUp = signUpNode === undefined || signUpNode.kind !== t.SyntaxKind.FalseKeyword;
  const base = mount === "/" ? "" : mount.replace(/\/$/, "");
  const routes = [untypedRoute("GET", `${base}/login`), untypedRoute("POST", `${base}/login`), untypedRoute("POST", `${base}/logout`)];
  if (signUp) routes.push(untypedRoute("GET", `${base}/signup`), untypedRoute("POST", `${base}/signup`));
  // With a `mailer` (unless written `undefined`), fw/auth's account pages too (runtime/auth/accounts.ts).
  const mailerNode = member(t, options, "mailer");
  const mailer = mailerNode === undefined ? undefined : unwrapped(t, mailerNode);
  if (mailer !== undefined && !(t.isIdentifier(mailer) && mailer.text === "undefined")) {
    for (const [method, at] of ACCOUNT_ROUTES) routes.push(untypedRoute(method, `${base}${at}`));
  }
  w.found.signIn.push(...routes);
}

/** A topic published: by its literal name, or (computed) by its type. */
function published(w: Walk, topic: ts.Expression | undefined): void {
  if (topic === undefined) return;
  const name = literalText(w.ts, topic) ?? literalOfType(w, topic);
  if (name !== undefined) w.found.published.add(name);
  else w.found.publishedTypes.push(w.checker.getTypeAtLocation(topic));
}

/** A live page's `topics: ["posts", CHAT_TOPIC]` (or a function returning such an array): each literal topic. */
function liveTopics(w: Walk, spec: ts.ObjectLiteralExpression): void {
  const t = w.ts;
  let value = member(t, spec, "topics");
  if (value === undefined) return;
  value = unwrapped(t, value);
  if (t.isArrowFunction(value) || t.isFunctionExpression(value)) value = returned(t, value);
  if (value === undefined || !t.isArrayLiteralExpression(value)) return;
  for (const element of value.elements) {
    if (t.isSpreadElement(element)) continue;
    const topic = literalText(t, element) ?? literalOfType(w, element);
    if (topic !== undefined) w.found.topics.push({ file: w.file, node: element, topic });
  }
}

/** The array a topics function returns: its expression body, or its one `return`. */
function returned(t: typeof ts, fn: ts.ArrowFunction | ts.FunctionExpression): ts.Expression | undefined {
  if (!t.isBlock(fn.body)) return unwrapped(t, fn.body);
  const returns = fn.body.statements.filter(t.isReturnStatement);
  return returns.length === 1 && returns[0]?.expression !== undefined ? unwrapped(t, returns[0].expression) : undefined;
}

function room(w: Walk, node: ts.NewExpression): void {
  const t = w.ts;
  if (!t.isIdentifier(node.expression) || node.expression.text !== "Room") return;
  const name = node.arguments?.[0] === undefined ? undefined : (literalText(t, node.arguments[0]) ?? literalOfType(w, node.arguments[0]));
  if (name !== undefined && isFw(w, node.expression, "room", "Room")) w.found.rooms.add(name);
}

/** Records a written path when it is one the check reads: a literal, a template, a `+` chain starting with a literal. */
function argument(w: Walk, node: ts.Expression | undefined, use: Use, what: string, override?: PathSite["override"]): void {
  if (node === undefined) return;
  const inner = unwrapped(w.ts, node);
  const pieces = piecesOf(w.ts, inner);
  if (pieces !== undefined) record(w, inner, pieces, use, what, override);
}

function record(w: Walk, node: ts.Node, pieces: readonly Piece[], use: Use, what: string, override?: PathSite["override"]): void {
  const first = pieces[0];
  if (first === undefined || !("text" in first) || !first.text.startsWith("/") || first.text.startsWith("//")) return;
  w.found.paths.push({ file: w.file, node, pieces, use, what, ...(override === undefined ? {} : { override }) });
}

/** Whether an argument may be a written path (before asking the checker what is called). */
function pathLike(t: typeof ts, node: ts.Expression | undefined): boolean {
  if (node === undefined) return false;
  const pieces = piecesOf(t, unwrapped(t, node));
  const first = pieces?.[0];
  return first !== undefined && "text" in first && first.text.startsWith("/");
}

/** The pieces of a literal, a template literal or a `+` chain whose first operand is a string literal. */
export function piecesOf(t: typeof ts, node: ts.Expression): Piece[] | undefined {
  if (t.isStringLiteral(node) || t.isNoSubstitutionTemplateLiteral(node)) return [{ text: node.text }];
  if (t.isTemplateExpression(node)) {
    const pieces: Piece[] = [{ text: node.head.text }];
    for (const span of node.templateSpans) pieces.push({ hole: shortText(span.expression) }, { text: span.literal.text });
    return pieces;
  }
  if (t.isBinaryExpression(node) && node.operatorToken.kind === t.SyntaxKind.PlusToken) {
    const operands: ts.Expression[] = [];
    let left: ts.Expression = node;
    while (t.isBinaryExpression(left) && left.operatorToken.kind === t.SyntaxKind.PlusToken) {
      operands.unshift(left.right);
      left = left.left;
    }
    operands.unshift(left);
    const head = operands[0] !== undefined ? unwrapped(t, operands[0]) : undefined;
    if (head === undefined || !(t.isStringLiteral(head) || t.isNoSubstitutionTemplateLiteral(head) || t.isTemplateExpression(head))) return undefined;
    return operands.flatMap((operand) => {
      const inner = unwrapped(t, operand);
      return piecesOf(t, inner) ?? [{ hole: shortText(inner) }];
    });
  }
  return undefined;
}

function shortText(node: ts.Node): string {
  const text = node.getText().replace(/\s+/g, " ");
  return text.length <= 30 ? text : "…";
}

function unwrapped(t: typeof ts, node: ts.Expression): ts.Expression {
  let inner = node;
  while (t.isParenthesizedExpression(inner) || t.isAsExpression(inner) || t.isSatisfiesExpression(inner) || t.isNonNullExpression(inner)) inner = inner.expression;
  return inner;
}

/** A property of an object literal written `name: value` (or `name` shorthand). */
function member(t: typeof ts, literal: ts.ObjectLiteralExpression, name: string): ts.Expression | undefined {
  for (const property of literal.properties) {
    if (property.name === undefined || !(t.isIdentifier(property.name) || t.isStringLiteral(property.name)) || property.name.text !== name) continue;
    if (t.isPropertyAssignment(property)) return property.initializer;
    if (t.isShorthandPropertyAssignment(property)) return property.name;
    return undefined;
  }
  return undefined;
}

function literalText(t: typeof ts, node: ts.Expression | undefined): string | undefined {
  if (node === undefined) return undefined;
  const inner = unwrapped(t, node);
  return t.isStringLiteral(inner) || t.isNoSubstitutionTemplateLiteral(inner) ? inner.text : undefined;
}

/** The text of an expression whose type is one string literal (`CHAT_TOPIC`, a `const` of `"chat"`). */
function literalOfType(w: Walk, node: ts.Expression): string | undefined {
  const type = w.checker.getTypeAtLocation(node);
  return type.isStringLiteral() ? type.value : undefined;
}

/** Whether `name` (a callee) is fw's declaration `declared` of `module` (`Route.http`: the member `http` declared in the route module). */
function isFw(w: Walk, name: ts.Identifier, module: FwModule, declared: string): boolean {
  return isFwSymbol(w.checker, w.checker.getSymbolAtLocation(name), module, declared, w.ts);
}
