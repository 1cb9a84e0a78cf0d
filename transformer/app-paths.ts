import type * as ts from "typescript";
import { checkPaths, checkTopics } from "./app-checks.js";
import type { FwConfig } from "./config.js";
import { Codes, type Finding } from "./diagnostics.js";
import { NOTHING_HELD, type HeldBack } from "./held-back.js";
import type { Derived, Row } from "./emit.js";
import { emitPaths } from "./emit-paths.js";
import { derivedRoutes, rowRoutes, untypedRoute, type KnownRoute } from "./known-routes.js";
import { mountedRoles } from "./model-actions.js";
import { pathSegment } from "./model-shape.js";
import { findAppSites } from "./path-sites.js";
import { pluginOptionEntry, tsconfigShown } from "./tsconfig-sites.js";

/** What the path builder and the checks read from the build. */
export interface PathsContext {
  readonly ts: typeof ts;
  readonly checker: ts.TypeChecker;
  readonly shown: (file: string) => string;
  readonly findings: Finding[];
}

/**
 * Issue 31 items 1 to 3: the routes the app serves (its table's rows, the derived models' routes
 * for the roles they mount, the back office's, fw/auth's sign-in routes, routes built by hand with literal paths,
 * the plugin's `extraRoutes`), the paths and topics its files write checked against them
 * (TS91050, TS91051), and the text of the typed path builder, src/.fw/paths.ts.
 */
export function appPaths(p: PathsContext, program: ts.Program, config: FwConfig, rows: readonly Row[], derived: readonly Derived[], held: HeldBack = NOTHING_HELD, mounted: readonly KnownRoute[] = []): string {
  const extra = extraRoutes(p, program, config);
  // What a mistake held back counts as the app's (held-back.ts): its own diagnostic says what to fix.
  // `mounted`: routes the table mounts from a declaration beside its rows (the back office's).
  const all = [...rowRoutes(rows), ...derivedRoutes(derived, (d) => mountedRoles(p.ts, p.checker, d.model)), ...held.routes, ...mounted];
  const table = all.filter((route) => route.leftOut === undefined);
  if (!config.verifyPaths) return emitPaths({ out: config.paths, fwModule: config.fwModule, appDirShown: p.shown(config.appDir), routes: [...table, ...extra] });
  const sites = findAppSites(p.ts, p.checker, program.getSourceFiles(), [config.out, config.paths]);
  const routes = [...table, ...sites.signIn, ...sites.handRoutes, ...extra];
  const leftOut = all.filter((route) => route.leftOut !== undefined);
  const shownDirs = { appDirShown: p.shown(config.appDir), publicDirShown: p.shown(config.publicDir) };
  checkPaths({ routes, leftOut, publicDir: config.publicDir, prefixes: sites.prefixes, publicSeen: new Map(), shown: p.shown, builder: p.shown(config.paths), ...shownDirs }, sites.paths, p.findings);
  // A model's store publishes its path name only in an app with live pages (emit.ts storeLine).
  const live = rows.some((row) => row.handler.case === "live") || held.files;
  const modelTopics = live ? [...derived.map((d) => pathSegment(d.model.name)), ...held.topics] : [];
  checkTopics({ ts: p.ts, checker: p.checker, shown: p.shown, modelTopics }, sites, p.findings);
  return emitPaths({ out: config.paths, fwModule: config.fwModule, appDirShown: p.shown(config.appDir), routes });
}

const EXTRA_ROUTE = /^(?:(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) +)?(\/\S*)$/;

/** The plugin option `extraRoutes`: `"GET /health"`, `"/hooks/*rest"` (any method); anything else is TS91052. */
function extraRoutes(p: PathsContext, program: ts.Program, config: FwConfig): KnownRoute[] {
  const given: unknown = config.extraRoutes;
  const entries = Array.isArray(given) ? (given as unknown[]) : [given];
  const routes: KnownRoute[] = [];
  for (const [index, entry] of entries.entries()) {
    const parsed = typeof entry === "string" ? EXTRA_ROUTE.exec(entry.trim()) : null;
    if (parsed === null || parsed[2] === undefined || parsed[2].split("/").slice(1, -1).some((segment) => segment === "" || segment.startsWith("*"))) {
      // On the tsconfig, at the entry (issue 39 item 12), as TS91017 is.
      p.findings.push({
        code: Codes.extraRoutes,
        category: "error",
        ...pluginOptionEntry(program, p.ts, "extraRoutes", index),
        message: `${tsconfigShown(program, p.shown)}: the plugin option "extraRoutes" lists ${JSON.stringify(entry)}, which is not a route: write "GET /health" (a method and a path pattern) or "/hooks/*rest" (any method), one string per route, in an array.`,
      });
      continue;
    }
    routes.push(untypedRoute(parsed[1] ?? "*", parsed[2]));
  }
  return routes;
}
