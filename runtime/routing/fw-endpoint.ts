import type { Route } from "./route.js";

/**
 * The mark on fw's own endpoints under `/fw` (spec 4.6: fw/live's socket and client, which the
 * build appends after the table), which the reserved-prefix boot check lets through. Internal:
 * neither the symbol nor these functions are exported from an entry point, so an app cannot
 * mark a route of its own. The mark holds the path it was given for, so a copy of fw's route
 * moved to another path (`{ ...route, path }`) is the app's again; a copy that keeps the path
 * (a guard's `through` spreads the route) stays fw's.
 */
const FW_ENDPOINT: unique symbol = Symbol("fw.endpoint");

type Marked = { readonly [FW_ENDPOINT]?: string };

/** `route`, marked as fw's own endpoint at its path. For fw's modules only. */
export function asFwEndpoint<R extends Route>(route: R): R {
  return Object.assign(route, { [FW_ENDPOINT]: route.path.text });
}

/** Whether `route` is fw's own endpoint, still at the path it was marked for. */
export function isFwEndpoint(route: Route): boolean {
  return (route as Marked)[FW_ENDPOINT] === route.path.text;
}
