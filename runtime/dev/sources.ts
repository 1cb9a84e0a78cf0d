import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const SOURCE = /\.(?:[cm]?ts|tsx)$/;

/**
 * True when a TypeScript source under `dir` was written at or after `since` (ms since the
 * epoch). A compile during which a source changed is already stale: tsc's watcher will compile
 * again, so its result is not worth a restart. The transformer writing the generated route
 * module mid-compile is the usual case (that compile still emits the old table).
 * Declaration files and `node_modules` are skipped: compiles write the former, and the latter
 * is not the app's source.
 */
export function sourcesChangedSince(dir: string, since: number): boolean {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return false; // a folder removed while walking: nothing in it changed
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules" && entry.name !== ".git" && sourcesChangedSince(path, since)) return true;
    } else if (SOURCE.test(entry.name) && !entry.name.endsWith(".d.ts") && modifiedAt(path) >= since) {
      return true;
    }
  }
  return false;
}

function modifiedAt(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}
