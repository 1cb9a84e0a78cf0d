import { BootError } from "./boot-error.js";
import { isFwEndpoint } from "./fw-endpoint.js";
import { emptyTrie, insertPattern, type Ranked, type TrieNode } from "./matcher.js";
import type { Segment } from "./path-pattern.js";
import { Origin, Route } from "./route.js";

/** A table that passed the boot checks: what to serve, and what to tell the developer. */
export interface CheckedRoutes {
  readonly routes: readonly Route[];
  /** One line each, printed at boot and by the `routes` command. */
  readonly warnings: readonly string[];
  /**
   * One line each, printed by the `routes` command only: what the table does on purpose and a
   * reader of the table may want to know (a derived page deliberately overridden).
   */
  readonly notes: readonly string[];
}

/** A route no request can reach, because the earlier route `by` matches every path it does. */
export interface Shadowing {
  readonly route: Route;
  readonly by: Route;
}

/**
 * The boot checks of spec 4.3, in table order: two handwritten or two derived routes on one
 * method and path fail boot; a derived route beside a handwritten one is dropped with a
 * warning, the handwritten one served in its place (an override of one derived page); a route
 * shadowed by an earlier one is kept with a warning.
 */
export function checkRoutes(routes: readonly Route[]): CheckedRoutes {
  checkReserved(routes);
  checkModelNames(routes);
  const { kept, warnings, notes } = dropDuplicates(routes);
  return { routes: kept, warnings: [...warnings, ...findShadowed(kept).map(shadowWarning), ...orphanWarnings(kept)], notes };
}

/** The path prefix fw keeps for its own endpoints (spec 4.6). */
export const RESERVED_PREFIX = "fw";

/**
 * Spec 1, 4.6: `/fw` is fw's (`/fw/health`, dev's `/fw/reload`, what comes later): a route of the
 * app's whose pattern starts with that literal segment fails boot, naming where it comes from. A
 * pattern that starts with a parameter or a catch-all may match `/fw/...` paths too; fw's own
 * endpoints are asked first, so those are left alone.
 */
function checkReserved(routes: readonly Route[]): void {
  for (const route of routes) {
    const first = route.path.segments[0];
    if (first?.type !== "literal" || first.value !== RESERVED_PREFIX || isFwEndpoint(route)) continue;
    throw new BootError(
      `${describe(route)} is under /${RESERVED_PREFIX}, which fw reserves for its own endpoints (/fw/health, and /fw/reload in dev): ` +
        `move it to another path (rename its file or folder).`,
    );
  }
}

/**
 * One name is one model: a model's pages find the models it references, and those referencing
 * it, by name (resource/relations.ts), and its path comes from its name. Two derived models of
 * one name from two sources (`src/models/Note.ts`, `src/archive/Note.ts`) fail boot naming both
 * files and the path, whether or not their routes collide. The build refuses them first
 * (TS91031); this is the check of a table made otherwise.
 */
function checkModelNames(routes: readonly Route[]): void {
  const byModel = new Map<string, Map<string, string>>();
  for (const route of routes) {
    if (route.case !== "http" || route.origin !== Origin.Resource || route.model === undefined || isFwEndpoint(route)) continue;
    const sources = byModel.get(route.model) ?? new Map<string, string>();
    byModel.set(route.model, sources);
    const shortest = sources.get(route.source);
    if (shortest === undefined || route.path.text.length < shortest.length) sources.set(route.source, route.path.text);
  }
  for (const [model, sources] of byModel) {
    if (sources.size < 2) continue;
    const [[first, at], [second]] = [...sources] as [[string, string], [string, string]];
    const renamed = at.replace(/[^/]*$/, (last) => `archived-${last}`);
    throw new BootError(
      `the models ${first} and ${second} are both named ${model}, so both derive ${at}: a model's path comes from its name, and its pages find the other models by name. ` +
        `Rename one of them (Archived${model} would derive ${renamed}).`,
    );
  }
}

/**
 * Spec 4.3: a form page whose submit target is not mounted (Edit without Update) is legal but
 * warned about. The check runs over the assembled table, so a handwritten target counts.
 */
