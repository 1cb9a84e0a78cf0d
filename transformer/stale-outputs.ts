import * as fs from "node:fs";
import * as path from "node:path";
import type * as ts from "typescript";

/** Where a build lists what it writes, in the output folder beside what it lists. */
export const OUTPUTS_LEDGER = ".fw-outputs.json";

/**
 * Removes what an earlier build wrote for sources that are gone. `tsc` never deletes an output,
 * so a deleted `src/tests/home.test.ts` left `dist/tests/home.test.js`, which an app's
 * `node --test dist/tests/*.test.js` went on running (issue 39, item 15); a deleted route or job
 * file left its module beside the others. Each build lists the files its program emits
 * (`outDir/.fw-outputs.json`: paths relative to `outDir`); a file the last list named that this
 * build will not write is deleted, with the folders it leaves empty. Files no build of fw's listed
 * (`fw bundle`'s, one put there by hand) are never touched, nor anything outside `outDir`.
 * Nothing is done without an `outDir` (outputs beside their sources), with `outFile` or `noEmit`.
 * Answers the files it deleted, relative to `outDir`.
 */
export function removeStaleOutputs(program: ts.Program, tsApi: typeof ts, caseSensitive: boolean): readonly string[] {
  const options = program.getCompilerOptions();
  if (options.outDir === undefined || options.outFile !== undefined || options.noEmit === true || options.configFilePath === undefined) return [];
  const outDir = path.resolve(options.outDir);
  const expected = emittedOutputs(program, tsApi, caseSensitive, outDir);
  const ledger = path.join(outDir, OUTPUTS_LEDGER);
  const stale = listed(ledger).filter((file) => !expected.has(file));
  for (const file of stale) remove(outDir, file);
  const text = `${JSON.stringify([...expected].sort(), null, 1)}\n`;
  if (readText(ledger) !== text) {
    fs.mkdirSync(outDir, { recursive: true });
    fs.writeFileSync(ledger, text);
  }
  return stale;
}

/** What the program emits into `outDir`, by path relative to it with `/`: its own sources' outputs (a library's or a declaration file's none). */
function emittedOutputs(program: ts.Program, tsApi: typeof ts, caseSensitive: boolean, outDir: string): Set<string> {
  const sources = program.getSourceFiles().filter((file) => !file.isDeclarationFile && !program.isSourceFileFromExternalLibrary(file) && !program.isSourceFileDefaultLibrary(file));
  const commandLine: ts.ParsedCommandLine = { options: program.getCompilerOptions(), fileNames: sources.map((file) => file.fileName), errors: [] };
  const outputs = new Set<string>();
  for (const source of sources) {
    for (const output of tsApi.getOutputFileNames(commandLine, source.fileName, !caseSensitive)) {
      const relative = inside(outDir, output);
      if (relative !== undefined) outputs.add(relative);
    }
  }
  return outputs;
}

/** The paths the last build listed; none when there is no list (a first build) or it cannot be read. */
function listed(ledger: string): string[] {
  const text = readText(ledger);
  if (text === undefined) return [];
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.filter((entry): entry is string => typeof entry === "string") : [];
  } catch {
    return []; // a list cut short: the next build writes it whole
  }
}

/** Deletes `file` (relative to `outDir`, and only inside it), then the folders it leaves empty up to `outDir`. */
function remove(outDir: string, file: string): void {
  const absolute = path.resolve(outDir, file);
  if (inside(outDir, absolute) === undefined) return;
  fs.rmSync(absolute, { force: true });
  for (let dir = path.dirname(absolute); dir !== outDir && inside(outDir, dir) !== undefined; dir = path.dirname(dir)) {
    try {
      fs.rmdirSync(dir); // only an empty folder goes
    } catch {
      return;
    }
  }
}

/** `file` relative to `dir` with `/`, or undefined when it is not inside it. */
function inside(dir: string, file: string): string | undefined {
  const relative = path.relative(dir, path.resolve(file));
  if (relative === "" || relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) return undefined;
  return relative.split(path.sep).join("/");
}

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}
