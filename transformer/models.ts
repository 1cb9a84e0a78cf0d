import * as path from "node:path";
import type * as ts from "typescript";
import { at, Codes, type Finding } from "./diagnostics.js";
import { isFwSymbol } from "./fw-symbols.js";

/** A model found through a `derives<T>(…)` call. */
export interface Model {
  readonly name: string;
  /** Module path under the source root with "/" → ".", the namespaces, then the name (spec 4.5). */
  readonly fqn: string;
  readonly file: string;
  readonly call: ts.CallExpression;
  /** The derivations named in the call (`Form`, `Resource`). */
  readonly derivations: readonly string[];
  /** How the generated module reaches the companion value from the model's module: `Post`, `Blog.Comment`, `registry.Tag`. */
  readonly valuePath: string;
  /** How it names the model type from the model's module: `Post`, `Blog.Comment`. */
  readonly typePath: string;
}

export interface Discovery {
  readonly ts: typeof ts;
  readonly checker: ts.TypeChecker;
  readonly srcDir: string;
  readonly shown: (file: string) => string;
  readonly findings: Finding[];
  /** Names of models that failed the build here (not exported): their stores are not asked of the capabilities module. */
  readonly rejected: Set<string>;
}

/**
 * Finds every model in the program's own files (not declarations, not node_modules), ordered
 * by fully-qualified name. A `derives` nested in a function, class or block gets a warning and
 * no routes.
 */
export function discoverModels(d: Discovery, files: readonly ts.SourceFile[]): Model[] {
  const models: Model[] = [];
  for (const source of files) {
    if (source.isDeclarationFile || source.fileName.includes("/node_modules/") || !source.text.includes("derives")) continue;
    visit(d, source, source, models);
  }
  return models.sort((a, b) => (a.fqn < b.fqn ? -1 : a.fqn > b.fqn ? 1 : 0));
}

function visit(d: Discovery, source: ts.SourceFile, node: ts.Node, models: Model[]): void {
  if (d.ts.isCallExpression(node) && isDerivesCall(d, node)) {
    const model = modelOf(d, source, node);
    if (model !== undefined) models.push(model);
  }
  d.ts.forEachChild(node, (child) => visit(d, source, child, models));
}

function isDerivesCall(d: Discovery, call: ts.CallExpression): boolean {
  const callee = d.ts.isPropertyAccessExpression(call.expression) ? call.expression.name : call.expression;
  return isFwSymbol(d.checker, d.checker.getSymbolAtLocation(callee), "derives", "derives", d.ts);
}

function modelOf(d: Discovery, source: ts.SourceFile, call: ts.CallExpression): Model | undefined {
  const typeArgument = call.typeArguments?.[0];
  const name = typeArgument !== undefined && d.ts.isTypeReferenceNode(typeArgument) ? typeArgument.typeName.getText(source) : undefined;
  if (name === undefined) {
    d.findings.push({ code: Codes.nestedDerives, category: "warning", file: source, ...at(call), message: `${d.shown(source.fileName)}: \`derives\` needs the model type as its type argument, e.g. derives<Post>(Form, Resource). No routes are derived from this call.` });
    return undefined;
  }
  const namespaces = enclosingNamespaces(d, call);
  if (namespaces === undefined) {
    d.findings.push({
      code: Codes.nestedDerives,
      category: "warning",
      file: source,
      ...at(call),
      message: `${d.shown(source.fileName)}: derives<${name}> is inside a function, class or block, so fw derives no routes for ${name}. Move it to the module's top level (namespaces and plain object literals are fine).`,
    });
    return undefined;
  }
  const modulePath = modulePathOf(d.srcDir, source.fileName, name);
  const derivations = call.arguments.filter(d.ts.isIdentifier).map((a) => a.text);
  const valuePath = valuePathOf(d, call);
  const typePath = typePathOf(d, typeArgument as ts.TypeReferenceNode, name);
  if (valuePath === undefined || !isExported(d, source, valuePath, d.ts.SymbolFlags.Value) || !isExported(d, source, typePath, d.ts.SymbolFlags.Type)) {
    d.rejected.add(name);
    d.findings.push({
      code: Codes.modelNotExported,
      category: "error",
      file: source,
      ...at(call),
      message: `${d.shown(source.fileName)}: the model ${name} and its companion must be exported for fw to mount its routes: \`export interface ${name} { … }\` and \`export const ${name} = derives<${name}>(…)\`.`,
    });
    return undefined;
  }
  return { name, fqn: [modulePath, ...namespaces, name].join("."), file: source.fileName, call, derivations, valuePath, typePath };
}

