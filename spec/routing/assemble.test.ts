import { describe, expect, it } from "vitest";
import { Ok, Route, type Request } from "../../runtime/index.js";
import { assembleTable, type GuardDeclaration } from "../../runtime/routing/assemble.js";
import { checkRoutes } from "../../runtime/routing/conflicts.js";
import type { Route as AnyRoute } from "../../runtime/routing/route.js";

const loginPage = (): ReturnType<typeof Ok> => Ok("login");
const logout = (): ReturnType<typeof Ok> => Ok("bye");
const live = { message(): void {} };

/** A declaration as a guard module makes one: its own routes built anew for each declaration. */
function declaration(carries: readonly AnyRoute[]): GuardDeclaration {
  return { through: (route) => route, carries, identify: (request: Request) => request };
}

/** The guard's routes, as separate but equal objects each time (same method, path and handler). */
function guardRoutes(): AnyRoute[] {
  return [Route.get("/login", loginPage), Route.post("/logout", logout), Route.ws("/account/live", live)];
}

describe("2.12 assembleTable: carries are concatenated and taken distinct", () => {
  it("equal but separate route objects from several declarations are mounted once, so boot does not fail on them", () => {
    const first = guardRoutes();
    const second = guardRoutes();
    expect(first[0]).not.toBe(second[0]); // separate instances…
    const table = assembleTable([declaration(first), undefined, declaration(second)], [Route.get("/", () => Ok("home"))]);
    expect(table.routes.map((route) => (route.case === "http" ? `${route.method} ${route.path.text}` : `WS ${route.path.text}`))).toEqual([
      "GET /",
      "GET /login",
      "POST /logout",
      "WS /account/live",
    ]);
    expect(() => checkRoutes(table.routes)).not.toThrow();
  });

  it("routes that only look alike (another handler, method or kind) are all kept, and boot names the clash", () => {
    const other = Route.get("/login", () => Ok("another login page"), { source: "src/other-guard.ts" });
    const table = assembleTable([declaration(guardRoutes()), declaration([other])], []);
    expect(table.routes).toHaveLength(4);
    expect(() => checkRoutes(table.routes)).toThrow(/GET \/login .* and GET \/login \(from src\/other-guard\.ts\) are two handwritten routes/);
  });
});
