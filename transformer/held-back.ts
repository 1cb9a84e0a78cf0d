import type { Finding } from "./diagnostics.js";
import type { Derived, Row } from "./emit.js";
import { modelRoutes, untypedRoute, type KnownRoute } from "./known-routes.js";
import { mountedRoles } from "./model-actions.js";
import { keyName, pathSegment, type Shaping } from "./model-shape.js";
import type { Model } from "./models.js";
import type { RouteFile } from "./scan.js";

/**
 * What the build left out of the table for a mistake that has its own diagnostic (issue 39 item
 * 10): a refused model, a route file whose handler failed (or that asks for a refused model's
 * store). The checks after them (verified paths, topics, the path builder) take these as the app
 * has them, so a link to a refused model's pages is not reported as a second, false mistake.
 */
export interface HeldBack {
  /** The routes they would mount, untyped: known to the path check and to path(). */
  readonly routes: readonly KnownRoute[];
  /** The topics the refused models' stores would publish (their path names). */
  readonly topics: readonly string[];
  /** Whether a route file was held back: it may be a live page, so the models publish their topics. */
  readonly files: boolean;
}

export const NOTHING_HELD: HeldBack = { routes: [], topics: [], files: false };

/** The models deriving Resource that mount nothing, and the route files that made no row. */
export function heldBack(s: Shaping, models: readonly Model[], derived: readonly Derived[], found: readonly RouteFile[], rows: readonly Row[]): HeldBack {
  const mounted = new Set(derived.map((d) => d.model));
  const refused = models.filter((m) => m.derivations.includes("Resource") && !mounted.has(m));
  const built = new Set(rows.map((row) => row.file));
  const files = found.filter((route) => !built.has(route.file));
  return {
    routes: [
      ...refused.flatMap((m) => modelRoutes(m.name, { name: keyName(s, m), type: "PathValue" }, mountedRoles(s.ts, s.checker, m))),
      ...files.map((route) => untypedRoute(route.role.method, route.pattern)),
    ],
    topics: refused.map((m) => pathSegment(m.name)),
    files: files.length > 0,
  };
}

/**
 * Marks the errors among the first `count` findings (the models' own, found before anything else
 * is read) as leading: printed before every other diagnostic, since what fails later may follow
 * from them (diagnostics.ts `leads`).
 */
export function leading(findings: Finding[], count: number): void {
  for (let i = 0; i < count; i++) {
    const finding = findings[i] as Finding;
    if (finding.category === "error") findings[i] = { ...finding, leads: true };
  }
}
