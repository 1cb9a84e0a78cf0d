import { availableParallelism } from "node:os";

/** Set in the environment of the processes a `--workers` primary starts. */
export const IN_WORKER_ENV = "FW_WORKER";
/** The most workers `--workers` starts (a typo such as 4000 should not fork-bomb a machine). */
export const MAX_WORKERS = 256;

/** What `--workers` asked for: how many processes, and the arguments each is started with. */
export type WorkersRequest = { readonly count: number; readonly args: readonly string[] } | { readonly problem: string };

/**
 * Reads `--workers`, `--workers N` or `--workers=N` from the program arguments; undefined when
 * absent. Without N, one worker per core (`os.availableParallelism()`). Only serving in
 * production takes it: `dev` is one process that restarts on save, and the other commands do
 * not serve (under `NODE_ENV=production`, `dev` serves production and so takes it too).
 */
export function workersRequest(args: readonly string[], production: boolean): WorkersRequest | undefined {
  const at = args.findIndex((arg) => arg === "--workers" || arg.startsWith("--workers="));
  if (at === -1) return undefined;
  const flag = args[at] as string;
  const next = args[at + 1];
  const given = flag.startsWith("--workers=") ? flag.slice("--workers=".length) : next !== undefined && /^\d+$/.test(next) ? next : undefined;
  const rest = args.filter((_, i) => i !== at && !(i === at + 1 && given !== undefined && !flag.includes("=")));
  const count = given === undefined ? availableParallelism() : Number(given);
  if (!Number.isInteger(count) || count < 1 || count > MAX_WORKERS) {
    return { problem: `--workers takes a whole number of processes from 1 to ${MAX_WORKERS} (or nothing: one per core), not ${JSON.stringify(given)}.` };
  }
  const command = rest[0];
  if (command === "dev" && !production) {
    return { problem: "--workers runs several production processes; dev serves one process that restarts on save. Run `node <main> --workers N` (production, FW_SECRET set) or `dev` without --workers." };
  }
  if (command !== undefined && command !== "dev") {
    return { problem: `--workers goes with serving (no command), not with ${JSON.stringify(command)}.` };
  }
  return { count, args: rest };
}

/**
 * A worker done serving (or failing to boot) lets go of its primary: the IPC channel would keep
 * it alive. Through cluster's own `disconnect`, so the process then exits with its exit code
 * (a bare `process.disconnect()` makes cluster end it with 0 at once).
 */
export async function leavePrimary(): Promise<void> {
  const { default: cluster } = await import("node:cluster");
  if (cluster.worker?.isConnected() === true) cluster.worker.disconnect();
}
