import { kindName } from "../routing/kind.js";
import type { Route } from "../routing/route.js";

/** One route as `routes` shows it; the table, `--json` and the dev 404 page all read this. */
export interface RouteRow {
  /** The HTTP method, or "WS" for a WebSocket route. */
  readonly method: string;
  readonly path: string;
  /** The handler's source file (or function name). */
  readonly source: string;
  readonly origin: string;
  readonly kind: "browser" | "api";
  /** The guard that covers the route; null when none does. */
  readonly guard: string | null;
}

/** A route's row; one function, so the human table and the JSON cannot drift apart. */
export function routeRow(route: Route): RouteRow {
  return {
    method: route.case === "http" ? route.method : "WS",
    path: route.path.text,
    source: route.source,
    origin: route.origin,
    kind: route.case === "http" ? kindName(route.kind) : "browser",
    guard: route.guard ?? null,
  };
}

/** The table as `routes` prints it: one line per route in match order, then every warning, then every note. */
export function listRoutes(routes: readonly Route[], warnings: readonly string[], notes: readonly string[] = []): string {
  const rows = routes.map(routeRow).map((row) => [row.method, row.path, row.source, row.origin, row.kind, row.guard ?? "-"]);
  const header = ["METHOD", "PATH", "HANDLER", "ORIGIN", "KIND", "GUARD"];
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] as string).length)));
  const line = (cells: string[]): string => cells.map((cell, i) => cell.padEnd(widths[i] as number)).join("  ").trimEnd();
  const out = [line(header), ...rows.map(line)];
  if (routes.length === 0) out.push("(no routes)");
  for (const warning of warnings) out.push(`warning: ${warning}`);
  for (const note of notes) out.push(`note: ${note}`);
  return out.join("\n") + "\n";
}

/** The table for tools (`routes --json`): every row in match order, then every warning and note. */
export function routesJson(routes: readonly Route[], warnings: readonly string[], notes: readonly string[] = []): string {
  return JSON.stringify({ routes: routes.map(routeRow), warnings, notes }, null, 2) + "\n";
}
