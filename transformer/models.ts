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
}

export interface Discovery {
  readonly ts: typeof ts;
  readonly checker: ts.TypeChecker;
  readonly srcDir: string;
  readonly shown: (file: string) => string;
  readonly findings: Finding[];
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
  const modulePath = path
    .relative(d.srcDir, source.fileName)
    .replace(/\.tsx?$/, "")
    .replace(/(^|[\\/])index$/, "") // a folder's index module is named by its folder
    .split(path.sep)
    .filter((part) => part !== "")
    .join(".");
  const derivations = call.arguments.filter(d.ts.isIdentifier).map((a) => a.text);
  return { name, fqn: [modulePath, ...namespaces, name].join("."), file: source.fileName, call, derivations };
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
