import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { CannotOpenDatabase } from "./open-error.js";

/** The file in the data directory that says which process has the embedded database open. */
export const LOCK_FILE = "fw.lock";

/**
 * PGlite has no lock of its own: two processes on one directory would both write and damage
 * it. The first to open writes its pid into `fw.lock`; another waits up to `waitMs` (a `dev`
 * restart overlapping its predecessor's exit) and then refuses, naming the holder. A lock whose
 * process is gone (killed, crashed) is taken over.
 * @returns releases the lock.
 */
export async function lockDirectory(directory: string, waitMs = 10_000): Promise<() => void> {
  const path = join(directory, LOCK_FILE);
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      writeFileSync(path, String(process.pid), { flag: "wx" });
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as { code?: string }).code !== "EEXIST") throw error;
    }
    const holder = Number(readFileSync(path, "utf8").trim());
    if (!alive(holder)) {
      rmSync(path, { force: true }); // stale: its process is gone
      continue;
    }
    if (Date.now() >= deadline || holder === process.pid) {
      throw new CannotOpenDatabase(
        `fw/db: the embedded database in ${directory} is already open in ${holder === process.pid ? "this process" : `another process (pid ${holder})`}: PGlite allows one process at a time. ` +
          "Stop that process (a running app, or a db command) and try again; or set DATABASE_URL to share a PostgreSQL server between processes.",
      );
    }
    await sleep(200);
  }
}

function alive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === "EPERM";
  }
}
