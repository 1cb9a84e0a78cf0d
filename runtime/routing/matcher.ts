import { METHODS, type Method } from "../http/method.js";
import { splitPath } from "../http/path.js";
import type { PathPattern } from "./path-pattern.js";
import type { HttpRoute, Route, WsRoute } from "./route.js";

/**
 * What the table answers for one request (spec 4.3): the route and its captured parameters,
 * a 405 with the methods the path does allow, or a 404.
 */
export type Lookup =
  | { readonly type: "found"; readonly route: HttpRoute; readonly params: Readonly<Record<string, string>> }
  | { readonly type: "method"; readonly allowed: readonly Method[] }
  | { readonly type: "none" };

/** A value stored in a segment trie with its rank: its position in the table, lower wins. */
export interface Ranked<T> {
  readonly rank: number;
  readonly value: T;
}

/**
 * A node of a segment trie (internal to routing; `conflicts.ts` shares it). A pattern's path
 * through the trie is its segments; `end` holds the pattern that stops here and `rest` the one
 * whose catch-all hangs here. Two patterns of one shape land in one slot and only the lower
 * rank is kept: the other can never win. `minRank` is the lowest rank in the subtree, so a
 * search can skip any branch that cannot beat what it already found.
 */
export interface TrieNode<T> {
  literals: Map<string, TrieNode<T>> | undefined;
  param: TrieNode<T> | undefined;
  end: Ranked<T> | undefined;
  rest: Ranked<T> | undefined;
  minRank: number;
}

/** An empty trie. */
export function emptyTrie<T>(): TrieNode<T> {
  return { literals: undefined, param: undefined, end: undefined, rest: undefined, minRank: Infinity };
}

/** Adds `pattern` to the trie; insertion order does not matter, ranks decide. */
export function insertPattern<T>(root: TrieNode<T>, pattern: PathPattern, entry: Ranked<T>): void {
  let at = root;
  at.minRank = Math.min(at.minRank, entry.rank);
  for (const segment of pattern.segments) {
    if (segment.type === "rest") {
      at.rest = lower(at.rest, entry);
      return;
    }
    at = segment.type === "param" ? (at.param ??= emptyTrie()) : literalChild(at, segment.value);
    at.minRank = Math.min(at.minRank, entry.rank);
  }
  at.end = lower(at.end, entry);
}

function literalChild<T>(at: TrieNode<T>, value: string): TrieNode<T> {
  const literals = (at.literals ??= new Map());
  let child = literals.get(value);
  if (child === undefined) {
    child = emptyTrie();
    literals.set(value, child);
  }
  return child;
}

function lower<T>(held: Ranked<T> | undefined, entry: Ranked<T>): Ranked<T> {
  return held === undefined || entry.rank < held.rank ? entry : held;
}

/** A route with where its parameters sit, worked out once so a match only copies segments. */
interface Target<R extends Route> {
  readonly route: R;
  readonly names: readonly string[];
  readonly indices: readonly number[];
  readonly restName: string | undefined;
  readonly restIndex: number;
}

function targetOf<R extends Route>(route: R): Target<R> {
  const names: string[] = [];
  const indices: number[] = [];
  let restName: string | undefined;
  let restIndex = -1;
  route.path.segments.forEach((segment, index) => {
    if (segment.type === "param") {
      names.push(segment.name);
      indices.push(index);
    } else if (segment.type === "rest") {
      restName = segment.name;
      restIndex = index;
    }
  });
  return { route, names, indices, restName, restIndex };
}

const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

/** A pattern segment sits at the same index as the path segment it matched, so no capture log is needed. */
function paramsOf(target: Target<Route>, segments: readonly string[]): Readonly<Record<string, string>> {
  if (target.names.length === 0 && target.restName === undefined) return NO_PARAMS;
  const params: Record<string, string> = {};
  for (let k = 0; k < target.names.length; k++) {
    // Both arrays were filled together in targetOf, and a matched index is inside the path.
    params[target.names[k]!] = segments[target.indices[k]!]!;
  }
  if (target.restName !== undefined) params[target.restName] = segments.slice(target.restIndex).join("/");
  return params;
}

