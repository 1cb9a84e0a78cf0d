import { inspect } from "node:util";
import { BadRequest } from "../http/failure.js";
import { isMethod, type Method } from "../http/method.js";
import { splitPath, splitTarget } from "../http/path.js";
import { explainMatch, type Considered } from "../routing/explain.js";
import { decodeParams } from "../routing/from-path.js";
import { Matcher, type Lookup } from "../routing/matcher.js";
import type { HttpRoute, Route } from "../routing/route.js";
import { routeRow } from "./routes-listing.js";

/** A request as `routes --match` takes it: `"GET /posts/3"`, or a bare path (GET). */
export interface AskedRequest {
  readonly method: string;
  readonly target: string;
}

/** Reads `"GET /posts/3"`; undefined when it is not a method and a path. */
export function parseAsked(text: string): AskedRequest | undefined {
  const match = /^\s*(?:([A-Za-z]+)\s+)?(\/\S*)\s*$/.exec(text);
  if (match === null) return undefined;
  // Methods are case-sensitive on the wire; on a command line, "get" plainly means GET.
  return { method: (match[1] ?? "GET").toUpperCase(), target: match[2] as string };
}

/**
 * What `routes --match` prints: which route answers the request (with its decoded parameters),
 * or the 404 / 405 (with `Allow`) the server would send, then every route considered before
 * the answer, in table order, with why it was passed over. The answer comes from the real
 * `Matcher`; the reasons from `explainMatch`. Throws if the two ever disagree.
 */
export function matchReport(routes: readonly Route[], asked: AskedRequest): string {
  const { path } = splitTarget(asked.target);
  const heading = `${asked.method} ${path}`;
  if (!isMethod(asked.method)) return `${heading}\n501 Not Implemented: fw does not serve ${asked.method} requests.\n`;
  if ((path === "/fw/health" || path === "/fw/health/live") && (asked.method === "GET" || asked.method === "HEAD")) {
    return `${heading}\nanswered by fw itself, before the table: GET ${path} (${path === "/fw/health" ? "readiness" : "liveness"} check)\n`;
  }
  let segments: string[];
  try {
    segments = splitPath(path);
  } catch (error) {
    if (error instanceof BadRequest) return `${heading}\n400 Bad Request: ${error.detail}\n`;
    throw error;
  }
  const matcher = new Matcher(routes);
  const lookup = matcher.lookup(asked.method, segments);
  const considered = explainMatch(routes, asked.method, segments);
  checkAgreement(lookup, considered, asked.method);
  const passed = considered.filter((entry) => entry.verdict.type !== "answers");
  return [heading, ...answerLines(lookup, matcher, segments), ...consideredLines(passed, lookup.type === "found")].join("\n") + "\n";
}

function answerLines(lookup: Lookup, matcher: Matcher, segments: readonly string[]): string[] {
  switch (lookup.type) {
    case "found":
      return foundLines(lookup.route, lookup.params);
    case "method":
      return [`405 Method Not Allowed: no route serves this method here; Allow: ${lookup.allowed.join(", ")}`];
    case "none": {
      const socket = matcher.lookupWs(segments);
      return socket === undefined
        ? ["404 Not Found: no route matches this path"]
        : [`400 Bad Request: WS ${socket.route.path.text} (${socket.route.source}) takes WebSocket connections only`];
    }
  }
}

function foundLines(route: HttpRoute, params: Readonly<Record<string, string>>): string[] {
  const row = routeRow(route);
  const lines = [`answered by ${row.method} ${row.path}  (${row.source}; ${row.origin}, ${row.kind}${row.guard === null ? "" : `, guard ${row.guard}`})`];
  const names = Object.keys(params);
  if (names.length === 0) return lines;
  let decoded: Readonly<Record<string, unknown>>;
  try {
    decoded = decodeParams(params, route.params);
  } catch (error) {
    if (!(error instanceof BadRequest)) throw error;
    return [...lines, ...names.map((name) => `  ${name} = ${JSON.stringify(params[name])}`), `  → 400 Bad Request: ${error.detail}`];
  }
  return [...lines, ...names.map((name) => `  ${name} = ${inspect(decoded[name])}`)];
}

function consideredLines(passed: readonly Considered[], found: boolean): string[] {
  if (passed.length === 0) return [found ? "no earlier route was considered" : "the table has no routes"];
  const rows = passed.map((entry) => {
    const row = routeRow(entry.route);
    return [`#${entry.rank + 1}`, row.method, row.path, row.source, reason(entry)];
  });
  const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((cells) => (cells[i] as string).length)));
  const title = found ? "skipped before it, in table order:" : "considered, in table order:";
  return [title, ...rows.map((cells) => "  " + cells.map((cell, i) => (i < 4 ? cell.padEnd(widths[i] as number) : cell)).join("  "))];
}

function reason(entry: Considered): string {
  switch (entry.verdict.type) {
    case "pattern":
      return `pattern does not match: ${entry.verdict.why}`;
    case "method":
      return `method differs: it serves ${entry.verdict.serves}`;
    case "websocket":
      return "a WebSocket route: it answers upgrades only";
    case "answers":
      return "answers";
  }
}

/** The matcher and the in-order walk are two readings of one rule (spec 4.2): they must name the same route. */
function checkAgreement(lookup: Lookup, considered: readonly Considered[], method: Method): void {
  const last = considered[considered.length - 1];
  const walked = last?.verdict.type === "answers" ? last.route : undefined;
  const matched = lookup.type === "found" ? lookup.route : undefined;
  if (walked !== matched) {
    throw new Error(
      `fw: routes --match: the matcher answered ${matched === undefined ? lookup.type : `${method} ${matched.path.text}`} ` +
        `but the in-order walk reached ${walked === undefined ? "no route" : walked.path.text}; please report this.`,
    );
  }
}
