import type { IncomingMessage } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyRequest } from "../../runtime/http/request.js";
import { Ok, Redirect, Route, RouteTable, type Identify, type WsListener } from "../../runtime/index.js";
import { Matcher } from "../../runtime/routing/matcher.js";
import { SessionCodec } from "../../runtime/http/session-codec.js";
import { Secret } from "../../runtime/http/secret.js";
import { WsServer } from "../../runtime/ws/server.js";
import { rawRequest, serve, sessionCookie, TEST_SECRET, type Served } from "../support/serve.js";
import { connect, refusal } from "../support/ws-client.js";

/** Says who the connection belongs to as soon as it opens. */
const whoami: WsListener = {
  async open(connection) {
    await connection.send(`user=${connection.request.currentUser ?? "nobody"} query=${connection.request.query.get("q") ?? ""}`);
  },
  message() {},
};

/** The table's identify: the session's "user" entry names the user (a stand-in for auth's). */
const identify: Identify = (request) => {
  const user = request.session.get("user");
  return user === undefined ? request : copyRequest(request, { currentUser: user });
};

const routes = new RouteTable(
  [
    Route.get("/", () => Ok("home")),
    Route.get("/login-as/:name", (request) => Redirect("/").withSession(request.session.set("user", request.params["name"] ?? ""))),
    Route.ws("/public", whoami),
    Route.ws("/private", whoami, { requiresUser: true }),
  ],
  identify,
);

let app: Served;
let allowing: Served;
beforeAll(async () => {
  app = await serve({ routes });
  allowing = await serve({ routes, allowedOrigins: ["https://app.example.com"] });
});
afterAll(async () => {
  await app.close();
  await allowing.close();
});

const upgradeHeaders = "Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";

describe("Origin check (cross-site WebSocket hijacking)", () => {
  it("the app's own origin is accepted", async () => {
    const client = await connect(app.url, "/public", { origin: app.url });
    expect(await client.next()).toBe("user=nobody query=");
    client.socket.close();
  });

  it("a foreign origin → 403 before any upgrade", async () => {
    const refused = await refusal(app.url, "/public", { origin: "https://evil.example" });
    expect(refused.status).toBe(403);
    expect(refused.body).toContain("does not accept connections from that Origin");
  });

  it("a missing Origin header → 403", async () => {
    const refused = await refusal(app.url, "/public", { origin: null });
    expect(refused.status).toBe(403);
    expect(refused.body).toContain("must carry an Origin header");
  });

  it("an allow-listed origin is accepted; it is refused where not listed", async () => {
    const client = await connect(allowing.url, "/public", { origin: "https://app.example.com" });
    expect(await client.next()).toBe("user=nobody query=");
    client.socket.close();
    expect((await refusal(app.url, "/public", { origin: "https://app.example.com" })).status).toBe(403);
  });

  it("an allowedOrigins entry that is not an origin fails boot", async () => {
    await expect(serve({ routes, allowedOrigins: ["https://app.example.com/path"] })).rejects.toThrow(/not an origin/);
  });
});

