import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Ok, Route, RouteTable } from "../../runtime/index.js";
import { serve, type Served } from "../support/serve.js";

/**
 * A handler whose promise never settles (a store call that hangs) would hold its request open
 * until shutdown: `handlerTimeoutMs` answers it with a 500 instead, and logs why.
 */
const never = (): Promise<never> => new Promise(() => undefined);
const after = <T>(ms: number, value: T): Promise<T> => new Promise((resolve) => setTimeout(() => resolve(value), ms));

let app: Served;
beforeAll(async () => {
  app = await serve({
    handlerTimeoutMs: 200,
    routes: RouteTable.of(
      Route.api({ method: "GET", path: "/api/hangs", handler: never }),
      Route.get("/page/hangs", never),
      Route.get("/page/late", () => after(600, Ok("late"))),
      Route.get("/page/late-throw", () => after(600, undefined).then(() => Promise.reject(new Error("too late to matter")))),
      Route.get("/page/in-time", () => after(20, Ok("in time"))),
      Route.get("/page/nearly-late", () => after(120, Ok("nearly late"))),
      Route.get("/", () => Ok("home")),
    ),
  });
});
afterAll(() => app.close());

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
beforeEach(() => {
  unhandled.length = 0;
  process.on("unhandledRejection", onUnhandled);
});
afterEach(() => {
  process.off("unhandledRejection", onUnhandled);
});

describe("handlerTimeoutMs", () => {
  it.each(["/api/hangs", "/page/hangs"])("%s: a handler that never settles → 500 problem page after the deadline, logged naming the route", async (path) => {
    const response = await app.get(path);
    expect(response.status).toBe(500);
    const page = await response.text();
    const line = app.err.find((l) => l.includes(`500 GET ${path} (route ${path})`));
    expect(line).toContain("HandlerTimedOut: The handler did not answer within 200 ms (handlerTimeoutMs)");
    const incident = /\[incident ([0-9a-f]+)\]/.exec(line ?? "")?.[1];
    expect(incident).toBeDefined();
    expect(page).toContain(incident as string); // the page and the log line tie up
    expect(await (await app.get("/")).text()).toBe("home");
  });

  it("a result that arrives after the deadline is dropped, a late rejection included; nothing crashes", async () => {
    expect((await app.get("/page/late")).status).toBe(500);
    expect((await app.get("/page/late-throw")).status).toBe(500);
    await after(700, undefined); // both late results have settled by now
    expect(unhandled).toEqual([]);
    expect(await (await app.get("/")).text()).toBe("home");
  });

  it("a handler that settles in time is answered as usual", async () => {
    const response = await app.get("/page/in-time");
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("in time");
  });

  // The deadlines share one timer (runtime/server/deadlines.ts): one that settled in time must not
  // take the deadlines behind it along, nor fail them early.
  it("requests in flight at once each have their own deadline", async () => {
    const first = app.get("/page/nearly-late");
    await after(60, undefined);
    const second = app.get("/page/hangs");
    const third = app.get("/api/hangs");
    const [a, b, c] = await Promise.all([first, second, third]);
    expect([a.status, b.status, c.status]).toEqual([200, 500, 500]);
    expect(await a.text()).toContain("nearly late");
    const again = await app.get("/page/nearly-late");
    expect(again.status).toBe(200);
  }, 5_000);

  it("must be positive, or boot fails naming it", async () => {
    await expect(serve({ routes: RouteTable.empty, handlerTimeoutMs: -1 })).rejects.toThrow(/handlerTimeoutMs/);
  });
});
