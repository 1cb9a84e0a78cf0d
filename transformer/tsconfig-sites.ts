import type * as ts from "typescript";
import type { Finding } from "./diagnostics.js";

/** Where in the tsconfig a finding points: the parsed file, and the span of one of its nodes (its first line without one). */
export type TsconfigSite = Pick<Finding, "file" | "start" | "length">;

/** The tsconfig as messages name it (`tsconfig.json`). */
export function tsconfigShown(program: ts.Program, show: (file: string) => string): string {
  const file = program.getCompilerOptions().configFilePath;
  return typeof file === "string" ? show(file) : "tsconfig.json";
}

/**
 * Where TS91017 points: the tsconfig's `plugins` (or, when it inherits them through `extends`,
 * its `compilerOptions`, else its first line).
 */
export function pluginsEntry(program: ts.Program, tsApi: typeof ts): TsconfigSite {
  const file = parsedTsconfig(program);
  if (file === undefined) return { file: undefined };
  const options = member(tsApi, file.statements[0]?.expression, "compilerOptions");
  const plugins = member(tsApi, options?.initializer, "plugins");
  return siteOf(file, plugins?.name ?? options?.name);
}

/**
 * Where a finding about one value of a plugin option points (TS91052): the `index`th element of
 * the option's array in the plugin entry that has it (`"extraRoutes": ["GET /health", …]`), the
 * option itself when it is not an array, else where TS91017 points (the entry is inherited
 * through `extends`, or written elsewhere).
 */
export function pluginOptionEntry(program: ts.Program, tsApi: typeof ts, option: string, index: number): TsconfigSite {
  const file = parsedTsconfig(program);
  if (file === undefined) return { file: undefined };
  const options = member(tsApi, file.statements[0]?.expression, "compilerOptions");
  const plugins = member(tsApi, options?.initializer, "plugins")?.initializer;
  const entries = plugins !== undefined && tsApi.isArrayLiteralExpression(plugins) ? plugins.elements : [];
  const property = entries.map((entry) => member(tsApi, entry, option)).find((found) => found !== undefined);
  if (property === undefined) return pluginsEntry(program, tsApi);
  const value = property.initializer;
  return siteOf(file, tsApi.isArrayLiteralExpression(value) ? (value.elements[index] ?? property.name) : property.name);
}

/** tsc keeps the parsed tsconfig on the compiler options (not in its public types). */
function parsedTsconfig(program: ts.Program): ts.TsConfigSourceFile | undefined {
  const configFile: unknown = program.getCompilerOptions()["configFile"];
  return typeof configFile === "object" && configFile !== null && "statements" in configFile ? (configFile as ts.TsConfigSourceFile) : undefined;
}

function member(tsApi: typeof ts, node: ts.Node | undefined, name: string): ts.PropertyAssignment | undefined {
  return node !== undefined && tsApi.isObjectLiteralExpression(node)
    ? node.properties.find((p): p is ts.PropertyAssignment => tsApi.isPropertyAssignment(p) && tsApi.isStringLiteral(p.name) && p.name.text === name)
    : undefined;
}

/** A parsed tsconfig's nodes have no parents: positions are read against the file itself. */
function siteOf(file: ts.TsConfigSourceFile, node: ts.Node | undefined): TsconfigSite {
  if (node === undefined) return { file };
  const start = node.getStart(file);
  return { file, start, length: node.getEnd() - start };
}
