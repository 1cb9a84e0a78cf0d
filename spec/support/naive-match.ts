import { METHODS, type Method } from "../../runtime/http/method.js";
import type { Lookup } from "../../runtime/routing/matcher.js";
import type { PathPattern } from "../../runtime/routing/path-pattern.js";
import type { HttpRoute, Route, WsRoute } from "../../runtime/routing/route.js";

/**
 * Reference semantics for the matcher: a plain scan of the table in order. Slow on purpose and
 * simple enough to be obviously right; the tests compare the trie matcher against it.
 */

/** The params `pattern` captures from `segments`, or undefined when it does not match. */
export function naiveMatch(pattern: PathPattern, segments: readonly string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (const [index, segment] of pattern.segments.entries()) {
    if (segment.type === "rest") {
      params[segment.name] = segments.slice(index).join("/");
      return params;
    }
    const actual = segments[index];
    if (actual === undefined) return undefined;
    if (segment.type === "literal" && segment.value !== actual) return undefined;
    if (segment.type === "param") {
      if (actual === "") return undefined;
      params[segment.name] = actual;
    }
  }
  return segments.length === pattern.segments.length ? params : undefined;
}

function httpRoutes(routes: readonly Route[]): HttpRoute[] {
  return routes.filter((r): r is HttpRoute => r.case === "http");
}

/** First HTTP route in table order that fits; else the 405 list; else none. */
export function naiveLookup(routes: readonly Route[], method: Method, segments: readonly string[]): Lookup {
  const serves = (route: HttpRoute): boolean =>
    route.method === method || (method === "HEAD" && route.method === "GET");
  for (const route of httpRoutes(routes)) {
    const params = naiveMatch(route.path, segments);
    if (params !== undefined && serves(route)) return { type: "found", route, params };
  }
  const matching = new Set(
    httpRoutes(routes)
      .filter((route) => naiveMatch(route.path, segments) !== undefined)
      .map((route) => route.method),
  );
  if (matching.size === 0) return { type: "none" };
  if (matching.has("GET")) matching.add("HEAD");
  return { type: "method", allowed: METHODS.filter((m) => matching.has(m)) };
}

/** First WebSocket route in table order whose pattern matches. */
export function naiveLookupWs(
  routes: readonly Route[],
  segments: readonly string[],
): { route: WsRoute; params: Record<string, string> } | undefined {
  for (const route of routes) {
    if (route.case !== "ws") continue;
    const params = naiveMatch(route.path, segments);
    if (params !== undefined) return { route, params };
  }
  return undefined;
}
