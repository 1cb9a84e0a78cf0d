import * as fs from "node:fs";
import * as path from "node:path";
import type * as ts from "typescript";
import { resolveConfig, type PluginOptions } from "./config.js";
import { toDiagnostic, type Finding } from "./diagnostics.js";
import { generate } from "./generate.js";

export type { PluginOptions } from "./config.js";
export { Codes } from "./diagnostics.js";

/**
 * fw's ts-patch program transformer (`"transformProgram": true` in tsconfig's plugins). It
 * generates the route module from the app's files, writes it only when its text changed, and
 * returns a program that includes it, so it is type-checked and emitted in the same compile.
 * User mistakes are reported as diagnostics of the files they are in.
 */
export default function fwTransformer(
  program: ts.Program,
  host: ts.CompilerHost | undefined,
  options: PluginOptions,
  extras: { readonly ts: typeof ts },
): ts.Program {
  const tsApi = extras.ts;
  const configFile = program.getCompilerOptions().configFilePath;
  const projectDir = typeof configFile === "string" ? path.dirname(configFile) : process.cwd();
  const config = resolveConfig(options, projectDir);
  const generated = generate(program, config, tsApi);
  writeIfChanged(config.out, generated.text);
  const next = withGeneratedFile(program, host, config.out, tsApi);
  const errors = generated.findings.filter((f) => f.category === "error");
  printWarnings(generated.findings.filter((f) => f.category === "warning"), tsApi);
  attachFindings(next, errors, config.out, tsApi);
  return next;
}

/**
 * tsc fails a build on any diagnostic, warnings included, so fw's warnings (a `derives` that
 * mounts nothing) are printed in tsc's own format instead, and the build goes on.
 */
function printWarnings(warnings: readonly Finding[], tsApi: typeof ts): void {
  if (warnings.length === 0) return;
  const host: ts.FormatDiagnosticsHost = {
    getCurrentDirectory: () => process.cwd(),
    getCanonicalFileName: (name) => name,
    getNewLine: () => "\n",
  };
  const text = tsApi.formatDiagnostics(warnings.map((w) => toDiagnostic(w, tsApi)), host);
  process.stderr.write(text);
}

function writeIfChanged(file: string, text: string): void {
  let current: string | undefined;
  try {
    current = fs.readFileSync(file, "utf8");
  } catch {
    current = undefined;
  }
  if (current === text) return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/**
 * A program with the generated module among its roots. Parsed files are reused through the
 * host; the generated one is read fresh. When the old program had no generated module (a
 * first build, where an import of it failed to resolve), the old program is not passed, so
 * module resolution runs again and finds the file just written.
 */
function withGeneratedFile(program: ts.Program, host: ts.CompilerHost | undefined, out: string, tsApi: typeof ts): ts.Program {
  const options = program.getCompilerOptions();
  const base = host ?? tsApi.createCompilerHost(options);
  const generatedName = path.resolve(out);
  const reusing: ts.CompilerHost = Object.create(base) as ts.CompilerHost;
  reusing.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    if (path.resolve(fileName) !== generatedName) {
      const parsed = program.getSourceFile(fileName);
      if (parsed !== undefined) return parsed;
    }
    return base.getSourceFile(fileName, languageVersion, onError, shouldCreate);
  };
  // tsc's host caches misses: on a first build it has seen neither the file nor its folder.
  reusing.fileExists = (fileName) => path.resolve(fileName) === generatedName || base.fileExists(fileName);
  const generatedDir = path.dirname(generatedName);
  const baseDirectoryExists = base.directoryExists?.bind(base);
  if (baseDirectoryExists !== undefined) {
    reusing.directoryExists = (dir) => isWithin(generatedDir, path.resolve(dir)) || baseDirectoryExists(dir);
  }
  const roots = program.getRootFileNames().some((name) => path.resolve(name) === generatedName)
    ? program.getRootFileNames()
    : [...program.getRootFileNames(), generatedName];
  const hadGenerated = program.getSourceFile(generatedName) !== undefined;
  return tsApi.createProgram({
    rootNames: roots,
    options,
    host: reusing,
    ...(hadGenerated ? { oldProgram: program } : {}),
    projectReferences: program.getProjectReferences(),
    configFileParsingDiagnostics: program.getConfigFileParsingDiagnostics(),
  });
}

/** `dir` is `inner` or one of its ancestors. */
function isWithin(inner: string, dir: string): boolean {
  return inner === dir || inner.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);
}

type WithProgramDiagnostics = ts.Program & { getProgramDiagnostics?: (file: ts.SourceFile) => readonly ts.Diagnostic[] };

/**
 * Program transformers get no `addDiagnostic`: the findings are added to what the program
 * reports for their files, through `getSemanticDiagnostics` (plain tsc) and the internal
 * `getProgramDiagnostics` (what --watch, --incremental and -b read). Never as global
 * diagnostics, which would make tsc skip the semantic pass.
 */
function attachFindings(program: ts.Program, findings: readonly Finding[], out: string, tsApi: typeof ts): void {
  if (findings.length === 0) return;
  const fallback = program.getSourceFile(out);
  const byFile = new Map<string, ts.Diagnostic[]>();
  for (const finding of findings) {
    const file = finding.file === undefined ? fallback : program.getSourceFile(finding.file.fileName) ?? finding.file;
    const diagnostic = toDiagnostic({ ...finding, file, ...(finding.file === undefined ? { start: 0, length: 0 } : {}) }, tsApi);
    const key = file?.fileName ?? "";
    byFile.set(key, [...(byFile.get(key) ?? []), diagnostic]);
  }
  const mine = (file: ts.SourceFile | undefined): readonly ts.Diagnostic[] =>
    file === undefined ? [...byFile.values()].flat() : (byFile.get(file.fileName) ?? []);
  const semantic = program.getSemanticDiagnostics.bind(program);
  program.getSemanticDiagnostics = (file, token) => [...semantic(file, token), ...mine(file)];
  const internal = program as WithProgramDiagnostics;
  const programDiagnostics = internal.getProgramDiagnostics?.bind(program);
  if (programDiagnostics !== undefined) {
    internal.getProgramDiagnostics = (file) => [...programDiagnostics(file), ...mine(file)];
  }
}
