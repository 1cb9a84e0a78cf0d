import type * as ts from "typescript";
import { decodeJsxEntities, escapeHtml, jsxTextValue } from "./jsx-text.js";

/**
 * fw's JSX pre-renderer: a ts-patch source transformer (a plain `"transform"` entry in tsconfig's
 * plugins, after fw's program transformer). It runs before TypeScript's own JSX transform and
 * turns each HTML element it can into a pre-rendered template: the element's fixed markup,
 * escaped at build time, with holes for the values only known per request.
 *
 *     <p class="meta">By {post.author}</p>
 *   becomes
 *     const _fwShape_1 = _fw.jsxShape(['<p class="meta">By ', "</p>"], "p", [null]);  // once, at module load
 *     _fw.jsxTemplate(_fwShape_1, [post.author])                                     // per use
 *
 * Such a node renders to exactly what the JSX runtime's element tree renders to, so the
 * transform is an optimisation only: whatever it cannot prove it renders the same way stays
 * runtime JSX, untouched. That covers spread props, a `<title>` (the layout lifts it out of the
 * tree), `<svg>`/`<math>`/`<template>` with values inside (their titles are not the page's), tag
 * or attribute names the renderer would refuse, children on a void element, an explicit
 * `children` or numeric attribute name, a `key` whose value could have side effects, and a
 * named character reference this module does not know. Components are always runtime JSX; their
 * JSX children are pre-rendered like any other.
 */
export default function jsxTemplates(
  _program: ts.Program | undefined,
  _config: unknown,
  extras: { readonly ts: typeof ts },
): ts.TransformerFactory<ts.SourceFile> {
  return templatesTransformer(extras.ts);
}

/** The transformer factory itself, for any TypeScript instance (tests call it directly). */
export function templatesTransformer(tsApi: typeof ts): ts.TransformerFactory<ts.SourceFile> {
  const jsxFlag = jsxFlagOf(tsApi);
  return (context) => (file) => (appliesTo(file, context.getCompilerOptions(), tsApi) ? new FileTemplates(tsApi, jsxFlag, context, file).run() : file);
}

/**
 * Only files whose JSX compiles against fw's runtime (`"jsx": "react-jsx"` with
 * `"jsxImportSource": "fw"`); a file naming another source with a pragma is left alone.
 */
function appliesTo(file: ts.SourceFile, options: ts.CompilerOptions, tsApi: typeof ts): boolean {
  const automatic = options.jsx === tsApi.JsxEmit.ReactJSX || options.jsx === tsApi.JsxEmit.ReactJSXDev;
  return automatic && options.jsxImportSource === "fw" && file.languageVariant === tsApi.LanguageVariant.JSX && !file.text.includes("@jsxImportSource");
}

/** Elements HTML defines as having no content and no end tag (as runtime/html/render.ts). */
const VOID_TAGS: ReadonlySet<string> = new Set([
  "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
  "wbr",
]);
/** Names the runtime renderer accepts (runtime/html/render.ts); anything else stays runtime JSX, so it throws there as before. */
const TAG_NAME = /^[A-Za-z][A-Za-z0-9_:.-]*$/;
const ATTR_NAME = /^[A-Za-z0-9_:.-]+$/;
/** A property name JavaScript orders before all others in an object: props would not keep source order. */
const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/;
/** Roots whose `<title>` is not the document's (runtime/html/render.ts): pre-rendered only when fully static. */
const FOREIGN_ROOTS: ReadonlySet<string> = new Set(["svg", "math", "template"]);

type JsxTag = ts.JsxElement | ts.JsxSelfClosingElement;

/** A template being written: its markup so far, and its holes. */
interface Draft {
  readonly strings: string[];
  readonly attrs: (string | null)[];
  readonly holes: ts.Expression[];
}

/**
 * TypeScript's node factory marks every node whose subtree holds JSX with this bit of its
 * `transformFlags` (parsed and synthesized nodes alike). Both are internal to TypeScript, though
 * exported at run time since 4.0; without them every node is visited, as before.
 */
