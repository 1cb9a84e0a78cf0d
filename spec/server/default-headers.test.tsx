import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NotFound, Ok, Redirect, Route, RouteTable, status } from "../../runtime/index.js";
import { PAGE_DEFAULTS } from "../../runtime/http/default-headers.js";
import { flatHeaders } from "../../runtime/http/response.js";
import { rawRequest, serve, sessionCookie, type Served } from "../support/serve.js";

const table = RouteTable.of(
  Route.get("/page", () => Ok(<p>page</p>)),
  Route.get("/text", () => Ok("text")),
  Route.get("/bytes", () => Ok(new Uint8Array([1, 2]))),
  Route.get("/svg", () => Ok("<svg/>", { contentType: "image/svg+xml" })),
  Route.get("/framable", () => Ok(<p>mine</p>).withHeader("X-Frame-Options", "SAMEORIGIN").withHeader("Content-Security-Policy", "default-src 'self'")),
  Route.get("/cached", () => Ok(<p>public</p>).withHeader("Cache-Control", "public, max-age=60")),
  Route.get("/login", (request) => Redirect("/page").withSession(request.session.set("user", "ada"))),
  Route.get("/missing", () => {
    throw new NotFound();
  }),
  Route.api({ method: "GET", path: "/api/page", handler: () => Ok(<p>api</p>) }),
  Route.api({ method: "GET", path: "/api/raw", handler: () => status(200, "{}", { contentType: "application/json" }) }),
);

let app: Served;
beforeAll(async () => {
  app = await serve({ routes: table });
});
afterAll(() => app.close());

function expectPageDefaults(response: globalThis.Response): void {
  expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  expect(response.headers.get("x-frame-options")).toBe("DENY");
  expect(response.headers.get("content-security-policy")).toBe("frame-ancestors 'none'");
  expect(response.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
}

describe("Default security headers", () => {
  it("an HTML page (browser or API route) is kept out of frames, sends no path as referrer, and is not sniffed", async () => {
    expectPageDefaults(await app.get("/page"));
    expectPageDefaults(await app.get("/api/page"));
  });

  it("problem pages carry them too: a 404 from the table, one a handler threw, a 405", async () => {
    expectPageDefaults(await app.get("/nowhere"));
    expectPageDefaults(await app.get("/missing"));
    expectPageDefaults(await fetch(app.url + "/page", { method: "DELETE" }));
  });

  it("text, bytes and any other content type get nosniff only", async () => {
    for (const path of ["/text", "/bytes", "/svg", "/api/raw"]) {
      const response = await app.get(path);
      expect(response.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(response.headers.get("x-frame-options"), path).toBeNull();
    }
  });

  it("plain-text refusals fw writes itself are not sniffed either", async () => {
    const answer = await rawRequest(app.port, `GET /${"a".repeat(9000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1.1 414 /);
    expect(answer.toLowerCase()).toContain("x-content-type-options: nosniff");
  });

  it("a handler that sets one of them keeps its own, and gets no second copy", async () => {
    const response = await app.get("/framable");
    expect(response.headers.get("x-frame-options")).toBe("SAMEORIGIN");
    expect(response.headers.get("content-security-policy")).toBe("default-src 'self'");
    expect(response.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
  });

  it("fw's shared page headers and the defaults list are the same", () => {
    expect(flatHeaders(Ok(<p />).headers)).toEqual(["content-type", "text/html; charset=utf-8", ...PAGE_DEFAULTS]);
  });
});

describe("Cache-Control: no-store on what a session was read for", () => {
  it("a browser page that sets the session cookie (a first visit mints the CSRF token) is not stored", async () => {
    const first = await app.get("/page");
    expect(sessionCookie(first)).toBeDefined();
    expect(first.headers.get("cache-control")).toBe("no-store");
  });

  it("a browser page read with a cookie that verified is not stored, even when it writes none", async () => {
    const cookie = sessionCookie(await app.get("/login")) as string;
    const page = await app.get("/page", { headers: { cookie } });
    expect(page.headers.get("set-cookie")).toBeNull();
    expect(page.headers.get("cache-control")).toBe("no-store");
    const error = await app.get("/missing", { headers: { cookie } });
    expect(error.status).toBe(404);
    expect(error.headers.get("cache-control")).toBe("no-store");
  });

  it("a handler's own Cache-Control is kept", async () => {
    const cookie = sessionCookie(await app.get("/login")) as string;
    expect((await app.get("/cached", { headers: { cookie } })).headers.get("cache-control")).toBe("public, max-age=60");
  });

  it("API routes read no session, so fw says nothing about caching them", async () => {
    expect((await app.get("/api/page")).headers.get("cache-control")).toBeNull();
    expect((await app.get("/nowhere")).headers.get("cache-control")).toBeNull();
  });
});
