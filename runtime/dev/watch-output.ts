import type { BuildDiagnostic } from "./protocol.js";

/** One finished compile of `tsc --watch`, read from what it printed. */
export interface BuildResult {
  /** The count tsc reported ("Found 2 errors"). */
  readonly errors: number;
  readonly diagnostics: readonly BuildDiagnostic[];
  /** Absolute paths of the files this compile wrote (`--listEmittedFiles`). */
  readonly emitted: readonly string[];
  /** When its "Starting … compilation" line was read (ms since the epoch). */
  readonly startedAt: number;
}

const STARTED = /(?:Starting compilation in watch mode|Starting incremental compilation)\.\.\.\s*$/;
const FINISHED = /Found (\d+) errors?\. Watching for file changes\./;
const EMITTED = /^TSFILE: (.+)$/;
const IN_FILE = /^(.+)\((\d+),(\d+)\): (error|warning) (TS\d+): (.*)$/;
const NO_FILE = /^(error|warning) (TS\d+): (.*)$/;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * Reads the stdout of `tspc --watch --preserveWatchOutput --pretty false --listEmittedFiles`
 * chunk by chunk and reports each compile once tsc prints its "Found N errors" line. tsc's
 * plain (non-pretty) format puts one diagnostic per line as `file(line,col): error TSxxxx:
 * message`, with the rest of a message chain on the indented lines after it.
 */
export class WatchOutput {
  #partial = "";
  #diagnostics: Mutable<BuildDiagnostic>[] = [];
  #emitted: string[] = [];
  /** The diagnostic that indented lines continue, if the last line began one. */
  #open: Mutable<BuildDiagnostic> | undefined;
  #startedAt = Date.now();

  constructor(private readonly onBuild: (result: BuildResult) => void) {}

  /** Feeds output; complete lines are read now, a trailing partial line waits for the rest. */
  push(chunk: string): void {
    const lines = (this.#partial + chunk).split(/\r?\n/);
    this.#partial = lines.pop() ?? "";
    for (const line of lines) this.line(line);
  }

  /**
   * Reads one complete line (without its line break). True when the line is part of a
   * diagnostic (its first line or one continuing it): those are shown from the `BuildResult`,
   * once per build acted on, not as tsc prints them (docs/guides/dev.md).
   */
  line(line: string): boolean {
    if (STARTED.test(line)) {
      this.#startedAt = Date.now();
      this.#reset();
      return false;
    }
    const finished = FINISHED.exec(line);
    if (finished !== null) {
      this.#finish(Number(finished[1]));
      return false;
    }
    const emitted = EMITTED.exec(line);
    if (emitted !== null) {
      this.#emitted.push((emitted[1] as string).trim());
      return false;
    }
    if (this.#open !== undefined && /^\s+\S/.test(line)) {
      this.#open.message += `\n${line.replace(/^ {2}/, "")}`;
      return true;
    }
    const diagnostic = diagnosticOf(line);
    this.#open = diagnostic;
    if (diagnostic !== undefined) this.#diagnostics.push(diagnostic);
    return diagnostic !== undefined;
  }

  #finish(errors: number): void {
    const result = { errors, diagnostics: this.#diagnostics, emitted: this.#emitted, startedAt: this.#startedAt };
    this.#reset();
    this.onBuild(result);
  }

  #reset(): void {
    this.#diagnostics = [];
    this.#emitted = [];
    this.#open = undefined;
  }
}

/** One diagnostic's first line, or undefined for any other line. */
export function diagnosticOf(line: string): Mutable<BuildDiagnostic> | undefined {
  const inFile = IN_FILE.exec(line);
  if (inFile !== null) {
    // The groups of a match that succeeded are all present.
    return {
      file: inFile[1] as string,
      line: Number(inFile[2]),
      column: Number(inFile[3]),
      category: inFile[4] as "error" | "warning",
      code: inFile[5] as string,
      message: inFile[6] as string,
    };
  }
  const noFile = NO_FILE.exec(line);
  if (noFile === null) return undefined;
  return { category: noFile[1] as "error" | "warning", code: noFile[2] as string, message: noFile[3] as string };
}

/** A diagnostic as tsc prints it (`file(line,col): error TSxxxx: message`, a chain's lines indented). */
export function formatDiagnostic(diagnostic: BuildDiagnostic): string {
  const where = diagnostic.file === undefined ? "" : `${diagnostic.file}${diagnostic.line === undefined ? "" : `(${diagnostic.line},${diagnostic.column ?? 1})`}: `;
  return `${where}${diagnostic.category} ${diagnostic.code}: ${diagnostic.message.replace(/\n/g, "\n  ")}`;
}
