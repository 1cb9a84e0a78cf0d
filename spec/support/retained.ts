import { spawnSync } from "node:child_process";

/** A module of the built runtime (dist/, which `npm test` builds first), as an import specifier for `retainedBytes`' scripts. */
export function distModule(path: string): string {
  return JSON.stringify(new URL(`../../dist/runtime/${path}`, import.meta.url).href);
}

/**
 * Runs `setup`, then `work` between two full collections, in a fresh Node with --expose-gc, and
 * returns how many heap bytes `work` left alive. `work` keeps what it means to keep reachable
 * (in `globalThis.kept`, say); `setup` runs first, so what it allocates is not counted.
 */
export function retainedBytes(setup: string, work: string): number {
  // It exits once it has printed, whatever `setup` left open (a listening server, for one).
  const script = `${setup}\nglobalThis.gc();\nconst before = process.memoryUsage().heapUsed;\n${work}\nglobalThis.gc();\nconsole.log(process.memoryUsage().heapUsed - before);\nprocess.exit(0);`;
  const run = spawnSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", script], { encoding: "utf8", timeout: 60_000 });
  if (run.status !== 0 || run.stderr !== "") throw new Error(`the measuring script failed (${run.status}):\n${run.stderr}`);
  return Number(run.stdout.trim());
}
