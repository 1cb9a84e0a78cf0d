import { kindName } from "../routing/kind.js";
import type { Route } from "../routing/route.js";

/** The table as `routes` prints it: one line per route in match order, then every warning. */
export function listRoutes(routes: readonly Route[], warnings: readonly string[]): string {
  const rows = routes.map((route) => [
    route.case === "http" ? route.method : "WS",
    route.path.text,
    route.source,
    route.origin,
    route.case === "http" ? kindName(route.kind) : "browser",
    route.guard ?? "-",
  ]);
  const header = ["METHOD", "PATH", "HANDLER", "ORIGIN", "KIND", "GUARD"];
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] as string).length)));
  const line = (cells: string[]): string => cells.map((cell, i) => cell.padEnd(widths[i] as number)).join("  ").trimEnd();
  const out = [line(header), ...rows.map(line)];
  if (routes.length === 0) out.push("(no routes)");
  for (const warning of warnings) out.push(`warning: ${warning}`);
  return out.join("\n") + "\n";
}