describe("5.4 session and identify on the handshake", () => {
  it("a route that requires a user, with nobody identified → 403 saying a signed-in user is needed", async () => {
    const refused = await refusal(app.url, "/private");
    expect(refused.status).toBe(403);
    expect(refused.body).toContain("needs a signed-in user");
  });

  it("the table's identify reads the session cookie: the socket opens and request.currentUser is set", async () => {
    const cookie = sessionCookie(await app.get("/login-as/ann"));
    expect(cookie).toBeDefined();
    const client = await connect(app.url, "/private?q=1", { headers: { cookie: cookie as string } });
    expect(await client.next()).toBe("user=ann query=1");
    client.socket.close();
  });

  it("two session cookies are believed by neither a browser route nor a handshake → 403", async () => {
    const cookie = sessionCookie(await app.get("/login-as/ann")) as string;
    const refused = await refusal(app.url, "/private", { headers: { cookie: `${cookie}; ${cookie}` } });
    expect(refused.status).toBe(403);
  });

  it("a secure handshake reads the session from __Host-fw_session, as a secure browser route does, and only from it", async () => {
    const proxied = await serve({ routes, trustProxy: true });
    try {
      const https = { "x-forwarded-proto": "https" };
      const set = (await proxied.get("/login-as/sol", { headers: https })).headers.get("set-cookie") as string;
      expect(set).toMatch(/^__Host-fw_session=/);
      const cookie = set.split(";")[0] as string;
      const origin = proxied.url.replace(/^http:/, "https:");
      const client = await connect(proxied.url, "/private", { origin, headers: { ...https, cookie } });
      expect(await client.next()).toBe("user=sol query=");
      client.socket.close();
      const planted = cookie.replace(/^__Host-/, "");
      expect((await refusal(proxied.url, "/private", { origin, headers: { ...https, cookie: planted } })).status).toBe(403);
    } finally {
      await proxied.close();
    }
  });

  it("a route without requiresUser opens for nobody (identify never refuses)", async () => {
    const client = await connect(app.url, "/public");
    expect(await client.next()).toBe("user=nobody query=");
    client.socket.close();
  });
});

describe("a failing identify", () => {
  it("answers 500, logged once, and the server goes on", async () => {
    const broken = new RouteTable([Route.ws("/public", whoami)], () => {
      throw new Error("identify broke 9d2b");
    });
    const failing = await serve({ routes: broken });
    try {
      const refused = await refusal(failing.url, "/public");
      expect(refused.status).toBe(500);
      expect(refused.body).not.toContain("identify broke");
      expect(failing.err.filter((line) => line.includes("identify broke 9d2b"))).toHaveLength(1);
      expect((await refusal(failing.url, "/public")).status).toBe(500);
    } finally {
      await failing.close();
    }
  });
});

describe("upgrades that are not WebSocket routes", () => {
  it("a plain GET (no upgrade) to a WebSocket path still answers 400", async () => {
    const response = await app.get("/public");
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("WebSocket connections only");
  });

  it("an unknown path → 404 problem page, also where only an HTTP route lives", async () => {
    for (const path of ["/nowhere", "/"]) {
      const refused = await refusal(app.url, path);
      expect(refused.status).toBe(404);
      expect(refused.body).toContain("404 Not Found");
    }
  });

  it("an upgrade that is not a GET → 405 with Allow: GET", async () => {
    const answer = await rawRequest(app.port, `POST /public HTTP/1.1\r\nHost: x\r\nOrigin: http://x\r\n${upgradeHeaders}\r\n`);
    expect(answer).toMatch(/^HTTP\/1.1 405 Method Not Allowed/);
    expect(answer).toMatch(/\r\nallow: GET\r\n/);
  });

  it("a malformed path → 400", async () => {
    const answer = await rawRequest(app.port, `GET /a%ZZ HTTP/1.1\r\nHost: x\r\nOrigin: http://x\r\n${upgradeHeaders}\r\n`);
    expect(answer).toMatch(/^HTTP\/1.1 400 Bad Request/);
  });

  it("an absolute-form target is upgraded by its path when it names the Host header's host; another host → 400", async () => {
    // The socket stays open once upgraded: read what arrived within half a second.
    const upgraded = await rawRequest(app.port, `GET http://x/public HTTP/1.1\r\nHost: x\r\nOrigin: http://x\r\n${upgradeHeaders}\r\n`, 500);
    expect(upgraded).toMatch(/^HTTP\/1.1 101 Switching Protocols/);
    const elsewhere = await rawRequest(app.port, `GET http://y/public HTTP/1.1\r\nHost: x\r\nOrigin: http://x\r\n${upgradeHeaders}\r\n`);
    expect(elsewhere).toMatch(/^HTTP\/1.1 400 Bad Request/);
  });

  it("an upgrade to another protocol (h2c) is ignored and served as plain HTTP", async () => {
    const h2c = "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n";
    const answer = await rawRequest(app.port, `GET / HTTP/1.1\r\nHost: x\r\n${h2c}\r\n`);
    expect(answer).toMatch(/^HTTP\/1.1 200 OK/);
    expect(answer.endsWith("home")).toBe(true);
  });
});

