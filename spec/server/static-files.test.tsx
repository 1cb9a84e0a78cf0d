import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Ok, Route, RouteTable, type Request } from "../../runtime/index.js";
import { defaultPublicDir } from "../../runtime/server/static-files.js";
import { rawRequest, serve, type Served } from "../support/serve.js";

// The app's public/ folder (docs/guides/static-files.md): files at their path from `/`, asked only
// when no route answers the path, for GET and HEAD, without the session.
const scratch = mkdtempSync(join(tmpdir(), "fw-public-"));
const publicDir = join(scratch, "public");
const CSS = "body { color: #222; }\n";

const table = RouteTable.of(
  Route.get("/", (request: Request) => Ok(<p>home {request.csrf}</p>)),
  Route.get("/taken.txt", () => Ok(<p>the route</p>)),
);

let app: Served;
beforeAll(async () => {
  mkdirSync(join(publicDir, "img"), { recursive: true });
  mkdirSync(join(publicDir, "fw"), { recursive: true });
  mkdirSync(join(publicDir, ".git"), { recursive: true });
  writeFileSync(join(publicDir, "app.css"), CSS);
  writeFileSync(join(publicDir, "app.3f2a1c9b.css"), CSS);
  writeFileSync(join(publicDir, "app.min.css"), CSS);
  writeFileSync(join(publicDir, "img", "logo.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>");
  writeFileSync(join(publicDir, "favicon.ico"), Buffer.from([0, 0, 1, 0]));
  writeFileSync(join(publicDir, "data.bin"), Buffer.from([1, 2, 3]));
  writeFileSync(join(publicDir, "page.html"), "<p>static</p>");
  writeFileSync(join(publicDir, "taken.txt"), "the file");
  writeFileSync(join(publicDir, "a b.txt"), "spaced");
  writeFileSync(join(publicDir, ".env"), "SECRET=1");
  writeFileSync(join(publicDir, ".git", "config"), "[core]");
  writeFileSync(join(publicDir, "fw", "health"), "not fw's");
  writeFileSync(join(scratch, "secret.txt"), "outside");
  symlinkSync(join(scratch, "secret.txt"), join(publicDir, "link.txt"));
  // A fixed time, so Last-Modified and If-Modified-Since are exact.
  const then = new Date("2026-01-02T03:04:05Z");
  utimesSync(join(publicDir, "app.css"), then, then);
  app = await serve({ routes: table, publicDir });
});
afterAll(async () => {
  await app.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe("a file of public/", () => {
  it("is served at its path with its type, validators and a revalidation policy, and no cookie", async () => {
    const response = await app.get("/app.css");
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(CSS);
    expect(response.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("etag")).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    expect(response.headers.get("last-modified")).toBe("Fri, 02 Jan 2026 03:04:05 GMT");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(response.headers.get("content-length")).toBe(String(CSS.length));
    // A page on a first visit mints its CSRF token into a new cookie; a file reads and writes no session.
    expect((await app.get("/")).headers.getSetCookie()).toHaveLength(1);
    expect(response.headers.getSetCookie()).toEqual([]);
  });

  it("sets no cookie and keeps its caching when a session cookie comes with it", async () => {
    const first = await app.get("/");
    const cookie = (first.headers.get("set-cookie") ?? "").split(";")[0] as string;
    const response = await app.get("/app.css", { headers: { cookie } });
    expect(response.status).toBe(200);
    expect(response.headers.getSetCookie()).toEqual([]);
    expect(response.headers.get("cache-control")).toBe("no-cache");
  });

  it("with a content hash in its name is cached for a year, immutable; other dotted names are not", async () => {
    expect((await app.get("/app.3f2a1c9b.css")).headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect((await app.get("/app.min.css")).headers.get("cache-control")).toBe("no-cache");
  });

  it("answers 304 with its validators and no body to If-None-Match and If-Modified-Since", async () => {
    const etag = (await app.get("/app.css")).headers.get("etag") as string;
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const again = await app.get("/app.css", { headers: { "if-none-match": ifNoneMatch } });
      expect(again.status, ifNoneMatch).toBe(304);
      expect(await again.text()).toBe("");
      expect(again.headers.get("etag")).toBe(etag);
      expect(again.headers.get("cache-control")).toBe("no-cache");
    }
    expect((await app.get("/app.css", { headers: { "if-none-match": '"other"' } })).status).toBe(200);
    // If-None-Match decides when sent: a matching date does not make a changed tag a 304.
    expect((await app.get("/app.css", { headers: { "if-none-match": '"other"', "if-modified-since": "Fri, 02 Jan 2026 03:04:05 GMT" } })).status).toBe(200);
    expect((await app.get("/app.css", { headers: { "if-modified-since": "Fri, 02 Jan 2026 03:04:05 GMT" } })).status).toBe(304);
    expect((await app.get("/app.css", { headers: { "if-modified-since": "Sat, 03 Jan 2026 00:00:00 GMT" } })).status).toBe(304);
    expect((await app.get("/app.css", { headers: { "if-modified-since": "Thu, 01 Jan 2026 00:00:00 GMT" } })).status).toBe(200);
    expect((await app.get("/app.css", { headers: { "if-modified-since": "yesterday" } })).status).toBe(200);
  });

  it("a 304 carries no Content-Length", async () => {
    const etag = (await app.get("/app.css")).headers.get("etag") as string;
    const raw = await rawRequest(app.port, `GET /app.css HTTP/1.1\r\nHost: 127.0.0.1\r\nIf-None-Match: ${etag}\r\nConnection: close\r\n\r\n`);
    expect(raw).toMatch(/^HTTP\/1.1 304 /);
    expect(raw.toLowerCase()).not.toContain("content-length");
  });

  it("answers HEAD with the GET's headers and no body", async () => {
    const raw = await rawRequest(app.port, "HEAD /app.css HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    expect(raw).toMatch(/^HTTP\/1.1 200 /);
    expect(raw.toLowerCase()).toContain(`content-length: ${CSS.length}`);
    expect(raw.toLowerCase()).toContain("content-type: text/css; charset=utf-8");
    expect(raw.endsWith("\r\n\r\n")).toBe(true);
  });

  it("has the content type its extension names; an unknown one is application/octet-stream", async () => {
    const types: Record<string, string> = {
      "/img/logo.svg": "image/svg+xml",
      "/favicon.ico": "image/x-icon",
      "/data.bin": "application/octet-stream",
      "/a%20b.txt": "text/plain; charset=utf-8",
    };
    for (const [path, type] of Object.entries(types)) {
      const response = await app.get(path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("content-type"), path).toBe(type);
    }
    const page = await app.get("/page.html");
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self';"); // the app's policy, as pages get it
  });

  it("is not asked when a route answers the path, nor for other methods", async () => {
    expect(await (await app.get("/taken.txt")).text()).toContain("the route");
    const posted = await app.post("/app.css", "a=1");
    expect(posted.status).toBe(404);
  });
});

describe("what public/ never serves", () => {
  it("a dotfile or a dot folder, a directory, a missing file, fw's prefix, a link out of the folder: 404", async () => {
    for (const path of ["/.env", "/.git/config", "/img", "/img/", "/missing.css", "/fw/health/x", "/fw/health", "/link.txt"]) {
      const response = await app.get(path);
      const body = await response.text();
      if (path === "/fw/health") {
        expect(body).toBe("ok"); // fw's own health check, never the file
        continue;
      }
      expect(response.status, path).toBe(404);
      expect(body, path).not.toContain("SECRET");
      expect(body, path).not.toContain("outside");
      expect(body, path).not.toContain("[core]");
    }
  });

  it("a path climbing out, encoded or not, with NUL or a backslash: 400, nothing read", async () => {
    for (const path of ["/../secret.txt", "/%2e%2e/secret.txt", "/img/..%2F..%2Fsecret.txt", "/%2Fsecret.txt", "/app.css%00", "/img%5C..%5C..%5Csecret.txt", "/..%5Csecret.txt"]) {
      const raw = await rawRequest(app.port, `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
      expect(raw, path).toMatch(/^HTTP\/1.1 400 /);
      expect(raw, path).not.toContain("outside");
    }
  });

  it("anything, when the folder is missing or publicDir is false", async () => {
    const none = await serve({ routes: table, publicDir: join(scratch, "nothing-here") });
    const off = await serve({ routes: table, publicDir: false });
    try {
      expect((await none.get("/app.css")).status).toBe(404);
      expect((await off.get("/app.css")).status).toBe(404);
    } finally {
      await none.close();
      await off.close();
    }
  });
});

describe("where public/ is by default", () => {
  it("beside the dist/ the entry runs from (built, bundled or a built test), else in the working directory", () => {
    expect(defaultPublicDir("/apps/shop/dist/main.js", "/elsewhere")).toBe("/apps/shop/public");
    expect(defaultPublicDir("/apps/shop/dist/bundle/main.js", "/elsewhere")).toBe("/apps/shop/public");
    expect(defaultPublicDir("dist/tests/home.test.js", "/apps/shop")).toBe("/apps/shop/public");
    expect(defaultPublicDir("/apps/shop/server.js", "/apps/shop")).toBe("/apps/shop/public");
    expect(defaultPublicDir(undefined, "/apps/shop")).toBe("/apps/shop/public");
    expect(statSync(publicDir).isDirectory()).toBe(true);
  });
});