function orphanWarnings(routes: readonly Route[]): string[] {
  const mounted = new Set(routes.map(pathKey));
  const warnings: string[] = [];
  for (const route of routes) {
    if (route.case !== "http" || route.submits === undefined) continue;
    const target = Route.http({ method: route.submits.method, path: route.submits.path, handler: () => { throw new Error("never called"); } });
    if (mounted.has(pathKey(target))) continue;
    const page = route.role === undefined ? describe(route) : `${describe(route)}, the ${route.role} page,`;
    const roles = route.role === "New" ? ["Create", "New"] : route.role === "Edit" ? ["Update", "Edit"] : undefined;
    const fix = roles === undefined ? "mount the target, or remove the page" : `mount ${roles[0]}, or subtract ${roles[1]} as well (Actions.except(${roles[1]}, ${roles[0]}))`;
    warnings.push(`${page} shows a form that submits to ${route.submits.method} ${route.submits.path}, which is not mounted: ${fix}.`);
  }
  return warnings;
}

/** How a route is named in messages: method (WS for a socket), pattern and source. */
function describe(route: Route): string {
  return `${methodKey(route)} ${route.path.text} (from ${route.source})`;
}

/** Routes compete only within one key: an HTTP method, or "WS" for every socket route. */
function methodKey(route: Route): string {
  return route.case === "ws" ? "WS" : route.method;
}

/**
 * Method and pattern with parameter names erased. Not `PathPattern.shape`: it leaves a literal
 * "*" (written "%2A") unescaped, which would read as a catch-all. JSON keeps literals (strings)
 * apart from the markers (numbers) whatever characters the literals hold.
 */
function pathKey(route: Route): string {
  const marks = route.path.segments.map((s) => (s.type === "literal" ? s.value : s.type === "param" ? 0 : 1));
  return `${methodKey(route)} ${JSON.stringify(marks)}`;
}

interface Pair {
  handwritten?: Route;
  resource?: Route;
}

function dropDuplicates(routes: readonly Route[]): { kept: readonly Route[]; warnings: string[]; notes: string[] } {
  const pairs = new Map<string, Pair>();
  for (const route of routes) {
    const key = pathKey(route);
    const pair = pairs.get(key) ?? {};
    pairs.set(key, pair);
    const slot = route.origin === Origin.Handwritten ? "handwritten" : "resource";
    const earlier = pair[slot];
    if (earlier !== undefined) throw new BootError(duplicateMessage(earlier, route));
    pair[slot] = route;
  }
  // The handwritten route takes the dropped derived route's place in the table: a handwritten
  // `posts/_id/Show.ts` (GET /posts/:id) would otherwise come before the derived GET /posts/new
  // and take "new" for an id, so overriding one page would break another.
  const replaced = new Map<Route, Route>();
  const warnings: string[] = [];
  const notes: string[] = [];
  for (const { handwritten, resource } of pairs.values()) {
    if (handwritten === undefined || resource === undefined) continue;
    replaced.set(resource, handwritten);
    if (isDeliberate(resource, handwritten)) notes.push(overrideNote(resource, handwritten));
    else warnings.push(overrideWarning(resource, handwritten));
  }
  if (replaced.size === 0) return { kept: routes, warnings, notes };
  const moved = new Set(replaced.values());
  const kept = routes.flatMap((route) => (moved.has(route) ? [] : [replaced.get(route) ?? route]));
  return { kept, warnings, notes };
}

/**
 * A deliberate override of a derived page: the handwritten route is written exactly as the
 * derived one, its parameters named alike (`posts/_id/Show.tsx` for Post's `GET /posts/:id`,
 * `posts/Index.tsx` for `GET /posts`). That is how one page is replaced (docs/guides/models-and-forms.md),
 * so boot says nothing and `routes` lists it as a note. The same shape under other names
 * (`posts/_slug/Show.tsx`) is probably a page meant as something else: it keeps its warning.
 */
function isDeliberate(resource: Route, handwritten: Route): boolean {
  return resource.path.text === handwritten.path.text;
}

function overrideNote(resource: Route, handwritten: Route): string {
  const role = resource.case === "http" ? resource.role : undefined;
  const page = role === undefined ? `the derived ${describe(resource)}` : `the derived ${role} page ${describe(resource)}`;
  return `${describe(handwritten)} overrides ${page}, in its place; the model's other pages still link to it.`;
}

/**
 * Spec 4.3 warns when a handwritten route takes a derived one's method and path; fw keeps the
 * warning for an override that does not look deliberate (parameters named otherwise). It says
 * that the model's other pages still link to it, how to make it deliberate, and that leaving
 * the action out would remove the page, and every link and redirect to it, instead.
 */
