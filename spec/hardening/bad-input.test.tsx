import { connect as connectTcp, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FromPath, Ok, Redirect, Route, RouteTable, type Layout, type Request } from "../../runtime/index.js";
import { MAX_HEADERS, MAX_TARGET_LENGTH } from "../../runtime/server/limits.js";
import { csrfFrom, rawRequest, serve, sessionCookie, type Served } from "../support/serve.js";

/**
 * The black-box bad-input suite (issue 9): a real server on 127.0.0.1, raw sockets where a
 * client library would tidy the input up. It covers what spec/server/dispatch.test.tsx and
 * spec/http leave open; each case says what fw answers.
 */

const layout: Layout = ({ title, content }) => (
  <html lang="en">
    <head>
      <title>{title ?? "untitled"}</title>
    </head>
    <body>{content}</body>
  </html>
);

const formPage = (request: Request) => Ok(<input type="hidden" name="_csrf" value={request.csrf} />);
const fieldsOf = (request: Request) =>
  Ok(JSON.stringify({ form: [...request.form.entries()], query: [...request.query.entries()], polluted: Object.keys(Object.prototype) }));

const routes = RouteTable.of(
  Route.get("/", () => Ok("home")),
  Route.get("/a/b", () => Ok("a/b")),
  Route.get("/form", formPage),
  Route.post("/echo", (request) => Ok(`${request.method} ${request.form.get("x") ?? ""}`)),
  Route.put("/echo", (request) => Ok(`${request.method} ${request.form.get("x") ?? ""}`)),
  Route.get("/read", (request) => Ok(`user=${request.session.get("user") ?? "none"}`)),
  Route.get("/fields", fieldsOf),
  Route.post("/fields", fieldsOf),
  Route.get("/login-as/:name", (request) => Redirect("/").withSession(request.session.set("user", request.params["name"] ?? ""))),
  Route.get("/segments/:one", (request) => Ok(`one=${JSON.stringify(request.params["one"])} polluted=${Object.keys(Object.prototype).length}`)),
  Route.get("/items/:id", (request: Request<{ id: number }>) => Ok(`item ${request.params.id}`), { params: { id: FromPath.int } }),
  Route.get("/files/*rest", (request) => Ok(`rest=${JSON.stringify(request.params["rest"])}`)),
  Route.get("/things/:x", (request) => Ok(`thing ${request.params["x"]}`)),
  Route.post("/things/:x", () => Ok("posted")),
  Route.get("/redirect", (request) => Redirect(request.query.get("to") ?? "/")),
  Route.get("/throws", (request) => {
    throw new Error(`failed on ${request.query.get("q") ?? ""}`);
  }),
  Route.api({ method: "POST", path: "/api/echo", handler: (request) => Ok(`got ${request.body.length} bytes: ${request.text}`) }),
);

const CAP = 1000;
const secretA = "rotation-secret-A-0123456789-abcdefghijklmnop";
const secretB = "rotation-secret-B-0123456789-abcdefghijklmnop";

let app: Served;
beforeAll(async () => {
  app = await serve({ routes, layout, maxBodySize: CAP });
});
afterAll(() => app.close());

/** What came back on one raw connection, and whether the server closed it. */
interface Exchange {
  readonly text: string;
  readonly closedByServer: boolean;
}

/**
 * Writes `bytes` (optionally half-closing after them) and collects the answer until the server
 * closes the connection or `waitMs` pass. Unlike `rawRequest` it tells the two apart.
 */
function exchange(bytes: string | Buffer, options: { halfClose?: boolean; waitMs?: number } = {}): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = connectTcp(app.port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const done = (closedByServer: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text: Buffer.concat(chunks).toString("latin1"), closedByServer });
    };
    const timer = setTimeout(() => done(false), options.waitMs ?? 2000);
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("end", () => done(true));
    socket.on("error", () => done(true));
    if (options.halfClose === true) socket.end(bytes);
    else socket.write(bytes);
  });
}

