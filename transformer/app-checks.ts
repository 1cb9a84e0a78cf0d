import type * as ts from "typescript";
import { at, Codes, type Finding } from "./diagnostics.js";
import { answered, answeringRoutes, nearestRoutes, publicRoutes, type Answering, type KnownRoute, type Use } from "./known-routes.js";
import type { AppSites, PathSite, TopicSite } from "./path-sites.js";
import { shownPath, writtenSegments } from "./path-shape.js";

/** What the path check needs: the routes the app serves and the rest that answers (public files, prefixes). */
export interface PathCheck extends Answering {
  readonly shown: (file: string) => string;
  /** The path builder's module as messages name it (`src/.fw/paths.ts`). */
  readonly builder: string;
  /** Derived routes their models do not mount (`leftOut` says why): named when a path is only theirs. */
  readonly leftOut: readonly KnownRoute[];
  /** The app folder and the public folder as messages show them (`src/app`, `public`): the file to add, a public file's name. */
  readonly appDirShown: string;
  readonly publicDirShown: string;
}

/**
 * TS91050: a path the app writes (a link, a form's action, a redirect, a test's request) that no
 * route answers with the method it is used with. fw's own `/fw/…` paths, external URLs,
 * fragments, relative and computed paths are left alone (path-sites.ts reads only what starts
 * with "/").
 */
export function checkPaths(check: PathCheck, sites: readonly PathSite[], findings: Finding[]): void {
  for (const site of sites) {
    const written = writtenSegments(site.pieces);
    if (written === undefined) continue;
    const first = written[0]?.[0];
    if (first !== undefined && "text" in first && written[0]?.length === 1 && first.text === "fw") continue;
    if (site.override !== undefined && !OVERRIDABLE.has(site.override.method)) {
      findings.push({ code: Codes.unknownPath, category: "error", file: site.file, ...at(site.override.node), message: overrideMessage(check, site, site.override.method) });
      continue;
    }
    if (answered(check, written, site.use)) continue;
    findings.push({ code: Codes.unknownPath, category: "error", file: site.file, ...at(site.node), message: pathMessage(check, site, written) });
  }
}

/** What a POST form's `_method` may ask for (runtime/http/method.ts `OVERRIDABLE`): anything else is a 400. */
const OVERRIDABLE: ReadonlySet<string> = new Set(["PUT", "PATCH", "DELETE"]);

function overrideMessage(check: PathCheck, site: PathSite, method: string): string {
  const fix = method === "GET" || method === "HEAD" ? `For a ${method}, write method="get" (or a link).` : method === "POST" ? "For a POST, leave the _method field out." : "Ask for PUT, PATCH or DELETE.";
  return `${check.shown(site.file.fileName)}: ${site.what} names ${shownPath(site.pieces)} with _method ${JSON.stringify(method)}, which fw refuses (400): _method asks for PUT, PATCH or DELETE only. ${fix}`;
}

function pathMessage(check: PathCheck, site: PathSite, written: NonNullable<ReturnType<typeof writtenSegments>>): string {
  const where = `${check.shown(site.file.fileName)}: ${site.what} names ${shownPath(site.pieces)}`;
  const others = answeringRoutes(check, written);
  if (others.length > 0) {
    const methods = [...new Set(others.map((route) => route.method))].join(", ");
    // The file goes in the folder of the page the path is nearest to (`/tasks/${id}`: /tasks/:id, not /tasks/new).
    const add = fileToAdd(check, site, nearestRoutes(others, written, "any", 1)[0] as KnownRoute);
    return `${where}, which the app answers only to ${methods} (${routeList(others)}), but ${asked(site)}. Send it the way the route takes it, or fix the path${add === undefined ? "." : `: ${add}`}`;
  }
  const unmounted = answeringRoutes({ ...check, routes: check.leftOut }, written).find((route) => route.method === "*" || site.use === "any" || site.use.includes(route.method));
  if (unmounted !== undefined) return `${where}, which no route of the app answers: it is where ${unmounted.method} ${unmounted.pattern} would be, but ${unmounted.leftOut}. Mount the route (the model's \`actions\`), or drop the link.`;
  // A mistyped file of public/ is nearest to that file (`/app.cs`: GET /app.css), when the path is fetched.
  const files = site.use === "any" || site.use.includes("GET") ? publicRoutes(check, check.publicDirShown) : [];
  const nearest = nearestRoutes([...check.routes, ...files], written, site.use, 3);
  const near = nearest.length === 0 ? "The app has no routes yet." : `Nearest: ${routeList(nearest)}.`;
  return (
    `${where}, which no route of the app answers${site.use === "any" ? "" : ` to ${site.use.join(" or ")}`}. ${near} ` +
    `Fix the path, or build it with path() from ${check.builder}, which only takes the app's patterns; a route served outside the generated table goes in the plugin option "extraRoutes".`
  );
}

