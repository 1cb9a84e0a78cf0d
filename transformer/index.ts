import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import type * as ts from "typescript";
import { resolveConfig, shown, type PluginOptions } from "./config.js";
import { apiModuleOf } from "./api-module.js";
import { emitApiModule } from "./emit-api.js";
import { emitFactoriesModule } from "./emit-factories.js";
import { toDiagnostic, type Finding } from "./diagnostics.js";
import { explainFailureMisuse } from "./failure-misuse.js";
import { generate, typiaMissing } from "./generate.js";
import { RowCache } from "./row-cache.js";
import { scanAppDir } from "./scan.js";
import { removeStaleOutputs } from "./stale-outputs.js";
import { generateJobs, scanJobsDir } from "./jobs.js";
import { fixedTypiaTag, fixTypiaTagsOf, holdsFixedTags, unknownTypiaTags } from "./typia-tags.js";

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
  replayReleases(host, program);
  // typia's tags as fw compiles them (typia-tags.ts): the host hands out the fixed declarations.
  if (host !== undefined) fixTypiaTagsOf(host, tsApi);
  const configFile = program.getCompilerOptions().configFilePath;
  const projectDir = typeof configFile === "string" ? path.dirname(configFile) : process.cwd();
  const config = resolveConfig(options, projectDir);
  const found = scanAppDir(config.appDir);
  const jobFiles = scanJobsDir(config.jobsDir);
  // Route files on disk that the program lacks (outside \`include\`, or just added while a
  // watcher has not caught up) are added first, so their handlers can be read (job files too).
  const missing = [...found.map((route) => route.file), ...jobFiles].filter((file) => program.getSourceFile(file) === undefined);
  // …and route files a watcher still lists after they were renamed or deleted are dropped.
  const vanished = program.getRootFileNames().filter((file) => isWithin(path.resolve(path.dirname(file)), config.appDir) && !fs.existsSync(file));
  const routeFiles = [...found.map((route) => route.file), ...jobFiles];
  const complete =
    missing.length === 0 && vanished.length === 0
      ? program
      : withRoots(program, host, tsApi, { roots: routeFiles, fresh: missing, dropped: vanished, generated: config.out });
  const cache = RowCache.load(path.join(path.dirname(config.out), "rows.json"));
  const generated = generate(complete, config, tsApi, found, cache);
  writeIfChanged(config.out, generated.text);
  // The API module (issue 31: fw/client's types, the OpenAPI description) in a file of its own.
  const apiFile = apiModuleOf(config.out);
  const apiText = emitApiModule({ out: config.out, fwModule: config.fwModule, rows: generated.rows, appDirShown: shown(config, config.appDir) });
  writeIfChanged(apiFile, apiText);
  // The typed path builder (issue 31), beside the routes too.
  writeIfChanged(config.paths, generated.paths);
  // The models' factories for the app's tests (issue 43), written while the app has models with a store.
  const factoriesText = generated.derived.length === 0 ? undefined : emitFactoriesModule({ file: config.factories, routes: config.out, testingModule: config.testingModule, appDirShown: shown(config, config.appDir), derived: generated.derived });
  if (factoriesText === undefined) fs.rmSync(config.factories, { force: true });
  else writeIfChanged(config.factories, factoriesText);
  const factoriesOut = factoriesText === undefined ? [] : [config.factories];
  cache.save();
  // The jobs module (issue 32), beside the routes: written only while there are job files.
  const jobs = generateJobs(complete, tsApi, config, jobFiles, generated);
  if (jobs.text === undefined) fs.rmSync(config.jobsOut, { force: true });
  else writeIfChanged(config.jobsOut, jobs.text);
  const jobsOut = jobs.text === undefined ? [] : [config.jobsOut];
  // Nothing changed (the usual --incremental or watch rebuild after editing a handler): the
  // program already holds the generated modules as generated, so no second program is built.
  // It must hold typia's tags fixed too: a watch's host hands them out from its second compile
  // on, where a one-off build's first program read typia's own (about 0.2 s more on the example).
  const unchanged =
    complete === program &&
    holdsFixedTags(program) &&
    program.getSourceFile(config.out)?.text === generated.text &&
    program.getSourceFile(apiFile)?.text === apiText &&
    program.getSourceFile(config.paths)?.text === generated.paths &&
    program.getSourceFile(config.jobsOut)?.text === jobs.text &&
    program.getSourceFile(config.factories)?.text === factoriesText;
  const next = unchanged
    ? program
    : withRoots(complete, host, tsApi, {
        roots: [...routeFiles, config.out, apiFile, config.paths, ...jobsOut, ...factoriesOut],
        fresh: [...missing, config.out, apiFile, config.paths, ...jobsOut, ...factoriesOut],
        dropped: [],
        generated: config.out,
        generatedText: generated.text,
        alongside: new Map([
          [path.resolve(apiFile), apiText],
          [path.resolve(config.paths), generated.paths],
          ...(factoriesText === undefined ? [] : [[path.resolve(config.factories), factoriesText] as [string, string]]),
        ]),
      });
  const typia = jobs.text === undefined ? undefined : typiaMissing(complete, tsApi, (file) => shown(config, file), `the generated jobs module (${shown(config, config.jobsOut)}) calls typia (each job's payload type)`);
  const jobErrors = typia === undefined ? jobs.findings : [...jobs.findings, typia];
  const errors = [...generated.findings, ...jobErrors].filter((f) => f.category === "error");
  printWarnings(generated.findings.filter((f) => f.category === "warning"), tsApi);
  warnUnknownTypiaTags();
  attachFindings(next, errors, config.out, tsApi);
  explainFailureMisuse(next, tsApi);
  cleanOutputs(next, host, tsApi);
  return next;
}