const get = (target: string, headers = ""): string => `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${headers}\r\n`;
const statusOf = (answer: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
const bodyOf = (answer: string): string => answer.slice(answer.indexOf("\r\n\r\n") + 4);

async function stillServing(): Promise<void> {
  expect(await (await app.get("/")).text()).toBe("home");
}

async function withToken(target: Served = app): Promise<{ cookie: string; token: string }> {
  const page = await target.get("/form");
  return { cookie: sessionCookie(page) as string, token: csrfFrom(await page.text()) };
}

describe("session cookies that are not what fw wrote → an empty session, never an error", () => {
  it.each([
    ["not base64url at all", () => "fw_session=!!!@@@.###$$$"],
    ["a signature cut at the dot", (c: string) => c.slice(0, c.indexOf(".") + 1)],
    ["the payload alone", (c: string) => c.slice(0, c.indexOf("."))],
    ["two dots", (c: string) => `${c}.${c.slice(c.indexOf(".") + 1)}`],
    ["an empty value", () => "fw_session="],
    ["a valid cookie beside a garbage one of the same name", (c: string) => `${c}; fw_session=garbage`],
    ["oversized: 8 KB of base64url", () => `fw_session=${"A".repeat(8000)}.${"B".repeat(43)}`],
    ["a payload of the wrong shape, signed by nobody", () => `fw_session=${Buffer.from('{"i":0,"e":{"user":"mallory"}}').toString("base64url")}.${"A".repeat(43)}`],
  ])("%s", async (_, mangle) => {
    const cookie = sessionCookie(await app.get("/login-as/bob")) as string;
    const response = await app.get("/read", { headers: { cookie: mangle(cookie) } });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("user=none");
  });

  it("a Cookie header of 15 KB reads as empty; one past Node's 16 KiB header cap is a plain 431; the server goes on", async () => {
    const big = await app.get("/read", { headers: { cookie: `fw_session=${"x".repeat(15_000)}` } });
    expect(big.status).toBe(200);
    expect(await big.text()).toBe("user=none");
    const answer = await rawRequest(app.port, get("/read", `Cookie: fw_session=${"x".repeat(20_000)}\r\n`));
    expect(statusOf(answer)).toBe(431);
    await stillServing();
  });
});

describe("secrets rotated (previousSecrets)", () => {
  it("an app booted with a new secret and previousSecrets: [old] reads an old cookie, and re-signs with the new one when it writes", async () => {
    const before = await serve({ routes, layout, secret: secretA });
    const rotated = await serve({ routes, layout, secret: secretB, previousSecrets: [secretA] });
    const onlyNew = await serve({ routes, layout, secret: secretB });
    const onlyOld = await serve({ routes, layout, secret: secretA });
    try {
      const old = sessionCookie(await before.get("/login-as/ada")) as string;
      // Read with the old secret; nothing changed, so nothing is written.
      const read = await rotated.get("/read", { headers: { cookie: old } });
      expect(await read.text()).toBe("user=ada");
      expect(read.headers.get("set-cookie")).toBeNull();
      // The old cookie's CSRF token is honoured too: rotation signs nobody out.
      const token = csrfFrom(await (await rotated.get("/form", { headers: { cookie: old } })).text());
      expect((await rotated.post("/echo", { _csrf: token, x: "1" }, { headers: { cookie: old } })).status).toBe(200);
      // A write re-signs with the new secret: only the new secret reads it now.
      const cookie = sessionCookie(await rotated.get("/login-as/ada2", { headers: { cookie: old } })) as string;
      expect(cookie).toMatch(/^fw_session=/);
      expect(await (await onlyNew.get("/read", { headers: { cookie } })).text()).toBe("user=ada2");
      expect(await (await onlyOld.get("/read", { headers: { cookie } })).text()).toBe("user=none");
    } finally {
      await Promise.all([before.close(), rotated.close(), onlyNew.close(), onlyOld.close()]);
    }
  });

  it("without previousSecrets an old cookie reads as empty, and a form from before the rotation gets 403", async () => {
    const before = await serve({ routes, layout, secret: secretA });
    const after = await serve({ routes, layout, secret: secretB });
    try {
      const { cookie, token } = await withToken(before);
      await before.get("/login-as/ada", { headers: { cookie } });
      const old = sessionCookie(await before.get("/login-as/ada", { headers: { cookie } })) as string;
      expect(await (await after.get("/read", { headers: { cookie: old } })).text()).toBe("user=none");
      expect((await after.post("/echo", { _csrf: token, x: "1" }, { headers: { cookie: old } })).status).toBe(403);
    } finally {
      await Promise.all([before.close(), after.close()]);
    }
  });
});

describe("CSRF (gaps beside dispatch.test.tsx)", () => {
  it("a POST with no session at all → 403, saying the session has no token", async () => {
    const response = await app.post("/echo", { _csrf: "anything", x: "1" });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain("no CSRF token in this session");
  });

  it("the right token with a tampered cookie → 403 (the tampered session has no token)", async () => {
    const { cookie, token } = await withToken();
    const tampered = cookie.replace(/^(fw_session=.{5})(.)/, (_, head: string, ch: string) => `${head}${ch === "A" ? "B" : "A"}`);
    expect((await app.post("/echo", { _csrf: token, x: "1" }, { headers: { cookie: tampered } })).status).toBe(403);
  });

  it("a token with different case or padding → 403", async () => {
    const { cookie, token } = await withToken();
    for (const sent of [token.toUpperCase(), `${token}=`, ` ${token}`, token.slice(0, -1)]) {
      expect((await app.post("/echo", { _csrf: sent, x: "1" }, { headers: { cookie } })).status, sent).toBe(403);
    }
  });
});

describe("_method (gaps)", () => {
  it("a GET's urlencoded body with _method=PUT is never read: served as GET", async () => {
    const answer = await rawRequest(
      app.port,
      "GET /read HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 11\r\n\r\n_method=PUT",
    );
    expect(statusOf(answer)).toBe(200);
    expect(bodyOf(answer)).toBe("user=none");
  });

  it.each(["HEAD", "OPTIONS", "TRACE", "CONNECT", "put ", "PROPFIND", ""])("_method=%j → 400 naming what was asked", async (asked) => {
    const { cookie, token } = await withToken();
    const response = await app.post("/echo", { _method: asked, _csrf: token }, { headers: { cookie } });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("_method may ask for PUT, PATCH or DELETE only");
  });
});

describe("bodies", () => {
  it("a Content-Length of exactly the cap is read; one byte more → 413 and the connection closes", async () => {
    const ok = await fetch(app.url + "/api/echo", { method: "POST", body: "y".repeat(CAP) });
    expect(await ok.text()).toMatch(/^got 1000 bytes/);
    const over = await exchange(`POST /api/echo HTTP/1.1\r\nHost: x\r\nContent-Length: ${CAP + 1}\r\n\r\n`);
    expect(statusOf(over.text)).toBe(413);
    expect(over.closedByServer).toBe(true);
  });

  it("many small chunks past the cap → 413 as soon as the cap is passed", async () => {
    const chunks = Array.from({ length: 40 }, () => "1e\r\n" + "z".repeat(30) + "\r\n").join("");
    const answer = await exchange(`POST /api/echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${chunks}`);
    expect(statusOf(answer.text)).toBe(413);
    expect(answer.closedByServer).toBe(true);
    await stillServing();
  });

  it("a Content-Length with no body, then the client half-closes: no answer to read, no crash, no hang; others are served", async () => {
    const started = Date.now();
    const answer = await exchange("POST /api/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc", { halfClose: true, waitMs: 3000 });
    expect(answer.closedByServer).toBe(true);
    expect(Date.now() - started).toBeLessThan(2000);
    expect([0, 400]).toContain(statusOf(answer.text)); // Node's parser says 400 when it can still write
    await stillServing();
  });

  it("a Content-Length with a body that stops coming: the request waits alone; other clients are served meanwhile", async () => {
    const stalled: Socket = connectTcp(app.port, "127.0.0.1");
    stalled.on("error", () => {});
    const received: Buffer[] = [];
    stalled.on("data", (chunk) => received.push(chunk));
    stalled.write("POST /api/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly-part");
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      await Promise.all([stillServing(), stillServing(), app.post("/fields", "a=1").then((r) => expect(r.status).toBe(403))]);
      expect(received).toHaveLength(0); // not answered as if the body were complete
    } finally {
      stalled.destroy();
    }
    await stillServing();
  });
});

