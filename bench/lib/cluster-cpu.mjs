// The CPU time a PostgreSQL cluster spends, read from /proc: its postmaster and every process it
// has forked (the app's backends, the checkpointer, the WAL writer, autovacuum), found by the
// port on the postmaster's command line (`-p PORT`, as spec/support/postgres.ts starts it). A
// page's database share of its cost: what a server's own CPU time per request leaves out.
import { readdirSync, readFileSync } from "node:fs";

function argv(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    return [];
  }
}

/** utime + stime of `pid` in clock ticks and its parent's pid; undefined once it has exited. */
function stat(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return { parent: fields[1], ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return undefined;
  }
}

/** The postmaster listening on `port`: its pid, or undefined. */
function postmasterOf(port) {
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .find((pid) => {
      const args = argv(pid);
      return /postgres$/.test(args[0] ?? "") && args.includes("-p") && args[args.indexOf("-p") + 1] === String(port);
    });
}

/**
 * A function answering the cluster's CPU time so far in clock ticks (1/100 s): the postmaster's and
 * its children's, those alive when called (a backend that exits between two calls takes its time
 * with it: the app's pool keeps its connections). Undefined when no postmaster listens on the
 * cluster URL's port (not on this machine, no /proc).
 */
export function clusterCpu(clusterUrl) {
  const postmaster = postmasterOf(new URL(clusterUrl).port);
  if (postmaster === undefined) return undefined;
  return () => {
    let ticks = stat(postmaster)?.ticks ?? 0;
    for (const pid of readdirSync("/proc")) {
      if (!/^\d+$/.test(pid)) continue;
      const s = stat(pid);
      if (s?.parent === postmaster) ticks += s.ticks;
    }
    return ticks;
  };
}
