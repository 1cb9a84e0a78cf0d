import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDevHook } from "../../runtime/dev/in-app.js";
import { HttpApp, NotFound, Ok, Redirect, Route, RouteTable, status, type HttpAppOptions } from "../../runtime/index.js";
import { pageDefaults } from "../../runtime/http/default-headers.js";
import { flatHeaders } from "../../runtime/http/response.js";
import { withScriptHash } from "../../runtime/server/content-security-policy.js";
import { rawRequest, serve, sessionCookie, TEST_SECRET, type Served } from "../support/serve.js";

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

/** fw's default policy, as docs/security.md writes it. */
const POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

function expectPageDefaults(response: globalThis.Response): void {
  expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  expect(response.headers.get("x-frame-options")).toBe("DENY");
  expect(response.headers.get("content-security-policy")).toBe(POLICY);
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

  it("fw's shared page headers and a handler's own HTML headers get the same defaults", () => {
    const page = pageDefaults(POLICY, "DENY");
    expect(flatHeaders(Ok(<p />).headers, page)).toEqual(["content-type", "text/html; charset=utf-8", ...page]);
    expect(flatHeaders([["Content-Type", "text/html"]], page)).toEqual(["Content-Type", "text/html", ...page]);
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

/** Boots `table` with `options` (production unless `dev`), runs `check`, and stops it. */
async function withApp(options: Partial<HttpAppOptions>, check: (app: Served) => Promise<void>, dev = false): Promise<void> {
  const served = await serve({ routes: table, ...options }, { dev });
  try {
    await check(served);
  } finally {
    await served.close();
  }
}

/** Why `options` cannot boot (the BootError's message); fails the test when it boots. */
async function bootRefusal(options: Partial<HttpAppOptions>): Promise<string> {
  const app = new HttpApp({ secret: TEST_SECRET, routes: table, allowedHosts: ["*"], ...options });
  app.console = { out: () => {}, err: () => {} };
  const outcome = await app.serve({ port: 0, host: "127.0.0.1", accessLog: false }).then(
    async (running) => {
      await running.close();
      return "booted";
    },
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(Error);
  expect((outcome as Error).name).toBe("BootError");
  return (outcome as Error).message;
}

describe("Content-Security-Policy: the contentSecurityPolicy setting", () => {
  it("directives are merged over fw's one by one: a named one replaces fw's, a new one is added, null drops one", async () => {
    const contentSecurityPolicy = {
      "img-src": ["'self'", "https://cdn.example.com"],
      "connect-src": ["'self'", "https://api.example.com"],
      "base-uri": null,
    };
    await withApp({ contentSecurityPolicy }, async (app) => {
      for (const path of ["/page", "/nowhere", "/api/page"]) {
        expect((await app.get(path)).headers.get("content-security-policy"), path).toBe(
          "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' https://cdn.example.com; object-src 'none'; form-action 'self'; frame-ancestors 'none'; connect-src 'self' https://api.example.com",
        );
      }
      // A handler's own policy still wins.
      expect((await app.get("/framable")).headers.get("content-security-policy")).toBe("default-src 'self'");
    });
  });

  it("X-Frame-Options says what frame-ancestors says: SAMEORIGIN for 'self', nothing when it allows more or is dropped", async () => {
    await withApp({ contentSecurityPolicy: { "frame-ancestors": ["'self'"] } }, async (app) => {
      expect((await app.get("/page")).headers.get("x-frame-options")).toBe("SAMEORIGIN");
    });
    await withApp({ contentSecurityPolicy: { "frame-ancestors": ["https://partner.example"] } }, async (app) => {
      const page = await app.get("/page");
      expect(page.headers.get("x-frame-options")).toBeNull();
      expect(page.headers.get("content-security-policy")).toContain("frame-ancestors https://partner.example");
    });
    await withApp({ contentSecurityPolicy: { "frame-ancestors": null } }, async (app) => {
      const page = await app.get("/page");
      expect(page.headers.get("x-frame-options")).toBeNull();
      expect(page.headers.get("content-security-policy")).not.toContain("frame-ancestors");
    });
  });

  it("a policy's text replaces fw's whole; false sends none (the frame guard stays)", async () => {
    await withApp({ contentSecurityPolicy: "default-src 'none'; img-src 'self'; style-src 'self'" }, async (app) => {
      const page = await app.get("/page");
      expect(page.headers.get("content-security-policy")).toBe("default-src 'none'; img-src 'self'; style-src 'self'");
      expect(page.headers.get("x-frame-options")).toBeNull();
    });
    await withApp({ contentSecurityPolicy: false }, async (app) => {
      const page = await app.get("/page");
      expect(page.headers.get("content-security-policy")).toBeNull();
      expect(page.headers.get("x-frame-options")).toBe("DENY");
      expect(page.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    });
  });

  it("a policy that would not protect what it says refuses to boot, naming the directive and the fix", async () => {
    expect(await bootRefusal({ contentSecurityPolicy: { "script-src": ["self"] } })).toMatch(/script-src lists self without quotes.*"'self'"/);
    expect(await bootRefusal({ contentSecurityPolicy: "default-src 'self'; img-src none" })).toMatch(/img-src lists none without quotes/);
    expect(await bootRefusal({ contentSecurityPolicy: { scriptSrc: ["'self'"] } })).toMatch(/"scriptSrc" is not a Content-Security-Policy directive \(directives are written lower-case with hyphens: "script-src"\)/);
    expect(await bootRefusal({ contentSecurityPolicy: { "img-scr": ["'self'"] } })).toMatch(/"img-scr" is not a Content-Security-Policy directive; browsers would ignore it/);
    expect(await bootRefusal({ contentSecurityPolicy: { "object-src": ["'none'", "'self'"] } })).toMatch(/object-src lists 'none' beside other sources/);
    expect(await bootRefusal({ contentSecurityPolicy: { "img-src": ["'self'; script-src *"] } })).toMatch(/img-src has the source "'self'; script-src \*"/);
    // Where TypeScript would have said so: a plain JavaScript app, or a value built at run time.
    expect(await bootRefusal({ contentSecurityPolicy: { "img-src": "'self'" as unknown as string[] } })).toMatch(/\["img-src"\] must be a list of sources/);
    expect(await bootRefusal({ contentSecurityPolicy: "default-src 'self'; default-src *" })).toMatch(/names default-src twice/);
    expect(await bootRefusal({ contentSecurityPolicy: " ; " })).toMatch(/is an empty policy/);
  });

  it("in dev the reload client's inline script is allowed by its hash, and nothing else inline is", async () => {
    await withApp(
      {},
      async (app) => {
        const page = await app.get("/page");
        const html = await page.text();
        const script = /<script data-fw-reload[^>]*>([^]*?)<\/script>/.exec(html)?.[1] as string;
        const hash = `'sha256-${createHash("sha256").update(script).digest("base64")}'`;
        expect(page.headers.get("content-security-policy")).toBe(POLICY.replace("script-src 'self'", `script-src 'self' ${hash}`));
        // The hash does not change with the page: problem pages carry the same one.
        expect((await app.get("/nowhere")).headers.get("content-security-policy")).toContain(hash);
      },
      true,
    );
  });

  it("the reload client's hash goes where the policy decides about inline scripts, and never switches 'unsafe-inline' off", () => {
    const add = (directives: Record<string, string[]>) => Object.fromEntries(withScriptHash(new Map(Object.entries(directives)), "'sha256-x'"));
    expect(add({ "default-src": ["'self'"] })).toEqual({ "default-src": ["'self'"], "script-src": ["'self'", "'sha256-x'"] });
    expect(add({ "default-src": ["'none'"], "script-src-elem": ["'self'"] })).toEqual({ "default-src": ["'none'"], "script-src-elem": ["'self'", "'sha256-x'"] });
    expect(add({ "script-src": ["'none'"] })).toEqual({ "script-src": ["'sha256-x'"] });
    expect(add({ "script-src": ["'self'", "'unsafe-inline'"] })).toEqual({ "script-src": ["'self'", "'unsafe-inline'"] });
    expect(add({ "script-src": ["'unsafe-inline'", "'nonce-abc'"] })).toEqual({ "script-src": ["'unsafe-inline'", "'nonce-abc'", "'sha256-x'"] });
    expect(add({ "img-src": ["'self'"] })).toEqual({ "img-src": ["'self'"] }); // scripts are not restricted: nothing to allow
  });
});

describe("Strict-Transport-Security", () => {
  const secure = { headers: { "x-forwarded-proto": "https" } };

  it("production sends it on every answer to a secure request (behind a trusted proxy): pages, text, redirects, problems", async () => {
    await withApp({ trustProxy: true }, async (app) => {
      for (const path of ["/page", "/text", "/login", "/nowhere", "/api/raw"]) {
        expect((await app.get(path, secure)).headers.get("strict-transport-security"), path).toBe("max-age=31536000");
      }
      // Plain HTTP never: a browser ignores it there, and the app would be claiming HTTPS it may not have.
      expect((await app.get("/page")).headers.get("strict-transport-security")).toBeNull();
    });
  });

  it("is never sent over plain HTTP, whatever a proxy the app does not trust claims", async () => {
    expect((await app.get("/page", secure)).headers.get("strict-transport-security")).toBeNull();
    expect((await app.get("/page")).headers.get("strict-transport-security")).toBeNull();
  });

  it("is configurable (max-age, includeSubDomains, preload), can be turned off, and dev never sends it", async () => {
    await withApp({ trustProxy: true, strictTransportSecurity: { maxAge: 600, includeSubDomains: true } }, async (app) => {
      expect((await app.get("/page", secure)).headers.get("strict-transport-security")).toBe("max-age=600; includeSubDomains");
    });
    await withApp({ trustProxy: true, strictTransportSecurity: { includeSubDomains: true, preload: true } }, async (app) => {
      expect((await app.get("/page", secure)).headers.get("strict-transport-security")).toBe("max-age=31536000; includeSubDomains; preload");
    });
    await withApp({ trustProxy: true, strictTransportSecurity: false }, async (app) => {
      expect((await app.get("/page", secure)).headers.get("strict-transport-security")).toBeNull();
    });
    await withApp({ trustProxy: true }, async (app) => expect((await app.get("/page", secure)).headers.get("strict-transport-security")).toBeNull(), true);
  });

  it("a handler's own value wins", async () => {
    const routes = RouteTable.of(Route.get("/", () => Ok("x").withHeader("Strict-Transport-Security", "max-age=0")));
    const served = await serve({ routes, trustProxy: true });
    try {
      expect((await served.get("/", secure)).headers.get("strict-transport-security")).toBe("max-age=0");
    } finally {
      await served.close();
    }
  });

  it("settings browsers would refuse, or the preload lists, refuse to boot", async () => {
    expect(await bootRefusal({ strictTransportSecurity: { maxAge: -1 } })).toMatch(/strictTransportSecurity.maxAge must be a whole number of seconds/);
    expect(await bootRefusal({ strictTransportSecurity: { maxAge: 1.5 } })).toMatch(/maxAge must be a whole number/);
    expect(await bootRefusal({ strictTransportSecurity: { preload: true } })).toMatch(/preload needs includeSubDomains: true and a maxAge of at least 31536000/);
    expect(await bootRefusal({ strictTransportSecurity: { preload: true, includeSubDomains: true, maxAge: 600 } })).toMatch(/preload needs/);
  });
});