/**
 * The module's part of a fully-qualified name: its folders under the source root, then the
 * file's name unless that is `index` or the model's own name (`src/models/Post.ts` holding
 * Post is `models.Post`, as a Scala package and class would be).
 */
function modulePathOf(srcDir: string, file: string, model: string): string {
  const parts = path.relative(srcDir, file).replace(/\.tsx?$/, "").split(path.sep);
  const base = parts[parts.length - 1];
  if (base === "index" || base === model) parts.pop();
  return parts.filter((part) => part !== "").join(".");
}

/** The names from the module down to the call: variables, namespaces, object-literal keys. */
function valuePathOf(d: Discovery, call: ts.CallExpression): string | undefined {
  const names: string[] = [];
  let node: ts.Node = call;
  while (!d.ts.isSourceFile(node)) {
    const parent = node.parent;
    if ((d.ts.isVariableDeclaration(parent) || d.ts.isPropertyAssignment(parent)) && parent.initializer === node) {
      if (!d.ts.isIdentifier(parent.name)) return undefined;
      names.push(parent.name.text);
    } else if (d.ts.isModuleDeclaration(parent)) {
      names.push(parent.name.getText());
    }
    node = parent;
  }
  return names.reverse().join(".");
}

/** The model type's name as seen from its module, namespaces included. */
function typePathOf(d: Discovery, node: ts.TypeReferenceNode, name: string): string {
  const symbol = d.checker.getTypeFromTypeNode(node).aliasSymbol ?? d.checker.getTypeFromTypeNode(node).getSymbol();
  const full = symbol === undefined ? name : d.checker.getFullyQualifiedName(symbol);
  return full.replace(/^"[^"]*"\./, "");
}

/** The first name of `path` is exported with the meaning asked for (a value, or a type: a const and an interface share a name). */
function isExported(d: Discovery, source: ts.SourceFile, path: string, meaning: ts.SymbolFlags): boolean {
  const module = d.checker.getSymbolAtLocation(source);
  const names = path.split(".");
  const exported = module === undefined ? undefined : d.checker.getExportsOfModule(module).find((symbol) => symbol.getName() === names[0]);
  if (exported === undefined) return false;
  const target = exported.flags & d.ts.SymbolFlags.Alias ? d.checker.getAliasedSymbol(exported) : exported;
  // Inside a namespace the first name is the namespace itself; the rest is checked by the compiler.
  return names.length > 1 || (target.flags & meaning) !== 0;
}

/** The namespaces around a call that sits at top level; undefined when anything else encloses it. */
function enclosingNamespaces(d: Discovery, call: ts.CallExpression): string[] | undefined {
  const names: string[] = [];
  let node: ts.Node = call;
  for (;;) {
    const parent = node.parent;
    if (d.ts.isSourceFile(parent)) return names.reverse();
    if (d.ts.isVariableDeclaration(parent) && parent.initializer === node) {
      node = parent.parent.parent; // the VariableStatement
    } else if (d.ts.isPropertyAssignment(parent) && parent.initializer === node) {
      node = parent.parent; // the object literal
    } else if (d.ts.isModuleBlock(parent)) {
      node = parent.parent;
      names.push((node as ts.ModuleDeclaration).name.getText());
    } else if (d.ts.isModuleDeclaration(parent) && parent.body === node) {
      node = parent; // `namespace A.B`: B's declaration sits in A's
      names.push(parent.name.getText());
    } else {
      return undefined;
    }
  }
}
