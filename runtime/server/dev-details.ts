import { isAbsolute, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { HttpFailure } from "../http/failure.js";
import { element, type Child } from "../html/node.js";
import type { Route } from "../routing/route.js";
import { WRAPPED } from "./problem.js";
import { routeRow } from "./routes-listing.js";

/**
 * What a `dev` problem page shows under the problem; production shows none of it (no stack
 * trace reaches a production response). A 500 gets the source location, first and large,
 * then the stack; a 404 gets the route table, so a mistyped path is easy to spot.
 */
export function devDetails(failure: HttpFailure, routes: readonly Route[]): Child[] {
  if (failure.kind === "InternalServerError") return errorDetails(failure.cause);
  if (failure.kind === "NotFound") return [routesTable(routes)];
  return [];
}

function errorDetails(cause: unknown): Child[] {
  const trace = cause instanceof Error ? (cause.stack ?? String(cause)) : String(cause);
  const location = cause instanceof Error && cause.stack !== undefined ? sourceLocation(cause.stack) : undefined;
  return [
    location === undefined ? null : element("p", { class: "fw-problem-location", style: WRAPPED }, ["Thrown at ", element("code", {}, [location])]),
    element("pre", { class: "fw-problem-trace", style: WRAPPED }, [trace]),
  ];
}

/**
 * The first stack frame that has a file, as `file:line` (relative to the working directory
 * when inside it). Node's own frames (`node:…`) are passed over: the fix is never there.
 */
export function sourceLocation(stack: string, cwd: string = process.cwd()): string | undefined {
  for (const line of stack.split("\n")) {
    const frame = /^\s*at (?:.*?\()?(.+?):(\d+):\d+\)?\s*$/.exec(line);
    if (frame === null) continue;
    const file = frame[1] as string;
    if (file.startsWith("node:") || file === "<anonymous>") continue;
    return `${shownFile(file, cwd)}:${frame[2]}`;
  }
  return undefined;
}

function shownFile(file: string, cwd: string): string {
  let absolute = file;
  if (file.startsWith("file://")) {
    try {
      absolute = fileURLToPath(file);
    } catch {
      return file;
    }
  }
  if (!isAbsolute(absolute)) return absolute;
  const inside = relative(cwd, absolute);
  return inside.startsWith("..") || isAbsolute(inside) ? absolute : inside.split(sep).join("/");
}

function routesTable(routes: readonly Route[]): Child {
  const rows = routes.map(routeRow).map((row) =>
    element("tr", {}, [element("td", {}, [row.method]), element("td", {}, [element("code", {}, [row.path])]), element("td", {}, [row.source])]),
  );
  const head = element("tr", {}, ["Method", "Path", "Source"].map((title) => element("th", {}, [title])));
  return element("section", { class: "fw-problem-routes" }, [
    element("h2", {}, ["Routes, in match order"]),
    routes.length === 0 ? element("p", {}, ["The table has no routes."]) : element("table", {}, [element("thead", {}, [head]), element("tbody", {}, rows)]),
  ]);
}
