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
  /** Where tsc's own lines go (the terminal shows every diagnostic as tsc wrote it). */
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
    createInterface({ input: this.#child.stdout! }).on("line", (line) => {
      output.line(line);
      if (!line.startsWith("TSFILE: ")) options.out(line);
    });
    createInterface({ input: this.#child.stderr! }).on("line", options.err);
  }

  /** Stops watching; resolves once tsc is gone. */
  async stop(): Promise<void> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill("SIGTERM");
    await this.exited;
  }
}