describe("4.6 reserved /fw sockets", () => {
  const fake = (url: string): IncomingMessage =>
    ({ url, method: "GET", headers: { origin: "http://h", host: "h" }, socket: {} }) as unknown as IncomingMessage;
  const settings = {
    codec: new SessionCodec([new Secret(TEST_SECRET)], 60_000),
    identify: (request: Parameters<Identify>[0]) => request,
    allowedOrigins: [],
    trustProxy: false,
    sendTimeoutMs: 1000,
    pingIntervalMs: 60_000,
    maxMessageBytes: 1024,
    logError: () => {},
  };
  const reload: WsListener = { message() {} };
  const app: WsListener = { message() {} };

  it("are asked before the table", async () => {
    const sockets = new WsServer({ ...settings, table: new Matcher([Route.ws("/fw/*rest", app)]), reserved: [Route.ws("/fw/reload", reload)] });
    expect((await sockets.admit(fake("/fw/reload"))).route.listener).toBe(reload);
    expect((await sockets.admit(fake("/fw/other"))).route.listener).toBe(app);
    await sockets.close(0);
  });

  it("must be under /fw", () => {
    expect(() => new WsServer({ ...settings, table: new Matcher([]), reserved: [Route.ws("/reload", reload)] })).toThrow(/under \/fw/);
  });
});

describe("access log", () => {
  it("logs a handshake like a request: 101 when upgraded, the refusal's status otherwise", async () => {
    const logged = await serve({ routes }, { accessLog: true });
    const client = await connect(logged.url, "/public?secret=1");
    await client.next();
    client.socket.close();
    await refusal(logged.url, "/nowhere");
    await logged.close();
    expect(logged.out.some((line) => /^GET \/public 101 /.test(line))).toBe(true);
    expect(logged.out.some((line) => /^GET \/nowhere 404 /.test(line))).toBe(true);
    expect(logged.out.join("\n")).not.toContain("secret=1");
  });
});

describe("An app without WebSocket routes", () => {
  it("does not load ws, and answers a handshake with 404", async () => {
    const { spawnSync } = await import("node:child_process");
    // A fresh process: does booting an app with no socket route load the ws package?
    const script = `
      const fw = await import(${JSON.stringify(new URL("../../dist/runtime/index.js", import.meta.url).href)});
      const app = new fw.HttpApp({ secret: "x".repeat(32), accessLog: false, allowedHosts: ["*"], routes: fw.RouteTable.of(fw.Route.get("/", () => fw.Ok("hi"))) });
      app.console = { out() {}, err() {} };
      const running = await app.serve({ port: 0 });
      const loaded = Object.keys((await import("node:module")).createRequire(import.meta.url).cache).some((f) => f.includes("/node_modules/ws/"));
      await running.close();
      console.log(loaded ? "ws loaded" : "ws not loaded");`;
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(result.stdout.trim()).toBe("ws not loaded");
  });
});

describe("A handshake to an app without WebSocket routes", () => {
  it("is refused with 404", async () => {
    const plain = await serve({ routes: RouteTable.of(Route.get("/", () => Ok("hi"))) });
    try {
      const answer = await rawRequest(
        plain.port,
        `GET / HTTP/1.1\r\nHost: 127.0.0.1:${plain.port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nOrigin: http://127.0.0.1:${plain.port}\r\n\r\n`,
      );
      expect(answer).toMatch(/^HTTP\/1.1 404 Not Found/);
    } finally {
      await plain.close();
    }
  });
});