/** The outputs of deleted sources go (stale-outputs.ts); a file that cannot be deleted is said, and the build goes on. */
function cleanOutputs(program: ts.Program, host: ts.CompilerHost | undefined, tsApi: typeof ts): void {
  try {
    removeStaleOutputs(program, tsApi, host?.useCaseSensitiveFileNames() ?? tsApi.sys.useCaseSensitiveFileNames);
  } catch (error) {
    process.stderr.write(`fw: could not remove the outputs of deleted sources (${error instanceof Error ? error.message : String(error)}); the build goes on\n`);
  }
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

let warnedTypia = false;

/** Once a process: typia's tag declarations were not the text fw fixes (another typia than fw's 12.2.1). */
function warnUnknownTypiaTags(): void {
  const unknown = unknownTypiaTags();
  if (warnedTypia || unknown.length === 0) return;
  warnedTypia = true;
  process.stderr.write(
    `fw: warning: ${unknown.map((file) => path.basename(file)).join(", ")} of typia is not the text fw compiles fixed (typia 12.2.1's): string lengths may be counted in UTF-16 code units and integer ranges left out of JSON Schemas. Install the typia fw depends on.\n`,
  );
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
 * A program whose roots include every route file and the generated module, and leave out
 * route files that no longer exist. Parsed files are reused through the host; fresh ones are
 * read from disk, and the host's
 * cached misses for them are bypassed (tsc has seen neither the file nor its folder on a first
 * build). When the old program lacked one of them, it is not passed as `oldProgram`, so module
 * resolution runs again and finds the files just written.
 */
interface RootChanges {
  /** Files that must be roots (every route file found, the generated module). */
  readonly roots: readonly string[];
  /** Files to read from disk rather than reuse (new ones, the generated module). */
  readonly fresh: readonly string[];
  /** Roots to leave out (route files that no longer exist). */
  readonly dropped: readonly string[];
  readonly generated: string;
  /**
   * The generated module's text, parsed as is: a watch host would hand back its cached copy of
   * the file until its watcher fires, and that compile would emit the previous table.
   */
  readonly generatedText?: string;
  /** Other generated modules (the API module, the path builder) by absolute path, with their texts: parsed and resolved as the generated module is. */
  readonly alongside?: ReadonlyMap<string, string>;
}

function withRoots(program: ts.Program, host: ts.CompilerHost | undefined, tsApi: typeof ts, changes: RootChanges): ts.Program {
  const options = program.getCompilerOptions();
  const base = host ?? tsApi.createCompilerHost(options);
  fixTypiaTagsOf(base, tsApi);
  const fresh = new Set(changes.fresh.map((file) => path.resolve(file)));
  const reusing: ts.CompilerHost = Object.create(base) as ts.CompilerHost;
  const generatedPath = path.resolve(changes.generated);
  reusing.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    if (changes.generatedText !== undefined && path.resolve(fileName) === generatedPath) {
      return parsedWithVersion(tsApi, fileName, changes.generatedText, languageVersion);
    }
    const alongside = changes.alongside?.get(path.resolve(fileName));
    if (alongside !== undefined) return parsedWithVersion(tsApi, fileName, alongside, languageVersion);
    if (!fresh.has(path.resolve(fileName))) {
      const parsed = program.getSourceFile(fileName);
      if (parsed !== undefined) return fixedTypiaTag(tsApi, parsed, languageVersion);
    }
    const read = base.getSourceFile(fileName, languageVersion, onError, shouldCreate);
    if (read !== undefined || !fs.existsSync(fileName)) return read;
    // A watch host may still list a just-renamed file as missing; the disk says otherwise.
    return tsApi.createSourceFile(fileName, fs.readFileSync(fileName, "utf8"), languageVersion);
  };
  deferReleases(reusing, base);
  reusing.fileExists = (fileName) => fresh.has(path.resolve(fileName)) || base.fileExists(fileName);
  const baseDirectoryExists = base.directoryExists?.bind(base);
  if (baseDirectoryExists !== undefined) {
    reusing.directoryExists = (dir) => [...fresh].some((file) => isWithin(path.dirname(file), path.resolve(dir))) || baseDirectoryExists(dir);
  }
  resolveFreshImports(reusing, base, fresh, new Set([path.resolve(changes.generated), ...(changes.alongside?.keys() ?? [])]), tsApi);
  const gone = new Set(changes.dropped.map((file) => path.resolve(file)));
  const kept = program.getRootFileNames().filter((name) => !gone.has(path.resolve(name)));
  const known = new Set(kept.map((name) => path.resolve(name)));
  const roots = [...kept, ...changes.roots.map((file) => path.resolve(file)).filter((file) => !known.has(file))];
  const reuse = gone.size === 0 && [...fresh].every((file) => program.getSourceFile(file) !== undefined);
  return tsApi.createProgram({
    rootNames: roots,
    options,
    host: reusing,
    ...(reuse ? { oldProgram: program } : {}),
    projectReferences: program.getProjectReferences(),
    configFileParsingDiagnostics: program.getConfigFileParsingDiagnostics(),
  });
}

/** Old files a program of ours let go of that the host must forget, by host: replayed at the next compile. */
const pendingReleases = new WeakMap<ts.CompilerHost, ts.SourceFile[]>();

/** TypeScript's internal hook (not in its public types): a program tells its host it let go of an old program's file. */
type ReleaseOld = (old: ts.SourceFile, oldOptions: ts.CompilerOptions, kept: boolean, ...rest: unknown[]) => void;
type Releasing = ts.CompilerHost & { onReleaseOldSourceFile?: ReleaseOld };

/**
 * A watch host forgets a file's module resolutions when a program lets go of the file. Ours is
 * built inside the watch's own compile, after the watch resolved that compile's imports but before
 * it starts watching the lookups it deferred: forgetting then leaves one of those with no file,
 * and tsc fails an internal assertion ("Debug Failure. False expression." in
 * watchFailedLookupLocationOfResolution) when the table drops a route file the stale table on
 * disk still imported (a renamed folder). A file our program keeps is released at once, as before;
 * one it drops is released at the start of the next compile (replayReleases), outside that window.
 */
function deferReleases(reusing: ts.CompilerHost, base: ts.CompilerHost): void {
  const release = (base as Releasing).onReleaseOldSourceFile?.bind(base);
  if (release === undefined) return;
  (reusing as Releasing).onReleaseOldSourceFile = (old, oldOptions, kept, ...rest) => {
    if (kept) return release(old, oldOptions, kept, ...rest);
    pendingReleases.set(base, [...(pendingReleases.get(base) ?? []), old]);
  };
}

/** Releases the files deferReleases held back, each told whether the compile now running still has it. */
function replayReleases(host: ts.CompilerHost | undefined, program: ts.Program): void {
  const pending = host === undefined ? undefined : pendingReleases.get(host);
  const release = (host as Releasing | undefined)?.onReleaseOldSourceFile?.bind(host);
  if (host === undefined || pending === undefined || release === undefined) return;
  pendingReleases.delete(host);
  for (const old of pending) release(old, program.getCompilerOptions(), program.getSourceFile(old.fileName) !== undefined);
}

/** A source file parsed from `text`, versioned by its content as a watch builder expects. */
function parsedWithVersion(tsApi: typeof ts, fileName: string, text: string, languageVersion: ts.ScriptTarget | ts.CreateSourceFileOptions): ts.SourceFile {
  const parsed = tsApi.createSourceFile(fileName, text, languageVersion);
  (parsed as ts.SourceFile & { version?: string }).version = createHash("sha1").update(text).digest("hex");
  return parsed;
}

/**
 * A watch host caches module resolution and directory listings: on a first build it remembers
 * that the generated module was missing, after a rename that the new folder was. Imports that
 * point at a fresh file, and every relative import of the generated module, are resolved here
 * against the disk instead.
 */
function resolveFreshImports(reusing: ts.CompilerHost, base: ts.CompilerHost, fresh: ReadonlySet<string>, generated: ReadonlySet<string>, tsApi: typeof ts): void {
  const target = (specifier: string, containingFile: string): string | undefined => {
    if (!specifier.startsWith(".")) return undefined;
    const base = path.resolve(path.dirname(containingFile), specifier.replace(/\.js$/, ""));
    const candidates = [`${base}.ts`, `${base}.tsx`];
    const known = candidates.find((file) => fresh.has(file));
    if (known !== undefined) return known;
    // The generated module imports only files just found on disk: a cached miss is stale.
    return generated.has(path.resolve(containingFile)) ? candidates.find((file) => fs.existsSync(file)) : undefined;
  };
  const resolvedAs = (file: string): ts.ResolvedModuleFull => ({
    resolvedFileName: file,
    extension: file.endsWith(".tsx") ? tsApi.Extension.Tsx : tsApi.Extension.Ts,
    isExternalLibraryImport: false,
  });
  const literals = base.resolveModuleNameLiterals?.bind(base);
  if (literals !== undefined) {
    reusing.resolveModuleNameLiterals = (names, containingFile, ...rest) =>
      literals(names, containingFile, ...rest).map((result, i) => {
        const file = result.resolvedModule === undefined ? target((names[i] as ts.StringLiteralLike).text, containingFile) : undefined;
        return file === undefined ? result : { resolvedModule: resolvedAs(file) };
      });
  }
  const plain = base.resolveModuleNames?.bind(base);
  if (plain !== undefined) {
    reusing.resolveModuleNames = (names, containingFile, ...rest) =>
      plain(names, containingFile, ...rest).map((result, i) => {
        const file = target(names[i] as string, containingFile);
        return result ?? (file === undefined ? undefined : resolvedAs(file));
      });
  }
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
    const inProgram = finding.file === undefined ? undefined : program.getSourceFile(finding.file.fileName);
    const file = finding.file === undefined ? fallback : (inProgram ?? finding.file);
    const diagnostic = toDiagnostic({ ...finding, file, ...(finding.file === undefined ? { start: 0, length: 0 } : {}) }, tsApi);
    // A finding about a file outside the program (the tsconfig) is reported with the generated
    // module's diagnostics, which every kind of build asks for, but still names its own file.
    const key = (inProgram ?? fallback)?.fileName ?? "";
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
