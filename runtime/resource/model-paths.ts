import type { Request } from "../http/request.js";
import { fillPath, pathFiller, type PathQuery, type PathValue } from "../routing/fill-path.js";
import type { Action } from "./actions.js";
import type { ModelSpec } from "./model.js";

/** A model's derived routes by role (spec 4.4), and Destroy's confirmation page. */
export type ModelRoute = Action | "Confirm";

/**
 * The pattern a model's derived route is mounted at: Index and Create at `/posts`, New at
 * `/posts/new`, Show, Update and Destroy at `/posts/:id`, Edit at `/posts/:id/edit`, Destroy's
 * confirmation at `/posts/:id/delete`. `resourceRoutes` mounts them here and the pages link here.
 */
export function modelPattern(model: Pick<ModelSpec<unknown>, "path" | "key">, route: ModelRoute): string {
  return made(model, route).pattern;
}

/**
 * The path of the row `key` by `route` (Show, Edit, Update, Destroy, Confirm), as the table has it
 * (not under a `Route.under` prefix): `/posts/7`, `/posts/7/edit`. What every row's links are made
 * with: the pattern's filler is made once per model and route.
 */
export function modelRowPath(model: Pick<ModelSpec<unknown>, "path" | "key">, route: ModelRoute, key: PathValue): string {
  return made(model, route).fill(key);
}

/** `modelRowPath` of one model and route, for many rows: what a table takes once and calls per row. */
export function modelRowFiller(model: Pick<ModelSpec<unknown>, "path" | "key">, route: ModelRoute): (key: PathValue) => string {
  return made(model, route).fill;
}

/** A model's pattern for a route, and its filler by the model's key. */
interface Made {
  readonly pattern: string;
  readonly fill: (key: PathValue) => string;
}

// Every link to a row is filled from these: made once per model (an Index of 50 rows asks for
// 100 to 150), not a new pattern string for each, which fillPath would then look up by hash.
function made(model: Pick<ModelSpec<unknown>, "path" | "key">, route: ModelRoute): Made {
  let byModel = patterns.get(model);
  if (byModel === undefined || byModel.path !== model.path || byModel.key !== model.key) {
    byModel = { path: model.path, key: model.key, byRoute: new Map() };
    patterns.set(model, byModel);
  }
  let one = byModel.byRoute.get(route);
  if (one === undefined) {
    const pattern = patternOf(model, route);
    byModel.byRoute.set(route, (one = { pattern, fill: pathFiller(pattern, model.key) }));
  }
  return one;
}

/** The patterns made for a model object, with the path and key they were made from. */
const patterns = new WeakMap<object, { readonly path: string; readonly key: string; readonly byRoute: Map<ModelRoute, Made> }>();

function patternOf(model: Pick<ModelSpec<unknown>, "path" | "key">, route: ModelRoute): string {
  switch (route) {
    case "Index":
    case "Create":
      return model.path;
    case "New":
      return `${model.path}/new`;
    case "Show":
    case "Update":
    case "Destroy":
      return `${model.path}/:${model.key}`;
    case "Edit":
      return `${model.path}/:${model.key}/edit`;
    case "Confirm":
      return `${model.path}/:${model.key}/delete`;
  }
}

/**
 * A derived route's path as `request` reaches the table (under its `Route.under` prefix), filled
 * by `fillPath`: Show of row 7 is `/posts/7`; New with the query `{ post: 7 }` is `/comments/new?post=7`.
 * `key` is the row's key, for the routes of one row.
 */
export function modelHref(request: Request, model: Pick<ModelSpec<unknown>, "path" | "key">, route: ModelRoute, key?: unknown, query?: PathQuery): string {
  // A row's key is a number or a string (an Id, a typia-decoded segment): a path value.
  if (key !== undefined && query === undefined) return request.href(modelRowPath(model, route, key as PathValue));
  const params = key === undefined ? {} : { [model.key]: key as PathValue };
  return request.href(fillPath(modelPattern(model, route), params, query));
}

/**
 * Where a row's file is served (issue 40): `/posts/:id/cover/:fileKey`, and an image's variant at
 * `/posts/:id/cover/:fileKey/:variant`. The key in the address changes with the file, so a browser
 * may keep what it fetched for good.
 */
export function fileRoutePattern(model: Pick<ModelSpec<unknown>, "path" | "key">, field: string, variant: boolean): string {
  return `${patternOf(model, "Show")}/${field}/:fileKey${variant ? "/:variant" : ""}`;
}

/** The path of a row's file (or of an image's variant), as `request` reaches the table. */
export function fileHref(request: Request, model: Pick<ModelSpec<unknown>, "path" | "key">, key: unknown, field: string, fileKey: string, variant?: string): string {
  const params: Record<string, PathValue> = { [model.key]: key as PathValue, fileKey };
  if (variant !== undefined) params["variant"] = variant;
  return request.href(fillPath(fileRoutePattern(model, field, variant !== undefined), params));
}
