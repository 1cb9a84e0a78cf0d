import * as fs from "node:fs";
import * as path from "node:path";
import { dirSegment, fileRole, isRouteFileName, patternText, type DirSegment, type FileRole } from "./conventions.js";

/** One route file found under the app folder, with what its name and folders say. */
export interface RouteFile {
  /** Absolute path. */
  readonly file: string;
  readonly role: FileRole;
  readonly dirs: readonly DirSegment[];
  readonly pattern: string;
}

const EXTENSIONS = [".tsx", ".ts"];

/**
 * Lists the route files below `appDir` (spec 4.1), sorted by path so the result does not
 * depend on the file system's order. Folders and files whose names start with "." are skipped.
 */
export function scanAppDir(appDir: string): RouteFile[] {
  const found: RouteFile[] = [];
  walk(appDir, [], found);
  return found.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

function walk(dir: string, dirs: readonly DirSegment[], found: RouteFile[]): void {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return; // no app folder yet: no routes
  }
  for (const entry of entries) {
    if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      walk(full, [...dirs, dirSegment(entry.name)], found);
      continue;
    }
    const ext = EXTENSIONS.find((e) => entry.name.endsWith(e));
    if (ext === undefined || entry.name.endsWith(".d.ts")) continue;
    const base = entry.name.slice(0, -ext.length);
    if (!isRouteFileName(base)) continue;
    const role = fileRole(base);
    found.push({ file: full, role, dirs, pattern: patternText(dirs, role.suffix) });
  }
}
