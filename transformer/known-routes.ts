import * as fs from "node:fs";
import * as path from "node:path";
import type { Derived, Row } from "./emit.js";
import { pathSegment } from "./model-shape.js";
import { distance, isLiteral, literalHead, patternMatches, type WrittenSegment } from "./path-shape.js";

/** A path parameter as the typed path builder takes it. */
export interface BuilderParam {
  readonly name: string;
  /** The TypeScript type of the values it takes, as src/.fw/paths.ts writes it. */
  readonly type: string;
  /** An `Id<M>` whose model type the builder imports: its file and name (`type` is then `Id<…>` of it). */
  readonly idOf?: { readonly file: string; readonly name: string };
  /** The model type a derived key is read from (`Post["id"]`): the model's file and type path. */
  readonly keyOf?: { readonly file: string; readonly typePath: string; readonly key: string };
}

/** A route the build knows the app serves: its own table's, or one it was told about. */
export interface KnownRoute {
  /** `GET`, `POST`, …; `*` when any method may be served there (a route the build cannot see). */
  readonly method: string;
  readonly pattern: string;
  readonly params: readonly BuilderParam[];
  /** An API route (no session): not a form's target. */
  readonly api?: boolean;
  /** A derived route its model does not mount: why, for the message of a path only it would answer (`Task's actions leave Destroy out`). */
  readonly leftOut?: string;
  /** Where it is answered from when that is not a route, for messages: a file of the public folder (`public/app.css`). */
  readonly from?: string;
}

/** A model's derived routes by role, as resourceRoutes mounts them (runtime/resource/model-paths.ts). */
const DERIVED: readonly { readonly role: string; readonly method: string; readonly suffix: string; readonly one: boolean }[] = [
  { role: "Index", method: "GET", suffix: "", one: false },
  { role: "New", method: "GET", suffix: "/new", one: false },
  { role: "Show", method: "GET", suffix: "", one: true },
  { role: "Edit", method: "GET", suffix: "/edit", one: true },
  { role: "Destroy", method: "GET", suffix: "/delete", one: true },
  { role: "Create", method: "POST", suffix: "", one: false },
  { role: "Update", method: "PUT", suffix: "", one: true },
  { role: "Destroy", method: "DELETE", suffix: "", one: true },
];

/** The rows of the table (its route files), as known routes: a live page answers GET and its forms' POST. */
export function rowRoutes(rows: readonly Row[]): KnownRoute[] {
  return rows.flatMap((row): KnownRoute[] => {
    const handler = row.handler;
    if (handler.case === "ws") return [];
    const params = paramsOf(row.pattern, handler.params);
    if (handler.case === "live") return [{ method: "GET", pattern: row.pattern, params }, { method: "POST", pattern: row.pattern, params }];
    return [{ method: row.method, pattern: row.pattern, params, ...(handler.api ? { api: true } : {}) }];
  });
}

/** A row's parameters: those the handler types, the rest raw strings (a catch-all included). */
function paramsOf(pattern: string, typed: readonly { readonly name: string; readonly accepts?: string; readonly idOf?: { readonly file: string; readonly name: string } }[]): BuilderParam[] {
  return namesOf(pattern).map((name) => {
    const declared = typed.find((p) => p.name === name);
    // An undeclared parameter is read as the segment's text: any value's text will do; a catch-all takes the rest of the path.
    if (declared?.accepts === undefined) return { name, type: pattern.includes(`*${name}`) ? "string" : "PathValue" };
    return { name, type: declared.accepts, ...(declared.idOf === undefined ? {} : { idOf: declared.idOf }) };
  });
}

function namesOf(pattern: string): string[] {
  return pattern.split("/").filter((s) => s.startsWith(":") || s.startsWith("*")).map((s) => s.slice(1));
}

/**
 * A derived model's routes, for the roles the build read it mounts (all of them when it could not
 * read `actions`); those of the roles it leaves out come marked `leftOut`, for messages only.
 */
