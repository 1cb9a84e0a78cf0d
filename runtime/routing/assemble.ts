import type { Request } from "../http/request.js";
import type { Route } from "./route.js";
import { identifyInTurn, RouteTable, type Identify } from "./route-table.js";

/**
 * What a `Guarded` declaration gives the table (spec 2.12), seen structurally so the HTTP core
 * never imports the auth module: `through` wraps a covered route, `carries` are the guard's
 * own routes (login, logout), `identify` names the user on a socket upgrade.
 */
export interface GuardDeclaration {
  readonly through: (route: Route) => Route;
  readonly carries: RouteTable | readonly Route[];
  readonly identify: Identify;
  /** Which derived roles a model's declaration covers (all when absent); not read for a page. */
  readonly actions?: { has(role: never): boolean };
  /**
   * Whether the request's viewer would get past `through`, for display only: a model's derived
   * pages show the controls (New, Edit, Delete) of a covered role only to a viewer it admits.
   * Absent: every viewer's controls are shown, and the guard refuses at the page as it does.
   */
  readonly admits?: ((request: Request) => boolean | Promise<boolean>) | undefined;
}

/**
 * Wraps the routes a declaration covers with its `through` (spec 2.12, 4.5 guardFor): every
 * route of a page; a model's routes whose role its `actions` name. No declaration: unchanged.
 */
export function guardRoutes(guard: GuardDeclaration | undefined, routes: readonly Route[]): Route[] {
  if (guard === undefined) return [...routes];
  const covers = (route: Route): boolean =>
    guard.actions === undefined || route.case !== "http" || route.role === undefined || (guard.actions.has as (role: string) => boolean)(route.role);
  return routes.map((route) => (covers(route) ? guard.through(route) : route));
}

/**
 * A handwritten route in a derived page's place (issue 39: an override of the model's `role`
 * page) that declares no guard of its own: it keeps the model's guard for that role, as the
 * derived page had it. Every route given (a live page's GET, POST and socket) is wrapped when the
 * declaration covers the role (all roles when it names none), none otherwise.
 */
export function guardAsRole(guard: GuardDeclaration | undefined, role: string, routes: readonly Route[]): Route[] {
  if (guard === undefined) return [...routes];
  const covered = guard.actions === undefined || (guard.actions.has as (role: string) => boolean)(role);
  return covered ? routes.map((route) => guard.through(route)) : [...routes];
}

/**
 * The generated table (spec 4.5): the rows in match order, then every declaration's `carries`
 * taken distinct (equal routes from separate instances are mounted once, or boot would fail on
 * the duplicate), with `identify` composed from every declaration.
 */
export function assembleTable(declared: readonly (GuardDeclaration | undefined)[], rows: readonly Route[]): RouteTable {
  const guards = declared.filter((guard): guard is GuardDeclaration => guard !== undefined);
  const carried: Route[] = [];
  for (const guard of guards) {
    const routes = guard.carries instanceof RouteTable ? guard.carries.routes : guard.carries;
    for (const route of routes) if (!carried.some((held) => sameRoute(held, route))) carried.push(route);
  }
  const identify: Identify | undefined = guards.length === 0 ? undefined : guards.map((guard) => guard.identify).reduce(identifyInTurn);
  return new RouteTable([...rows, ...carried], identify);
}

/** Equal routes: same case, method and pattern, and the very same handler or listener. */
function sameRoute(a: Route, b: Route): boolean {
  if (a.case === "http" && b.case === "http") {
    return a.method === b.method && a.path.text === b.path.text && a.handler === b.handler && a.kind === b.kind;
  }
  if (a.case === "ws" && b.case === "ws") return a.path.text === b.path.text && a.listener === b.listener;
  return false;
}