/**
 * The state of one depth-first search over request segments. One instance per matcher is
 * reused, so a lookup allocates nothing until it builds its answer; JavaScript runs a lookup to
 * completion, so nothing else can observe the instance mid-search.
 */
class Search<T> {
  segments: readonly string[] = [];
  best: Ranked<T> | undefined = undefined;
  /** Only ranks below this can still win. */
  bound = Infinity;
  /** When only "does anything match" matters: the first hit closes every branch. */
  firstOnly = false;

  start(segments: readonly string[], firstOnly: boolean): void {
    this.segments = segments;
    this.best = undefined;
    this.bound = Infinity;
    this.firstOnly = firstOnly;
  }

  /** Searches one more trie; the bound carries over, so HEAD can look in HEAD then GET. */
  run(root: TrieNode<T> | undefined): void {
    if (root !== undefined && root.minRank < this.bound) this.visit(root, 0);
  }

  private visit(at: TrieNode<T>, index: number): void {
    const rest = at.rest;
    if (rest !== undefined && rest.rank < this.bound) this.take(rest);
    const segments = this.segments;
    if (index === segments.length) {
      const end = at.end;
      if (end !== undefined && end.rank < this.bound) this.take(end);
      return;
    }
    const segment = segments[index]!; // index < length, checked above
    const literal = at.literals?.get(segment);
    const param = segment === "" ? undefined : at.param; // `:name` never takes an empty segment
    // Try the more promising branch first: its hit tightens the bound for the other.
    if (literal !== undefined && param !== undefined && param.minRank < literal.minRank) {
      this.descend(param, index + 1);
      this.descend(literal, index + 1);
    } else {
      if (literal !== undefined) this.descend(literal, index + 1);
      if (param !== undefined) this.descend(param, index + 1);
    }
  }

  private descend(child: TrieNode<T>, index: number): void {
    if (child.minRank < this.bound) this.visit(child, index);
  }

  private take(entry: Ranked<T>): void {
    this.best = entry;
    this.bound = this.firstOnly ? -Infinity : entry.rank;
  }
}

const NO_SEGMENTS: readonly string[] = Object.freeze([]);

function splitsInto(path: string, segments: readonly string[]): boolean {
  try {
    const split = splitPath(path);
    return split.length === segments.length && split.every((segment, index) => segment === segments[index]);
  } catch {
    return false; // a malformed path (an empty segment, say) is a 400, never a known answer
  }
}

const NONE: Lookup = Object.freeze({ type: "none" });

const GET_BIT = 1 << METHODS.indexOf("GET");
const HEAD_BIT = 1 << METHODS.indexOf("HEAD");

/** Allow lists by bit mask over METHODS, built once each and shared: a 405 allocates no list. */
const allowedLists = new Map<number, readonly Method[]>();

function allowedList(mask: number): readonly Method[] {
  let list = allowedLists.get(mask);
  if (list === undefined) {
    list = Object.freeze(METHODS.filter((_, index) => (mask & (1 << index)) !== 0));
    allowedLists.set(mask, list);
  }
  return list;
}

/**
 * Matches requests against a route table: the first route in table order whose pattern and
 * method fit wins, never the most specific (spec 4.2). The index is built once; a lookup walks
 * only the trie branches that can still beat the best match found so far.
 */
export class Matcher {
  private readonly http = new Map<Method, TrieNode<Target<HttpRoute>>>();
  /** The same tries by position in METHODS, for the 405 list. */
  private readonly byIndex: readonly (TrieNode<Target<HttpRoute>> | undefined)[];
  private readonly ws = emptyTrie<Target<WsRoute>>();
  private readonly httpSearch = new Search<Target<HttpRoute>>();
  private readonly wsSearch = new Search<Target<WsRoute>>();
  /**
   * Answers known before any request, by method and raw path: for each all-literal pattern,
   * its path (and with a trailing slash), when the route that wins there has no parameters.
   * Found by the search itself at boot, so they are what the search would answer.
   */
  private readonly known = new Map<Method, Map<string, Lookup>>();