function jsxFlagOf(tsApi: typeof ts): number | undefined {
  const flag = (tsApi as { readonly TransformFlags?: { readonly ContainsJsx?: unknown } }).TransformFlags?.ContainsJsx;
  return typeof flag === "number" ? flag : undefined;
}

class FileTemplates {
  readonly #ts: typeof ts;
  readonly #context: ts.TransformationContext;
  readonly #file: ts.SourceFile;
  readonly #hoisted: ts.Statement[] = [];
  readonly #jsxFlag: number | undefined;
  #runtime: ts.Identifier | undefined;

  /** `jsxFlag`: jsxFlagOf(tsApi), read once per transformer rather than per file. */
  constructor(tsApi: typeof ts, jsxFlag: number | undefined, context: ts.TransformationContext, file: ts.SourceFile) {
    this.#ts = tsApi;
    this.#jsxFlag = jsxFlag;
    this.#context = context;
    this.#file = file;
  }

  /** Whether `node`'s subtree may hold JSX (always, when TypeScript does not say). */
  private mayHoldJsx(node: ts.Node): boolean {
    const flags = (node as { readonly transformFlags?: number }).transformFlags;
    return this.#jsxFlag === undefined || flags === undefined || (flags & this.#jsxFlag) !== 0;
  }

  run(): ts.SourceFile {
    const file = this.#ts.visitEachChild(this.#file, this.visit, this.#context);
    if (this.#runtime === undefined) return this.#file;
    const f = this.#context.factory;
    // `import * as _fw`: a namespace import survives TypeScript's CommonJS transform as well,
    // where a synthesized named import would not be rewritten.
    const runtimeImport = f.createImportDeclaration(
      undefined,
      f.createImportClause(false, undefined, f.createNamespaceImport(this.#runtime)),
      f.createStringLiteral("fw/jsx-runtime"),
    );
    const statements = [...file.statements];
    const at = statements.findIndex((s) => !this.#ts.isImportDeclaration(s) && !isDirective(s, this.#ts));
    statements.splice(at === -1 ? statements.length : at, 0, runtimeImport, ...this.#hoisted);
    return f.updateSourceFile(file, statements);
  }

  private readonly visit = (node: ts.Node): ts.VisitResult<ts.Node> => {
    // Most of a file holds no JSX (imports, types, logic): its subtrees are returned as they are,
    // unwalked, where walking them was most of this pass's time.
    if (!this.mayHoldJsx(node)) return node;
    if ((this.#ts.isJsxElement(node) || this.#ts.isJsxSelfClosingElement(node)) && this.inlinable(node)) {
      const template = this.template(node);
      // A JSX child of a component or a runtime element must stay a JSX child: `{template}`.
      const parent = node.parent as ts.Node | undefined;
      const asChild = parent !== undefined && (this.#ts.isJsxElement(parent) || this.#ts.isJsxFragment(parent));
      return asChild ? this.#context.factory.createJsxExpression(undefined, template) : template;
    }
    return this.#ts.visitEachChild(node, this.visit, this.#context);
  };

  private visitExpression(node: ts.Expression): ts.Expression {
    return this.#ts.visitNode(node, this.visit, this.#ts.isExpression) ?? node;
  }

  /** `_fw.jsxTemplate(shape, [holes])`, the shape hoisted to the top of the module. */
  private template(root: JsxTag): ts.Expression {
    const draft: Draft = { strings: [""], attrs: [], holes: [] };
    this.writeElement(root, draft);
    const f = this.#context.factory;
    const runtime = (this.#runtime ??= f.createUniqueName("_fw"));
    // A template without holes is the same node every time: built once, like a shape.
    const shapeName = f.createUniqueName(draft.holes.length === 0 ? "_fwNode" : "_fwShape");
    const shape = f.createCallExpression(f.createPropertyAccessExpression(runtime, "jsxShape"), undefined, [
      f.createArrayLiteralExpression(draft.strings.map((s) => f.createStringLiteral(s))),
      f.createStringLiteral(tagName(root, this.#ts) as string),
      f.createArrayLiteralExpression(draft.attrs.map((a) => (a === null ? f.createNull() : f.createStringLiteral(a)))),
    ]);
    const use = f.createCallExpression(f.createPropertyAccessExpression(runtime, "jsxTemplate"), undefined, [
      shapeName,
      f.createArrayLiteralExpression(draft.holes),
    ]);
    const hoisted = draft.holes.length === 0 ? f.createCallExpression(use.expression, undefined, [shape, f.createArrayLiteralExpression([])]) : shape;
    this.#hoisted.push(
      f.createVariableStatement(undefined, f.createVariableDeclarationList([f.createVariableDeclaration(shapeName, undefined, undefined, hoisted)], this.#ts.NodeFlags.Const)),
    );
    return draft.holes.length === 0 ? shapeName : use;
  }

  /** Whether an element can be written into a template, rendering as the runtime would render it. */
  private inlinable(node: JsxTag): boolean {
    const tag = tagName(node, this.#ts);
    if (tag === undefined || !TAG_NAME.test(tag)) return false;
    const lower = tag.toLowerCase();
    if (lower === "title") return false;
    if (!this.attributesInlinable(node)) return false;
    const children = this.#ts.isJsxElement(node) ? node.children : [];
    if (VOID_TAGS.has(lower) && children.some((child) => this.isChild(child))) return false;
    if (!children.every((child) => this.childWritable(child))) return false;
    return !FOREIGN_ROOTS.has(lower) || this.isStatic(node);
  }

  private attributesInlinable(node: JsxTag): boolean {
    const attributes = this.#ts.isJsxElement(node) ? node.openingElement.attributes : node.attributes;
    const seen = new Set<string>();
    for (const attribute of attributes.properties) {
      if (!this.#ts.isJsxAttribute(attribute)) return false; // a spread: its keys are unknown here
      const name = attributeName(attribute, this.#ts);
      if (name === "key") {
        // TypeScript passes the first `key` apart and any later one as a prop: keep it simple.
        if (seen.has(name) || !pureKey(attribute.initializer, this.#ts)) return false;
        seen.add(name);
        continue;
      }
      if (!ATTR_NAME.test(name) || ARRAY_INDEX.test(name) || name === "children" || seen.has(name)) return false;
      seen.add(name);
      const value = attribute.initializer;
      if (value !== undefined && this.#ts.isStringLiteral(value) && decodeJsxEntities(value.text) === undefined) return false;
    }
    return true;
  }

  /** JSX text must decode; a spread child (`{...list}`) is left to TypeScript. */
  private childWritable(child: ts.JsxChild): boolean {
    if (this.#ts.isJsxText(child)) return jsxTextValue(child.text, this.#ts) !== null;
    if (this.#ts.isJsxExpression(child)) return child.dotDotDotToken === undefined;
    if (this.#ts.isJsxFragment(child)) return child.children.every((c) => this.childWritable(c));
    return true;
  }

  /** Whether TypeScript passes this as a child at all (blank text across lines and `{}` are dropped). */
  private isChild(child: ts.JsxChild): boolean {
    if (this.#ts.isJsxText(child)) return jsxTextValue(child.text, this.#ts) !== undefined;
    if (this.#ts.isJsxExpression(child)) return child.expression !== undefined;
    return true;
  }

  /** No holes anywhere below: every attribute a literal, every child text or a static element. */
  private isStatic(node: JsxTag): boolean {
    const draft: Draft = { strings: [""], attrs: [], holes: [] };
    this.writeElement(node, draft, true);
    return draft.holes.length === 0;
  }

  /**
   * Writes an element that `inlinable` accepted: its start tag (static attributes as markup,
   * the others as holes), its children, its end tag. `dryRun` only counts holes (no visiting).
   */
  private writeElement(node: JsxTag, draft: Draft, dryRun = false): void {
    const tag = tagName(node, this.#ts) as string;
    const attributes = this.#ts.isJsxElement(node) ? node.openingElement.attributes : node.attributes;
    append(draft, "<" + tag);
    for (const attribute of attributes.properties as ts.NodeArray<ts.JsxAttribute>) {
      const name = attributeName(attribute, this.#ts);
      if (name === "key") continue; // passed apart from the props, and never rendered
      const value = attribute.initializer;
      if (value === undefined) append(draft, " " + name);
      else if (this.#ts.isStringLiteral(value)) append(draft, " " + name + '="' + escapeHtml(decodeJsxEntities(value.text) as string) + '"');
      else {
        const expression = this.#ts.isJsxExpression(value) ? value.expression : value;
        if (expression !== undefined) this.hole(draft, name, expression, dryRun);
      }
    }
    append(draft, ">");
    if (VOID_TAGS.has(tag.toLowerCase())) return;
    if (this.#ts.isJsxElement(node)) this.writeChildren(node.children, draft, dryRun);
    append(draft, "</" + tag + ">");
  }

  private writeChildren(children: readonly ts.JsxChild[], draft: Draft, dryRun: boolean): void {
    for (const child of children) {
      if (this.#ts.isJsxText(child)) {
        const text = jsxTextValue(child.text, this.#ts);
        if (typeof text === "string") append(draft, escapeHtml(text));
      } else if (this.#ts.isJsxExpression(child)) {
        if (child.expression !== undefined) this.hole(draft, null, child.expression, dryRun);
      } else if (this.#ts.isJsxFragment(child)) {
        this.writeChildren(child.children, draft, dryRun);
      } else if ((this.#ts.isJsxElement(child) || this.#ts.isJsxSelfClosingElement(child)) && this.inlinable(child)) {
        this.writeElement(child, draft, dryRun);
      } else {
        this.hole(draft, null, child as ts.Expression, dryRun); // a component, or an element left to the runtime
      }
    }
  }

  private hole(draft: Draft, attr: string | null, expression: ts.Expression, dryRun: boolean): void {
    draft.attrs.push(attr);
    draft.holes.push(dryRun ? expression : this.visitExpression(expression));
    draft.strings.push("");
  }
}

/** Appends markup to the string after the last hole. */
function append(draft: Draft, markup: string): void {
  const last = draft.strings.length - 1;
  draft.strings[last] += markup;
}

function isDirective(statement: ts.Statement, tsApi: typeof ts): boolean {
  return tsApi.isExpressionStatement(statement) && tsApi.isStringLiteral(statement.expression);
}

/**
 * The tag of an HTML element as TypeScript's JSX transform passes it (`"div"`, `"my-el"`,
 * `"svg:rect"`); undefined for a component (`Foo`, `ui.Card`, `this`).
 */
function tagName(node: JsxTag, tsApi: typeof ts): string | undefined {
  const name = tsApi.isJsxElement(node) ? node.openingElement.tagName : node.tagName;
  if (tsApi.isJsxNamespacedName(name)) return `${name.namespace.text}:${name.name.text}`;
  if (!tsApi.isIdentifier(name)) return undefined;
  const text = name.text;
  const first = text.charCodeAt(0);
  return (first >= 97 && first <= 122) || text.includes("-") ? text : undefined;
}

function attributeName(attribute: ts.JsxAttribute, tsApi: typeof ts): string {
  const name = attribute.name;
  return tsApi.isJsxNamespacedName(name) ? `${name.namespace.text}:${name.name.text}` : name.text;
}

/** A `key` that can be dropped without losing a side effect: a literal, a name, or a property path. */
function pureKey(value: ts.JsxAttributeValue | undefined, tsApi: typeof ts): boolean {
  if (value === undefined || tsApi.isStringLiteral(value)) return true;
  if (!tsApi.isJsxExpression(value) || value.expression === undefined) return false;
  let expression: ts.Expression = value.expression;
  while (tsApi.isPropertyAccessExpression(expression)) expression = expression.expression;
  return tsApi.isIdentifier(expression) || tsApi.isLiteralExpression(expression) || expression.kind === tsApi.SyntaxKind.ThisKeyword;
}