describe("Content-Length / Transfer-Encoding conflicts → plain 400, connection closed, nothing smuggled", () => {
  const smuggled = "GET /a/b HTTP/1.1\r\nHost: x\r\n\r\n";
  it.each([
    ["both headers", `Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${smuggled}`],
    ["two different Content-Lengths", `Content-Length: 3\r\nContent-Length: 40\r\n\r\nabc${smuggled}`],
    ["the same Content-Length twice", `Content-Length: 3\r\nContent-Length: 3\r\n\r\nabc`],
    ["a Content-Length list", `Content-Length: 3, 3\r\n\r\nabc`],
    ["a negative Content-Length", `Content-Length: -1\r\n\r\nabc`],
    ["a Content-Length with junk", `Content-Length: 3x\r\n\r\nabc`],
    ["a Content-Length too big for any integer", `Content-Length: 99999999999999999999999\r\n\r\nabc`],
    ["Transfer-Encoding: gzip (not chunked last)", `Transfer-Encoding: gzip\r\n\r\nabc${smuggled}`],
    ["Transfer-Encoding: chunked, gzip", `Transfer-Encoding: chunked, gzip\r\n\r\n3\r\nabc\r\n0\r\n\r\n`],
    ["Transfer-Encoding: xchunked", `Transfer-Encoding: xchunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n`],
    ["Transfer-Encoding twice", `Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`],
    ["a malformed chunk size", `Transfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n`],
  ])("%s", async (_, rest) => {
    const answer = await exchange(`POST /api/echo HTTP/1.1\r\nHost: x\r\n${rest}`);
    expect(answer.text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer.text.toLowerCase()).toContain("connection: close");
    expect(answer.text).toContain("content-type: text/plain");
    expect(answer.closedByServer).toBe(true);
    expect(answer.text.match(/HTTP\/1\.1 /g)).toHaveLength(1); // no second answer, for a smuggled request
    expect(answer.text).not.toContain("a/b");
    await stillServing();
  });
});