  /** A route's rank is its position in `routes`. */
  constructor(routes: readonly Route[]) {
    routes.forEach((route, rank) => {
      if (route.case === "ws") {
        insertPattern(this.ws, route.path, { rank, value: targetOf(route) });
        return;
      }
      let trie = this.http.get(route.method);
      if (trie === undefined) {
        trie = emptyTrie();
        this.http.set(route.method, trie);
      }
      insertPattern(trie, route.path, { rank, value: targetOf(route) });
    });
    this.byIndex = METHODS.map((method) => this.http.get(method));
    for (const route of routes) if (route.case === "http") this.remember(route.path);
  }

  /**
   * The HTTP route for `method` on a raw request path (not yet split or decoded): a literal
   * path's answer is looked up as is, any other path is split (a malformed one is a 400) and
   * searched.
   */
  lookupPath(method: Method, path: string): Lookup {
    return this.known.get(method)?.get(path) ?? this.lookup(method, splitPath(path));
  }

  /** Records the answers for an all-literal pattern's paths, when no parameter takes part. */
  private remember(pattern: PathPattern): void {
    const values: string[] = [];
    for (const segment of pattern.segments) {
      if (segment.type !== "literal") return;
      values.push(segment.value);
    }
    const path = `/${values.join("/")}`;
    // Only a path that splits back into exactly these segments (no "%", no dot segment, no
    // "/" inside a literal) gets the same answer when it arrives as is.
    const paths = [path, `${path}/`].filter((raw) => splitsInto(raw, values));
    if (paths.length === 0) return;
    for (const method of METHODS) {
      const found = this.lookup(method, values);
      if (found.type !== "found" || found.params !== NO_PARAMS) continue;
      let byPath = this.known.get(method);
      if (byPath === undefined) {
        byPath = new Map();
        this.known.set(method, byPath);
      }
      for (const raw of paths) byPath.set(raw, found);
    }
  }

  /** The HTTP route for `method` on the decoded path `segments`; HEAD is served by a GET route too. */
  lookup(method: Method, segments: readonly string[]): Lookup {
    const search = this.httpSearch;
    search.start(segments, false);
    search.run(this.http.get(method));
    if (method === "HEAD") search.run(this.http.get("GET"));
    const best = search.best;
    search.start(NO_SEGMENTS, false); // drop references to the request
    if (best !== undefined) {
      return { type: "found", route: best.value.route, params: paramsOf(best.value, segments) };
    }
    // The tries just searched found nothing: no need to search them again.
    const searched = method === "HEAD" ? HEAD_BIT | GET_BIT : 1 << METHODS.indexOf(method);
    const mask = this.allowedMask(segments, searched);
    return mask === 0 ? NONE : { type: "method", allowed: allowedList(mask) };
  }

  /** The first WebSocket route whose pattern matches `segments`. */
  lookupWs(
    segments: readonly string[],
  ): { readonly route: WsRoute; readonly params: Readonly<Record<string, string>> } | undefined {
    const search = this.wsSearch;
    search.start(segments, false);
    search.run(this.ws);
    const best = search.best;
    search.start(NO_SEGMENTS, false);
    return best === undefined ? undefined : { route: best.value.route, params: paramsOf(best.value, segments) };
  }

  /**
   * Which methods some HTTP route serves on this path, as a bit mask over METHODS (a GET brings
   * HEAD along). Only reached on a miss, so it may search every other method's trie.
   */
  private allowedMask(segments: readonly string[], searched: number): number {
    const search = this.httpSearch;
    let mask = 0;
    for (let index = 0; index < METHODS.length; index++) {
      const trie = this.byIndex[index];
      if (trie === undefined || (searched & (1 << index)) !== 0) continue;
      search.start(segments, true);
      search.run(trie);
      if (search.best !== undefined) mask |= 1 << index;
    }
    search.start(NO_SEGMENTS, false);
    return mask & GET_BIT ? mask | HEAD_BIT : mask;
  }
}