export function derivedRoutes(derived: readonly Derived[], mounted: (d: Derived) => ReadonlySet<string> | undefined): KnownRoute[] {
  return derived.flatMap((d) => {
    const key = d.shape.key;
    return modelRoutes(d.model.name, { name: key, type: "", keyOf: { file: d.model.file, typePath: d.model.typePath, key } }, mounted(d));
  });
}

/**
 * The routes a model derives, by role: its key the parameter of those of one row; the roles it
 * does not mount (when `roles` says which it does) marked `leftOut`.
 */
export function modelRoutes(model: string, key: BuilderParam, roles: ReadonlySet<string> | undefined): KnownRoute[] {
  return DERIVED.map((route): KnownRoute => ({
    method: route.method,
    pattern: derivedPattern(model, key.name, route),
    params: route.one ? [key] : [],
    ...(roles === undefined || roles.has(route.role) ? {} : { leftOut: `${model}'s actions leave ${route.role} out` }),
  }));
}

/** Where a model's derived route of one role is mounted (`/tasks/:id/edit`). */
function derivedPattern(model: string, key: string, route: (typeof DERIVED)[number]): string {
  const base = `/${pathSegment(model)}`;
  return route.one ? `${base}/:${key}${route.suffix}` : `${base}${route.suffix}`;
}

/**
 * The derived page of one of `derived` that a handwritten route on `method` and `pattern` takes
 * the place of (the runtime's boot serves it there: runtime/routing/conflicts.ts), parameter
 * names aside: the model and the page's role. Destroy's confirmation page is the Destroy role.
 */
export function overriddenPage(derived: readonly Derived[], method: string, pattern: string): { readonly model: Derived; readonly role: string } | undefined {
  const shape = (text: string): string => text.replace(/\/:[^/]+/g, "/:");
  for (const d of derived) {
    const route = DERIVED.find((r) => r.method === method && shape(derivedPattern(d.model.name, d.shape.key, r)) === shape(pattern));
    if (route !== undefined) return { model: d, role: route.role };
  }
  return undefined;
}

/** Routes whose parameters the build cannot type (written by hand, in `extraRoutes`): any path value. */
export function untypedRoute(method: string, pattern: string): KnownRoute {
  return { method, pattern, params: namesOf(pattern).map((name) => ({ name, type: pattern.includes(`*${name}`) ? "string" : "PathValue" })) };
}

/** The methods a written path is used with: one (a link is a GET), several (a form posting), or any. */
export type Use = readonly string[] | "any";

/** What answers paths beside the routes: the public folder's files, and the prefixes `Route.under` puts the table under. */
export interface Answering {
  readonly routes: readonly KnownRoute[];
  /** The app's public folder (its files are served at their path, to GET). */
  readonly publicDir: string;
  /** Literal prefixes the app puts its table under (`Route.under("/admin", table())`). */
  readonly prefixes: readonly string[];
  /** What was found in the public folder during this build, by file. */
  readonly publicSeen: Map<string, boolean>;
}

/** Whether some route (or a public file) answers the written path for one of the methods of `use`. */
export function answered(a: Answering, written: readonly WrittenSegment[], use: Use): boolean {
  return answeringRoutes(a, written).some((route) => takes(route, use)) || (takesGet(use) && inPublic(a, written));
}

/** The routes whose pattern may answer the written path, whatever their method (the path, and each prefix taken off it). */
export function answeringRoutes(a: Answering, written: readonly WrittenSegment[]): KnownRoute[] {
  const candidates = [written, ...a.prefixes.flatMap((prefix) => underPrefix(prefix, written))];
  return a.routes.filter((route) => candidates.some((segments) => patternMatches(route.pattern, segments)));
}

function takes(route: KnownRoute, use: Use): boolean {
  if (route.method === "*" || use === "any") return true;
  // HEAD is answered by a GET route.
  return use.includes(route.method) || (route.method === "GET" && use.includes("HEAD"));
}