function routeList(routes: readonly KnownRoute[]): string {
  return routes.map((route) => `${route.method === "*" ? "(any method)" : route.method} ${route.pattern}${route.from === undefined ? "" : ` (${route.from})`}`).join(", ");
}

/** The route file that takes a form's method at a path (spec 4.1): the file name by method, its export. */
const FORM_FILES: Readonly<Record<string, { readonly file: string; readonly exported: string }>> = {
  POST: { file: "Create", exported: "create" },
  PUT: { file: "Update", exported: "update" },
  DELETE: { file: "Destroy", exported: "destroy" },
};

/**
 * A form sent where the app answers other methods only (a POST form at a GET page): the route
 * file that would take it, in the folder of the page's pattern (`/newsletter` → `newsletter/Create.ts`,
 * `/tasks/:id` → `tasks/_id/Update.ts`). None for a link, a PATCH (no file takes one) or any method.
 */
function fileToAdd(check: PathCheck, site: PathSite, page: KnownRoute): string | undefined {
  if (site.use === "any" || site.use.includes("GET")) return undefined;
  const method = site.override?.method ?? (site.use.includes("POST") ? "POST" : undefined);
  const role = method === undefined ? undefined : FORM_FILES[method];
  if (method === undefined || role === undefined) return undefined;
  const folders = page.pattern
    .split("/")
    .filter((segment) => segment !== "")
    .map((segment) => (segment.startsWith(":") ? `_${segment.slice(1)}` : segment.startsWith("*") ? `__${segment.slice(1)}` : segment));
  const file = [check.appDirShown, ...folders, `${role.file}.ts`].join("/");
  return `to answer its ${method} there, add ${file} (export async function ${role.exported}(request: Request): Promise<Response>).`;
}

function asked(site: PathSite): string {
  const use = site.use;
  if (site.override !== undefined) return `the form sends ${site.override.method} (method="post" with _method ${site.override.method})`;
  if (use === "any") return "it is sent here with another";
  if (use.length === 1 && use[0] === "GET") return "a link or a redirect is a GET";
  if (use.includes("POST") && use.includes("DELETE")) return "a form with method=\"post\" sends POST (PUT, PATCH or DELETE through `_method`)";
  return `it is sent here as ${use.join(" or ")}`;
}

/** What the topic check needs: the topics the models publish in an app with live pages. */
export interface TopicCheck {
  readonly ts: typeof ts;
  readonly checker: ts.TypeChecker;
  readonly shown: (file: string) => string;
  /** The topics the derived models' stores publish (their path names), when the app has live pages. */
  readonly modelTopics: readonly string[];
}

/**
 * TS91051: a live page listens to a topic nothing publishes: no model's store (a model publishes
 * its path name, `posts`, in an app with live pages), no `publish("…")` or `publishing(store, "…")`
 * with that name, and no computed topic whose type admits it.
 */
export function checkTopics(check: TopicCheck, sites: AppSites, findings: Finding[]): void {
  if (sites.topics.length === 0) return;
  const known = new Set([...check.modelTopics, ...sites.published]);
  for (const site of sites.topics) {
    if (known.has(site.topic)) continue;
    const literal = check.checker.getStringLiteralType(site.topic);
    if (sites.publishedTypes.some((type) => check.checker.isTypeAssignableTo(literal, type))) continue;
    findings.push({ code: Codes.unknownTopic, category: "error", file: site.file, ...at(site.node), message: topicMessage(check, site, known, sites.rooms) });
  }
}

function topicMessage(check: TopicCheck, site: TopicSite, known: ReadonlySet<string>, rooms: ReadonlySet<string>): string {
  const topics = [...known].sort();
  const exist = topics.length === 0 ? "No topic is published in this app." : `The topics that exist: ${topics.map((topic) => JSON.stringify(topic)).join(", ")}.`;
  const room = rooms.has(site.topic) ? ` ${JSON.stringify(site.topic)} names a Room, and rooms are not topics: a room's sockets hear room.broadcast, a live page hears publish(${JSON.stringify(site.topic)}).` : "";
  return (
    `${check.shown(site.file.fileName)}: the live page listens to the topic ${JSON.stringify(site.topic)}, which nothing publishes, so the page would never refresh. ${exist}${room} ` +
    `A model's store publishes its path name (Post publishes "posts") in an app with live pages; anything else is published by publish(${JSON.stringify(site.topic)}) from fw/live. Fix the name, or publish it.`
  );
}
