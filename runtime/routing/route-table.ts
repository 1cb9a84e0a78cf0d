import type { Request } from "../http/request.js";
import type { Route } from "./route.js";

/**
 * Names the user behind a request; never refuses one (spec 2.2, 2.12). It may answer later (a
 * Promise), as one that asks a users store whether the session still counts does.
 */
export type Identify = (request: Request) => Request | Promise<Request>;

const nobody: Identify = (request) => request;

/** `first`, then `second` on what it named; synchronous while both are. */
export function identifyInTurn(first: Identify, second: Identify): Identify {
  return (request) => {
    const named = first(request);
    return named instanceof Promise ? named.then(second) : second(named);
  };
}

/**
 * An ordered sequence of routes (spec 2.2). Order is the whole contract: the table never
 * sorts, and `concat` (the spec's `++`) keeps both orders. `identify` is used on socket
 * upgrades only; a table built by hand names nobody.
 */
export class RouteTable implements Iterable<Route> {
  readonly routes: readonly Route[];

  constructor(routes: readonly Route[], readonly identify: Identify = nobody) {
    this.routes = Object.freeze([...routes]);
  }

  static of(...routes: readonly Route[]): RouteTable {
    return new RouteTable(routes);
  }

  static readonly empty = new RouteTable([]);

  /** This table's routes, then the other's; each table's `identify` runs in turn. */
  concat(other: RouteTable | readonly Route[]): RouteTable {
    if (!(other instanceof RouteTable)) return new RouteTable([...this.routes, ...other], this.identify);
    const identify: Identify =
      other.identify === nobody
        ? this.identify
        : this.identify === nobody
          ? other.identify
          : identifyInTurn(this.identify, other.identify);
    return new RouteTable([...this.routes, ...other.routes], identify);
  }

  /** The same table (order and `identify` kept) with each route rewritten by `rewrite`: what `Route.under` does. */
  map(rewrite: (route: Route) => Route): RouteTable {
    return new RouteTable(this.routes.map((route) => rewrite(route)), this.identify);
  }

  get size(): number {
    return this.routes.length;
  }

  [Symbol.iterator](): Iterator<Route> {
    return this.routes[Symbol.iterator]();
  }
}
