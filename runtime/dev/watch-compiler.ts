import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { WatchOutput, type BuildResult } from "./watch-output.js";

export interface WatchCompilerOptions {
  /** ts-patch's tspc.js. */
  readonly tspc: string;
  /** The directory holding the app's tsconfig.json (or the tsconfig file itself). */
  readonly project: string;
  readonly cwd: string;
  readonly onBuild: (result: BuildResult) => void;
  /** Where tsc's own lines go, but its diagnostics (the supervisor prints those, once per build). */
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

/**
 * `tspc --watch` over the app: the transformer runs on every compile, so the generated route
 * table follows added and removed route files. Plain output (`--pretty false`) and the emitted
 * file list are what `WatchOutput` reads; the list itself is not shown.
 */
export class WatchCompiler {
  readonly #child: ChildProcess;
  readonly exited: Promise<number | null>;

  constructor(options: WatchCompilerOptions) {
    const args = [options.tspc, "-p", options.project, "--watch", "--preserveWatchOutput", "--pretty", "false", "--listEmittedFiles"];
    this.#child = spawn(process.execPath, args, { cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"] });
    this.exited = new Promise((resolve) => {
      this.#child.once("exit", (code) => resolve(code));
      this.#child.once("error", () => resolve(null));
    });
    const output = new WatchOutput(options.onBuild);
    // Both streams exist: stdio is "pipe" for them.
    // Diagnostics are not passed through: the supervisor prints them once per build it acts on.
    // tsc prints them on every compile, and a compile the transformer's own write to
    // src/.fw/ makes stale is followed by another one printing the same errors again.
    createInterface({ input: this.#child.stdout! }).on("line", (line) => {
      if (!output.line(line) && !line.startsWith("TSFILE: ")) options.out(line);
    });
    createInterface({ input: this.#child.stderr! }).on("line", options.err);
  }

  /** Stops watching; resolves once tsc is gone. */
  async stop(): Promise<void> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill("SIGTERM");
    await this.exited;
  }
}
