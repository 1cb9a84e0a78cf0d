import type { Method } from "../http/method.js";
import type { PathPattern, Segment } from "./path-pattern.js";
import type { Route } from "./route.js";

/** Why one route answers a request or was passed over, as `routes --match` says it. */
export type Verdict =
  | { readonly type: "answers" }
  | { readonly type: "pattern"; readonly why: string }
  | { readonly type: "method"; readonly serves: Method }
  | { readonly type: "websocket" };

/** One route the walk looked at: its position in the table (from 0) and the verdict. */
export interface Considered {
  readonly rank: number;
  readonly route: Route;
  readonly verdict: Verdict;
}

/**
 * Walks the table in order the way spec 4.2 states the rule (the first route whose pattern and
 * method fit answers) and says, route by route, why each one before the answer was passed
 * over; it stops at the answer. A plain scan on purpose: it explains, and the `Matcher` (whose
 * trie never scans) answers; `routes --match` checks that both agree.
 */
export function explainMatch(routes: readonly Route[], method: Method, segments: readonly string[]): Considered[] {
  const considered: Considered[] = [];
  for (const [rank, route] of routes.entries()) {
    const verdict = verdictOf(route, method, segments);
    considered.push({ rank, route, verdict });
    if (verdict.type === "answers") break;
  }
  return considered;
}

function verdictOf(route: Route, method: Method, segments: readonly string[]): Verdict {
  // A socket route answers upgrades only, which are never matched on method or against HTTP routes.
  if (route.case === "ws") return { type: "websocket" };
  const why = mismatch(route.path, segments);
  if (why !== undefined) return { type: "pattern", why };
  const serves = route.method === method || (method === "HEAD" && route.method === "GET");
  return serves ? { type: "answers" } : { type: "method", serves: route.method };
}

/** Where `pattern` first fails to match the decoded `segments`, in words; undefined when it matches. */
export function mismatch(pattern: PathPattern, segments: readonly string[]): string | undefined {
  for (const [index, segment] of pattern.segments.entries()) {
    if (segment.type === "rest") return undefined; // takes everything left, nothing included
    const actual = segments[index];
    if (actual === undefined) return `the path ends after ${count(index)}; the pattern goes on with ${shown(segment)}`;
    if (segment.type === "literal" && segment.value !== actual) {
      return `segment ${index + 1} is ${JSON.stringify(actual)}, the pattern wants ${shown(segment)}`;
    }
    if (segment.type === "param" && actual === "") return `segment ${index + 1} is empty, and ${shown(segment)} takes a non-empty one`;
  }
  if (segments.length > pattern.segments.length) {
    return `the path has ${count(segments.length)}, the pattern ${count(pattern.segments.length)}`;
  }
  return undefined;
}

function shown(segment: Segment): string {
  return segment.type === "literal" ? JSON.stringify(segment.value) : segment.type === "param" ? `:${segment.name}` : `*${segment.name}`;
}

function count(n: number): string {
  return n === 1 ? "1 segment" : `${n} segments`;
}