function overrideWarning(resource: Route, handwritten: Route): string {
  const role = resource.case === "http" ? resource.role : undefined;
  const page = role === undefined ? "the derived route" : `the derived ${role} page`;
  const remove = role === undefined ? "remove the action from the resource" : `leave ${role} out of the model's actions (Actions.except(${role}))`;
  return (
    `${describe(resource)} is dropped: the handwritten ${describe(handwritten)} is on the same method and path and is served instead. ` +
    `That overrides ${page}; the model's other pages still link to it. If that is what you meant, write its path as ${resource.path.text} (its parameters named alike) and this warning goes. ` +
    `To remove the page rather than replace it, ${remove}.`
  );
}

function duplicateMessage(earlier: Route, later: Route): string {
  const both = earlier.origin === Origin.Handwritten ? "handwritten" : "derived";
  const fix =
    both === "handwritten"
      ? "remove one, or change its method or path"
      : "mount the resource only once, or remove the action from one of them";
  return `${describe(earlier)} and ${describe(later)} are two ${both} routes on one method and path: ${fix}.`;
}

/**
 * What the developer can do depends on the route: a hand-built route can be moved; a derived
 * one always comes after the handwritten ones (spec 4.2), so its action is left out instead;
 * a path a catch-all also takes with an empty rest is answered by the catch-all's handler.
 */
function shadowWarning({ route, by }: Shadowing): string {
  const how = methodKey(route) === methodKey(by) ? "" : " (a HEAD request is served by the GET route)";
  const last = by.path.segments[by.path.segments.length - 1];
  const emptyRest = last?.type === "rest" && by.path.segments.length - 1 === route.path.segments.length ? last.name : undefined;
  const fix =
    route.origin === Origin.Resource
      ? `derived routes always come after handwritten ones, so leave the ${(route.case === "http" ? route.role : undefined) ?? "action"} out of the model's actions (Actions.except), or narrow ${by.path.text}`
      : emptyRest !== undefined
        ? `its catch-all takes ${route.path.text} with \`${emptyRest}\` empty, so answer that case in its handler and remove this route (or, in a hand-built table, move it before ${methodKey(by)} ${by.path.text})`
        : `move it before ${methodKey(by)} ${by.path.text}, or remove one`;
  return `${describe(route)} is never reached: the earlier ${describe(by)} matches every path it does${how}; ${fix}.`;
}

/**
 * Each route whose every path an earlier route of the same method already matches (an earlier
 * GET also serves HEAD), with the first such earlier route. Patterns sit in one trie per
 * method, so each route walks only the branches that could cover it, not every earlier route.
 */
export function findShadowed(routes: readonly Route[]): readonly Shadowing[] {
  const tries = new Map<string, TrieNode<Route>>();
  routes.forEach((route, rank) => {
    const key = methodKey(route);
    const trie = tries.get(key) ?? emptyTrie<Route>();
    tries.set(key, trie);
    insertPattern(trie, route.path, { rank, value: route });
  });
  const found: Shadowing[] = [];
  routes.forEach((route, rank) => {
    const search = new CoverSearch(route.path.segments, rank);
    search.run(tries.get(methodKey(route)));
    if (methodKey(route) === "HEAD") search.run(tries.get("GET"));
    if (search.best !== undefined) found.push({ route, by: search.best.value });
  });
  return found;
}

/**
 * Finds the lowest-ranked pattern in a trie that covers `pattern`, ranked below `bound`.
 * Walking the covered pattern: its literal is covered by the same literal, a `:param` or a
 * catch-all; its `:param` by a `:param` or a catch-all; its catch-all only by a catch-all.
 */
class CoverSearch {
  best: Ranked<Route> | undefined = undefined;

  constructor(
    private readonly pattern: readonly Segment[],
    private bound: number,
  ) {}

  run(root: TrieNode<Route> | undefined): void {
    if (root !== undefined) this.descend(root, 0);
  }

  private visit(at: TrieNode<Route>, index: number): void {
    if (at.rest !== undefined) this.take(at.rest); // a catch-all covers whatever is left, even nothing
    const segment = this.pattern[index];
    if (segment === undefined) {
      if (at.end !== undefined) this.take(at.end);
      return;
    }
    if (segment.type === "rest") return;
    if (segment.type === "literal") this.descend(at.literals?.get(segment.value), index + 1);
    this.descend(at.param, index + 1);
  }

  private descend(child: TrieNode<Route> | undefined, index: number): void {
    if (child !== undefined && child.minRank < this.bound) this.visit(child, index);
  }

  private take(entry: Ranked<Route>): void {
    if (entry.rank >= this.bound) return;
    this.best = entry;
    this.bound = entry.rank;
  }
}