describe("invalid UTF-8 and percent-encoding → 400 problem page", () => {
  it.each(["/segments/%E0%80", "/segments/%ED%A0%80", "/segments/%F4%90%80%80", "/segments/%C2", "/segments/%", "/segments/%G0", "/fields?q=%FF", "/fields?%E0%80=x"])(
    "GET %s",
    async (target) => {
      const answer = await rawRequest(app.port, get(target));
      expect(statusOf(answer)).toBe(400);
      expect(answer).toContain("<h1>400 Bad Request</h1>");
    },
  );

  it("a raw 0xFF byte in the request line → plain 400 from the parser", async () => {
    const answer = await rawRequest(app.port, Buffer.concat([Buffer.from("GET /segments/"), Buffer.from([0xff]), Buffer.from(" HTTP/1.1\r\nHost: x\r\n\r\n")]));
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
  });

  it.each([
    ["raw 0xFF bytes", Buffer.from([0x78, 0x3d, 0x61, 0xff, 0x62])],
    ["a truncated UTF-8 sequence", Buffer.from("x=%E0%80")],
    ["an encoded lone surrogate", Buffer.from("x=%ED%A0%80")],
    ["a field name that does not decode", Buffer.from("%FF=1")],
  ])("a form with %s → 400 problem page, before CSRF is even asked", async (_, body) => {
    const { cookie, token } = await withToken();
    const response = await fetch(app.url + "/echo", {
      method: "POST",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: Buffer.concat([Buffer.from(`_csrf=${token}&`), body]),
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("<h1>400 Bad Request</h1>");
  });
});

describe("__proto__ and friends are plain names", () => {
  it("in a form and a query: kept as fields, Object.prototype untouched", async () => {
    const { cookie, token } = await withToken();
    const response = await app.post(
      "/fields?__proto__=q&constructor=c",
      `_csrf=${token}&__proto__=p&__proto__%5Bpolluted%5D=1&constructor%5Bprototype%5D%5Bx%5D=2`,
      { headers: { cookie } },
    );
    const seen = JSON.parse(await response.text()) as { form: [string, string][]; query: [string, string][]; polluted: string[] };
    expect(seen.form).toEqual([["_csrf", token], ["__proto__", "p"], ["__proto__[polluted]", "1"], ["constructor[prototype][x]", "2"]]);
    expect(seen.query).toEqual([["__proto__", "q"], ["constructor", "c"]]);
    expect(seen.polluted).toEqual([]);
    expect(Object.keys(Object.prototype)).toEqual([]);
  });

  it("in path parameters: a value like any other", async () => {
    expect(await (await app.get("/segments/__proto__")).text()).toBe('one="__proto__" polluted=0');
    expect(await (await app.get("/files/__proto__/constructor")).text()).toBe('rest="__proto__/constructor"');
    expect((await app.get("/items/__proto__")).status).toBe(400);
  });
});

describe("dot segments and empty segments: fw never resolves or merges, it refuses (400)", () => {
  it.each([
    "/a//b",
    "//a/b",
    "//",
    "/a/b//",
    "/../etc/passwd",
    "/a/../../etc/passwd",
    "/%2e%2e/",
    "/.%2E/etc/passwd",
    "/files//etc/passwd",
    "/files/..%2Fetc%2Fpasswd",
    "/files/a%2F..%2F..%2Fetc",
    "/files/%2Fetc%2Fpasswd",
    "/files/..%5C..%5Cwindows",
    "/files/..\\..\\windows",
    "/segments/%2E",
  ])("%s → 400 problem page, nothing read", async (target) => {
    const answer = await rawRequest(app.port, get(target));
    expect(statusOf(answer)).toBe(400);
    expect(answer).toContain("<h1>400 Bad Request</h1>");
    expect(answer).not.toContain("root:");
  });

  it("an encoded slash between ordinary names still stays inside its segment", async () => {
    expect(await (await app.get("/files/a%2Fb/c")).text()).toBe('rest="a/b/c"');
    expect(await (await app.get("/segments/1%2F2")).text()).toBe('one="1/2" polluted=0');
    expect(await (await app.get("/segments/..a")).text()).toBe('one="..a" polluted=0');
  });

  it("an absolute-form target is served by its path when it names the Host header's host (RFC 9112 3.2.2)", async () => {
    const answer = await rawRequest(app.port, get("http://x/a/b"));
    expect(statusOf(answer)).toBe(200);
    expect(bodyOf(answer)).toBe("a/b");
    expect(bodyOf(await rawRequest(app.port, get("HTTP://X/segments/1?q")))).toBe('one="1" polluted=0');
  });

  it("an absolute-form target naming another host, or an asterisk target → 400 problem page", async () => {
    const other = await rawRequest(app.port, get("http://127.0.0.1/a/b"));
    expect(statusOf(other)).toBe(400);
    expect(other).toContain("but the Host header says");
    expect(statusOf(await rawRequest(app.port, "OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))).toBe(400);
    await stillServing();
  });
});

describe("redirect targets with CR, LF or NUL → 400, no Location sent", () => {
  it.each(["/x%00y", "/x%0Dy", "/x%0Ay", "/x%0D%0ASet-Cookie:%20evil=1"])("Redirect(%s)", async (to) => {
    const response = await app.get(`/redirect?to=${to}`);
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
    expect(response.headers.get("set-cookie")).toBeNull();
    expect(await response.text()).toContain("line break or NUL");
  });

  it("an ordinary target is sent", async () => {
    expect((await app.get("/redirect?to=/a/b")).headers.get("location")).toBe("/a/b");
  });
});

describe("methods (gaps)", () => {
  it("HEAD of a missing path → 404 with no body; HEAD of a POST-only path → 405 with Allow and no body", async () => {
    const missing = await fetch(app.url + "/nowhere", { method: "HEAD" });
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe("");
    const postOnly = await rawRequest(app.port, "HEAD /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(statusOf(postOnly)).toBe(405);
    expect(postOnly).toMatch(/\r\nallow: POST, PUT\r\n/i);
    expect(bodyOf(postOnly)).toBe("");
  });

  it("a lower-case method is not GET → 501 (a problem page, like any method fw does not serve)", async () => {
    expect(statusOf(await rawRequest(app.port, "get / HTTP/1.1\r\nHost: x\r\n\r\n"))).toBe(501);
  });

  it("an unknown method carrying a body → 501, and the server goes on", async () => {
    const answer = await exchange("PROPFIND /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 5\r\n\r\nhello");
    expect(statusOf(answer.text)).toBe(501);
    await stillServing();
  });
});

describe("very long URLs and many headers", () => {
  it(`a target over ${MAX_TARGET_LENGTH} bytes → 414 in plain text; at the limit it is served`, async () => {
    const long = await exchange(get(`/segments/${"a".repeat(10_000)}`));
    expect(long.text).toMatch(/^HTTP\/1\.1 414 URI Too Long\r\n/);
    expect(bodyOf(long.text)).toBe("414 URI Too Long\n");
    expect(long.closedByServer).toBe(true);
    const atLimit = await rawRequest(app.port, get(`/segments/${"a".repeat(MAX_TARGET_LENGTH - "/segments/".length)}`));
    expect(statusOf(atLimit)).toBe(200);
    await stillServing();
  });

  it("the access log shows a long path's first 200 characters and its length, not all of it", async () => {
    const logged = await serve({ routes: RouteTable.of(Route.get("/", () => Ok("home"))) }, { accessLog: true });
    try {
      await rawRequest(logged.port, get(`/${"b".repeat(10_000)}?secret=1`));
      expect(await (await logged.get(`/${"c".repeat(199)}`)).text()).toContain("404");
    } finally {
      await logged.close();
    }
    expect(logged.out).toContainEqual(expect.stringMatching(new RegExp(`^GET /${"b".repeat(199)}… \\(10001 characters\\) 414 `)));
    expect(logged.out).toContainEqual(expect.stringMatching(new RegExp(`^GET /${"c".repeat(199)} 404 `)));
    expect(logged.out.join("\n")).not.toContain("b".repeat(300));
    expect(logged.out.join("\n")).not.toContain("secret=1");
  });

  it("the access log shows an absolute-form target by its path, as it was served, without scheme, host or query", async () => {
    const logged = await serve({ routes: RouteTable.of(Route.get("/", () => Ok("home")), Route.get("/a", () => Ok("a"))) }, { accessLog: true });
    try {
      expect(statusOf(await rawRequest(logged.port, get("http://x/a?secret=1")))).toBe(200);
      expect(statusOf(await rawRequest(logged.port, get("HTTP://X?secret=2")))).toBe(200);
      expect(statusOf(await rawRequest(logged.port, get("http://elsewhere/a")))).toBe(400);
    } finally {
      await logged.close();
    }
    expect(logged.out).toContainEqual(expect.stringMatching(/^GET \/a 200 /));
    expect(logged.out).toContainEqual(expect.stringMatching(/^GET \/ 200 /));
    expect(logged.out).toContainEqual(expect.stringMatching(/^GET \/a 400 /));
    const requests = logged.out.filter((line) => line.startsWith("GET "));
    expect(requests).toHaveLength(3);
    expect(requests.join("\n")).not.toMatch(/http:|HTTP:|secret|elsewhere/i);
  });

  it("a 20 KB URL → 431 in plain text (Node's 16 KiB header cap); the server goes on", async () => {
    const answer = await exchange(get(`/${"a".repeat(20_000)}`));
    expect(answer.text).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    expect(bodyOf(answer.text)).toBe("431 Request Header Fields Too Large\n");
    expect(answer.closedByServer).toBe(true);
    await stillServing();
  });

  it(`3000 tiny headers, or ${MAX_HEADERS + 1} → 431 in plain text; ${MAX_HEADERS} are served`, async () => {
    const headers = (n: number): string => Array.from({ length: n }, (_, i) => `x-${i}: v\r\n`).join("");
    for (const count of [3000, MAX_HEADERS - 1]) {
      // Host and Connection count too: MAX_HEADERS - 1 extra plus them is one over.
      const answer = await exchange(get("/", headers(count)));
      expect(answer.text, `${count}`).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
      expect(answer.closedByServer).toBe(true);
    }
    expect(statusOf(await rawRequest(app.port, get("/", headers(MAX_HEADERS - 2))))).toBe(200);
    // A WebSocket-style upgrade is held to the same limit.
    const upgrade = await exchange(get("/", `Upgrade: websocket\r\n${headers(MAX_HEADERS)}`));
    expect(statusOf(upgrade.text)).toBe(431);
    await stillServing();
  });
});

describe("reflected input is escaped in every problem page", () => {
  const PAYLOAD = `<script>alert(1)</script>"'&`;
  const ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;";
  // Sent as is over a raw socket; its "/" encoded, so it stays one segment.
  const RAW_PATH = `/things/<script>alert(1)<%2Fscript>"'&`;

  /** Every page: the status it must have and the bytes to send. */
  const pages: readonly [string, number, () => Promise<string>][] = [
    ["404 with the path", 404, () => rawRequest(app.port, get(`/nowhere${RAW_PATH}`))],
    ["405 with the path", 405, () => rawRequest(app.port, `DELETE ${RAW_PATH} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)],
    ["413 with the path", 413, () => rawRequest(app.port, `POST ${RAW_PATH} HTTP/1.1\r\nHost: x\r\nContent-Length: ${CAP + 1}\r\n\r\n`)],
    ["403 CSRF with the path", 403, () => rawRequest(app.port, `POST ${RAW_PATH} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 3\r\n\r\nx=1`)],
    ["400 bad segment in the detail", 400, () => rawRequest(app.port, get(`/things/${encodeURIComponent(PAYLOAD)}%00`))],
    ["400 bad param with the path", 400, () => rawRequest(app.port, get(`/items/<script>alert(1)<%2Fscript>"'&`))],
    ["400 _method in the detail", 400, async () => {
      const { cookie, token } = await withToken();
      const body = `_csrf=${token}&_method=${encodeURIComponent(PAYLOAD)}`;
      return rawRequest(app.port, `POST /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\nCookie: ${cookie}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    }],
  ];

  it.each(pages)("%s", async (_, status, send) => {
    const answer = await send();
    expect(statusOf(answer)).toBe(status);
    expect(answer).not.toContain("<script");
    expect(answer).not.toContain(`"'&`);
    // It was reflected, escaped (a JSON-quoted detail adds a backslash before the quote).
    expect(answer).toContain("&lt;script&gt;alert(1)&lt;");
    expect(answer).toContain("&quot;&#39;&amp;");
  });

  it("500 in dev: the message in the stack is escaped; production shows nothing of it", async () => {
    const dev = await serve({ routes, layout }, { dev: true });
    try {
      const page = await (await dev.get(`/throws?q=${encodeURIComponent(PAYLOAD)}`)).text();
      expect(page).toContain(`failed on ${ESCAPED}`);
      expect(page).not.toContain("<script>alert");
      // The dev reload client is fw's own script: the only <script> on the page.
      expect(page.match(/<script/g)?.length ?? 0).toBeLessThanOrEqual(1);
    } finally {
      await dev.close();
    }
    const production = await (await app.get(`/throws?q=${encodeURIComponent(PAYLOAD)}`)).text();
    expect(production).not.toContain("alert(1)");
  });
});
