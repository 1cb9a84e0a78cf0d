import type * as ts from "typescript";
import { Codes, type Finding } from "./diagnostics.js";
import type { RouteFile } from "./scan.js";

/**
 * What the build can see of spec 4.1/4.3 before the server boots: a catch-all folder that is
 * not last, a parameter name used twice, and two files mounting one method and path. The
 * runtime checks all of these again at boot, for hand-built tables.
 */
export function checkRouteFiles(
  routes: readonly RouteFile[],
  sourceOf: (file: string) => ts.SourceFile | undefined,
  shown: (file: string) => string,
  findings: Finding[],
): RouteFile[] {
  const valid = routes.filter((route) => checkPattern(route, sourceOf(route.file), shown, findings));
  const seen = new Map<string, RouteFile>();
  const kept: RouteFile[] = [];
  for (const route of valid) {
    const key = `${route.role.method} ${shapeOf(route.pattern)}`;
    const earlier = seen.get(key);
    if (earlier === undefined) {
      seen.set(key, route);
      kept.push(route);
      continue;
    }
    findings.push({
      code: Codes.duplicateRoute,
      category: "error",
      file: sourceOf(route.file),
      message: `${shown(route.file)} and ${shown(earlier.file)} both mount ${route.role.method} ${route.pattern}${route.pattern === earlier.pattern ? "" : ` (as ${earlier.pattern})`}. Remove or rename one of them.`,
    });
  }
  return kept;
}

function checkPattern(route: RouteFile, source: ts.SourceFile | undefined, shown: (f: string) => string, findings: Finding[]): boolean {
  const segments = route.pattern === "/" ? [] : route.pattern.slice(1).split("/");
  const restAt = segments.findIndex((s) => s.startsWith("*"));
  if (restAt !== -1 && restAt !== segments.length - 1) {
    findings.push({
      code: Codes.catchAllNotLast,
      category: "error",
      file: source,
      message: `${shown(route.file)} mounts ${route.role.method} ${route.pattern}: the catch-all folder \`__${(segments[restAt] as string).slice(1)}\` captures everything left, so nothing may follow it. Move this file into the folder that holds \`__${(segments[restAt] as string).slice(1)}\`, or use a \`_name\` folder for one segment.`,
    });
    return false;
  }
  const names = segments.filter((s) => s.startsWith(":") || s.startsWith("*")).map((s) => s.slice(1));
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined) {
    findings.push({
      code: Codes.duplicateParamName,
      category: "error",
      file: source,
      message: `${shown(route.file)} mounts ${route.role.method} ${route.pattern}, which uses the parameter name \`${twice}\` twice. Rename one of the \`_${twice}\` folders.`,
    });
    return false;
  }
  return true;
}

function shapeOf(pattern: string): string {
  return pattern.replace(/\/:[^/]+/g, "/:").replace(/\/\*[^/]+$/, "/*");
}

/** A table row as the reachability check reads it (see emit.ts Row). */
interface Placed {
  readonly file: string;
  readonly method: string;
  readonly pattern: string;
}

/**
 * Spec 4.2 puts a longer path before a shorter one, and a catch-all matches an empty rest, so
 * `docs/__rest/Show.ts` (GET /docs/*rest) answers /docs before `docs/Index.ts` is tried. Such a
 * file can never be reached and, its row being generated, cannot be moved before the catch-all
 * either: the build fails on it, saying what to do instead. `rows` are in table order.
 */
export function checkReachable(rows: readonly Placed[], sourceOf: (file: string) => ts.SourceFile | undefined, shown: (file: string) => string, findings: Finding[]): void {
  const catchAlls = rows.flatMap((row, rank) => (/\/\*[^/]+$/.test(row.pattern) ? [{ row, rank }] : []));
  if (catchAlls.length === 0) return;
  rows.forEach((row, rank) => {
    const by = catchAlls.find((c) => c.rank < rank && c.row.method === row.method && covers(c.row.pattern, row.pattern))?.row;
    if (by === undefined) return;
    const rest = (by.pattern.split("/").pop() as string).slice(1);
    const empty = segmentsOf(by.pattern).length - 1 === segmentsOf(row.pattern).length;
    const how = empty
      ? `its catch-all matches ${row.pattern} too, with \`${rest}\` empty, and is tried first (spec 4.2: a longer path before a shorter one). ` +
        `Remove ${shown(row.file)} and answer ${row.pattern} in ${shown(by.file)} when \`request.params.${rest}\` is "".`
      : `it matches every path this one does and is tried first (spec 4.2). Remove one of them, or rename a folder so their paths differ.`;
    findings.push({
      code: Codes.routeNeverReached,
      category: "error",
      file: sourceOf(row.file),
      message: `${shown(row.file)} mounts ${row.method} ${row.pattern}, which no request can reach: ${shown(by.file)} mounts ${by.method} ${by.pattern}, and ${how}`,
    });
  });
}

function segmentsOf(pattern: string): string[] {
  return pattern === "/" ? [] : pattern.slice(1).split("/");
}

/** The catch-all `pattern` matches every path `other` does: its prefix covers `other`'s first segments, and the catch-all the rest (even none). */
function covers(pattern: string, other: string): boolean {
  const prefix = segmentsOf(pattern).slice(0, -1);
  const segments = segmentsOf(other);
  if (segments.length < prefix.length) return false;
  return prefix.every((mine, i) => {
    const theirs = segments[i] as string;
    if (mine.startsWith(":")) return !theirs.startsWith("*");
    return mine === theirs;
  });
}
