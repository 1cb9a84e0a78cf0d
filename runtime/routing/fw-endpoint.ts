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

/** What the mark reads of a route (structurally, so route.ts can import this module). */
interface Pathed {
  readonly path: { readonly text: string };
}

/** `route`, marked as fw's own endpoint at its path. For fw's modules only. */
export function asFwEndpoint<R extends Pathed>(route: R): R {
  return Object.assign(route, { [FW_ENDPOINT]: route.path.text });
}

/** Whether `route` is fw's own endpoint, still at the path it was marked for. */
export function isFwEndpoint(route: Pathed): boolean {
  return (route as Marked)[FW_ENDPOINT] === route.path.text;
}