function takesGet(use: Use): boolean {
  return use === "any" || use.includes("GET") || use.includes("HEAD");
}

function underPrefix(prefix: string, written: readonly WrittenSegment[]): WrittenSegment[][] {
  const parts = prefix.split("/").filter((part) => part !== "");
  if (parts.length > written.length) return [];
  const head = literalHead(written);
  return parts.every((part, i) => head[i] === part) ? [written.slice(parts.length)] : [];
}

/**
 * Whether the public folder serves the written path: a literal path names a file there; a path
 * with a substitution, a file in the folder its literal head names (`/images/${name}.png`).
 * Names starting with "." and `/fw/…` are never served (runtime/server/static-files.ts).
 */
function inPublic(a: Answering, written: readonly WrittenSegment[]): boolean {
  const head = literalHead(written);
  if (head.length === 0 || head[0] === "fw" || head.some((segment) => segment.startsWith(".") || segment.includes("/") || segment.includes("\\"))) return false;
  const literal = isLiteral(written);
  const file = path.join(a.publicDir, ...head);
  const key = `${literal ? "file" : "folder"}:${file}`;
  let found = a.publicSeen.get(key);
  if (found === undefined) {
    found = existsAs(file, literal ? "file" : "directory");
    a.publicSeen.set(key, found);
  }
  return found;
}

/** At most this many files of the public folder are offered as the nearest paths (a build never walks a huge folder). */
const PUBLIC_FILES_LISTED = 2000;

const listings = new WeakMap<Answering, KnownRoute[]>();

/**
 * The public folder's files as GET routes, for the nearest paths of a mistyped one
 * (`/app.cs` → `GET /app.css`): read once per check, only when a path fails, names starting with
 * "." left out as the server leaves them (runtime/server/static-files.ts). `shown` names the folder.
 */
export function publicRoutes(a: Answering, shown: string): KnownRoute[] {
  const known = listings.get(a);
  if (known !== undefined) return known;
  const found: KnownRoute[] = [];
  const walk = (dir: string, at: readonly string[]): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0))) {
      if (found.length >= PUBLIC_FILES_LISTED) return;
      // Names a pattern would read as a parameter, a catch-all or an escape are left out too.
      if (entry.name.startsWith(".") || /^[:*]|%/.test(entry.name)) continue;
      const segments = [...at, entry.name];
      if (entry.isDirectory()) walk(path.join(dir, entry.name), segments);
      else if (entry.isFile()) found.push({ method: "GET", pattern: `/${segments.join("/")}`, params: [], from: [shown, ...segments].join("/") });
    }
  };
  walk(a.publicDir, []);
  listings.set(a, found);
  return found;
}

function existsAs(file: string, kind: "file" | "directory"): boolean {
  try {
    const info = fs.statSync(file);
    return kind === "file" ? info.isFile() : info.isDirectory();
  } catch {
    return false;
  }
}

/** The routes nearest a written path, nearest first (at most `count`, one per method and pattern), those taking its methods first. */
export function nearestRoutes(routes: readonly KnownRoute[], written: readonly WrittenSegment[], use: Use, count: number): KnownRoute[] {
  const fitting = routes.filter((route) => takes(route, use));
  const scored = (fitting.length > 0 ? fitting : routes).map((route) => ({ route, score: distance(route.pattern, written) }));
  scored.sort((a, b) => a.score - b.score || a.route.pattern.localeCompare(b.route.pattern) || a.route.method.localeCompare(b.route.method));
  const seen = new Set<string>();
  const nearest: KnownRoute[] = [];
  for (const { route } of scored) {
    const name = `${route.method} ${route.pattern}`;
    if (seen.has(name)) continue;
    seen.add(name);
    nearest.push(route);
    if (nearest.length === count) break;
  }
  return nearest;
}
