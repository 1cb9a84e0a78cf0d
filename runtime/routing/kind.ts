/**
 * Who calls a route: a browser or a program (spec 2.1). `Kind` is public and copyable, but its
 * two values are not nameable by an application: this module is internal (not re-exported from
 * `fw`). An API route is minted only by `Route.api`, whose handler must take an `ApiRequest`.
 */
declare const kindBrand: unique symbol;

export interface Kind {
  readonly [kindBrand]: "Kind";
}

function mint(name: string): Kind {
  return Object.freeze({ toString: () => name }) as unknown as Kind;
}

export const BROWSER: Kind = mint("browser");
export const API: Kind = mint("api");

export function kindName(kind: Kind): "browser" | "api" {
  return kind === API ? "api" : "browser";
}
