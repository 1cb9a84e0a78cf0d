import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll } from "vitest";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { bootNode } from "./process.js";

export const FIXTURES = resolve("spec/fixtures");
const TSPC = resolve("node_modules/ts-patch/bin/tspc.js");

/**
 * What one tspc build of a fixture may take, on a loaded machine too: a build is CPU-bound, a
 * few seconds on a quiet two-core machine and several times that when the machine is busy (at a
 * load of 6 on two cores, the first builds of spec/transformer/row-cache.test.ts overran the 20 s
 * a test got). A test that builds in its body gets this per build (`it(…, 3 * BUILD_TIMEOUT_MS)`);
 * a hook that builds gets vitest's hookTimeout, the same.
 */
export const BUILD_TIMEOUT_MS = 120_000;

export interface Built {
  readonly code: number | null;
  /** What tspc printed (stdout and stderr together, in order). */
  readonly output: string;
}

/** Builds a fixture app with the real `tspc` (fw's transformer and typia's on), from clean. */
export function tspc(dir: string, args: readonly string[] = []): Promise<Built> {
  rmSync(join(dir, "dist"), { recursive: true, force: true });
  rmSync(join(dir, "src", ".fw"), { recursive: true, force: true });
  rmSync(join(dir, "tsconfig.tsbuildinfo"), { force: true });
  return run(dir, args);
}

/** The error lines of a build's output. */
export function errorLines(output: string): string[] {
  return output.split("\n").filter((line) => line.includes(" error TS"));
}

/**
 * Error lines that are not fw's own diagnostics on one of the app's files or its tsconfig: a
 * typia or TypeScript error, or one on the generated module, means the check came too late.
 */
export function notFws(output: string): string[] {
  return errorLines(output).filter((line) => !/^(src\/(?!\.fw\/)[^(]+|tsconfig\.json)\(\d+,\d+\): error TS91\d\d\d: fw: /.test(line));
}

/** Runs tspc without cleaning first (incremental builds). */
export function run(dir: string, args: readonly string[] = []): Promise<Built> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [TSPC, "-p", dir, ...args], { cwd: dir });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("close", (code) => done({ code, output }));
  });
}

/** Starts `tspc --watch` and lets a test wait for each build to finish. */
export function watch(dir: string): { child: ChildProcess; output: () => string; nextBuild: () => Promise<string> } {
  const child = spawn(process.execPath, [TSPC, "-p", dir, "--watch", "--preserveWatchOutput"], { cwd: dir });
  let output = "";
  let waiting: ((text: string) => void) | undefined;
  let seen = 0;
  const onData = (chunk: Buffer): void => {
    output += chunk.toString();
    const builds = output.match(/Found \d+ errors?\. Watching for file changes\./g)?.length ?? 0;
    if (builds > seen && waiting !== undefined) {
      seen = builds;
      const resolveBuild = waiting;
      waiting = undefined;
      resolveBuild(output);
    }
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  return {
    child,
    output: () => output,
    nextBuild: () =>
      new Promise((ready) => {
        const builds = output.match(/Found \d+ errors?\. Watching for file changes\./g)?.length ?? 0;
        if (builds > seen) {
          seen = builds;
          ready(output);
        } else waiting = ready;
      }),
  };
}

/** A scratch copy of a fixture inside the package (so `fw` still resolves), removed by the caller. */
export function scratchCopy(name: string): string {
  const dir = mkdtempSync(join(FIXTURES, `_tmp-${name}-`));
  cpSync(join(FIXTURES, name), dir, { recursive: true, filter: (src) => !/[\\/](dist|\.fw)$/.test(src) });
  return dir;
}

/** Runs `tasks` at most `limit` at a time (the machine has two cores). */
export async function limited<T>(limit: number, tasks: readonly (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await (tasks[index] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

/**
 * Builds a fixture with tspc and boots its `dist/main.js` for the test file that calls this
 * (the hooks are registered here); `url` and `app` are readable once it is serving.
 */
export function servedFixture(name: string, env: Record<string, string>) {
  const dir = join(FIXTURES, name);
  let app: ReturnType<typeof bootNode> | undefined;
  let url: string | undefined;
  beforeAll(async () => {
    const built = await tspc(dir);
    if (built.code !== 0) throw new Error(`building ${name} failed:\n${built.output}`);
    app = bootNode(join(dir, "dist/main.js"), [], env);
    url = await app.url;
  }, BUILD_TIMEOUT_MS);
  afterAll(async () => {
    app?.child.kill("SIGTERM");
    await app?.exited;
  });
  const serving = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error(`the ${name} fixture is not serving yet`);
    return value;
  };
  return {
    dir,
    get url(): string {
      return serving(url);
    },
    get app(): ReturnType<typeof bootNode> {
      return serving(app);
    },
  };
}
