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
