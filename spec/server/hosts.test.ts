import { connect as connectTcp } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { HttpApp, Ok, Route, RouteTable } from "../../runtime/index.js";
import { rawRequest, serve, TEST_SECRET, type Served } from "../support/serve.js";
import { connect, refusal } from "../support/ws-client.js";

const routes = RouteTable.of(
  Route.get("/", () => Ok("home")),
  Route.ws("/live", { open: (connection) => connection.send("hi"), message() {} }),
);

function get(port: number, host: string, path = "/"): Promise<string> {
  return rawRequest(port, `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
}

const status = (answer: string): number => Number(/^HTTP\/1.1 (\d{3})/.exec(answer)?.[1]);

describe("allowed hosts: dev answers for loopback names only (DNS rebinding)", () => {
  let dev: Served;
  beforeAll(async () => {
    dev = await serve({ routes }, { dev: true, devHook: { sockets: [], decorate: (html) => html, buildFailure: () => undefined, beforeListen: async () => {}, started: () => {}, close: () => {} } });
  });
  afterAll(() => dev.close());

  it.each(["localhost", "LOCALHOST", "localhost.", "127.0.0.1", "[::1]"])("%s, with or without a port, is served", async (name) => {
    expect(status(await get(dev.port, name))).toBe(200);
    expect(status(await get(dev.port, `${name}:${dev.port}`))).toBe(200);
  });

  it.each(["rebound.example", "rebound.example:3000", "localhost.rebound.example", "127.0.0.1.nip.io", "10.0.0.7", "localhost:80x", ""])(
    "Host %j → 400 problem page saying what to set",
    async (host) => {
      const answer = await get(dev.port, host);
      expect(status(answer)).toBe(400);
      expect(answer).toContain("<h1>400 Bad Request</h1>");
      expect(answer).toContain("add it to allowedHosts (or FW_ALLOWED_HOSTS)");
      expect(answer).toContain("(it answers for localhost, 127.0.0.1, [::1])");
    },
  );

  it("a WebSocket handshake naming a foreign host is refused before its Origin is compared", async () => {
    const rebound = `rebound.example:${dev.port}`;
    const refused = await refusal(dev.url, "/live", { origin: `http://${rebound}`, headers: { host: rebound } });
    expect(refused.status).toBe(400);
    const local = await connect(dev.url, "/live");
    expect(await local.next()).toBe("hi");
    local.socket.close();
  });

  it("/fw/health answers whatever the host (a load balancer asks by address)", async () => {
    expect(status(await get(dev.port, "10.0.0.7", "/fw/health"))).toBe(200);
  });
});

describe("allowed hosts: production", () => {
  let app: Served;
  beforeAll(async () => {
    app = await serve({ routes, allowedHosts: ["*"] });
  });
  afterAll(() => app.close());

  it("answers any host when told so (allowedHosts: [\"*\"])", async () => {
    expect(status(await get(app.port, "www.example.com"))).toBe(200);
  });

  it("answers only the listed hosts when allowedHosts is set: a name, a name with its subdomains", async () => {
    const listed = await serve({ routes, allowedHosts: ["shop.example", ".example.org"] });
    try {
      for (const host of ["shop.example", "Shop.Example:8443", "example.org", "a.b.example.org:80"]) expect(status(await get(listed.port, host)), host).toBe(200);
      for (const host of ["example.shop", "sub.shop.example", "badexample.org", "127.0.0.1"]) expect(status(await get(listed.port, host)), host).toBe(400);
      // Production does not list its hosts to whoever asks (they may be internal names).
      const refused = await get(listed.port, "example.shop");
      expect(refused).toContain("add it to allowedHosts");
      expect(refused).not.toContain("shop.example");
    } finally {
      await listed.close();
    }
  });

  it("a refused host stays refused right after an allowed one (the last allowed Host is remembered as sent, nothing looser)", async () => {
    const listed = await serve({ routes, allowedHosts: ["shop.example"] });
    try {
      const turns: [string, number][] = [["shop.example", 200], ["shop.example:x", 400], ["shop.example", 200], ["shop.examplex", 400], ["SHOP.example:80", 200], ["shop.example.evil", 400], ["SHOP.example:80", 200]];
      for (const [host, expected] of turns) expect(status(await get(listed.port, host)), host).toBe(expected);
    } finally {
      await listed.close();
    }
  });
});

/** What the server sent on one connection, and whether it closed it (before `waitMs`). */
function exchange(port: number, bytes: string, waitMs: number): Promise<{ text: string; closedByServer: boolean }> {
  return new Promise((resolve) => {
    const socket = connectTcp(port, "127.0.0.1");
    let text = "";
    const done = (closedByServer: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, closedByServer });
    };
    const timer = setTimeout(() => done(false), waitMs);
    socket.on("data", (chunk: Buffer) => (text += chunk.toString("latin1")));
    socket.on("end", () => done(true));
    socket.on("error", () => done(true));
    socket.write(bytes);
  });
}

describe("a refused host is answered at once, and its connection closed (issue 39, item 6)", () => {
  let app: Served;
  beforeAll(async () => {
    app = await serve({ routes: RouteTable.of(Route.get("/", () => Ok("home")), Route.post("/form", () => Ok("taken"))), allowedHosts: ["shop.example"] });
  });
  afterAll(() => app.close());

  it.each([
    ["a declared body of 10 MB that never comes", "Content-Length: 10000000\r\n"],
    ["a chunked body that never ends", "Transfer-Encoding: chunked\r\n"],
    ["no body", ""],
  ])("an unknown Host with %s → 400, and the server closes without waiting for the body", async (_name, body) => {
    const answer = await exchange(app.port, `POST /form HTTP/1.1\r\nHost: rebound.example\r\n${body}\r\n`, 3000);
    expect(status(answer.text)).toBe(400);
    expect(answer.text).toMatch(/\r\nconnection: close\r\n/i);
    expect(answer.closedByServer).toBe(true);
  });

  it("two Host headers with a declared body → 400 and closed too", async () => {
    const answer = await exchange(app.port, "POST /form HTTP/1.1\r\nHost: shop.example\r\nHost: rebound.example\r\nContent-Length: 10000000\r\n\r\n", 3000);
    expect([status(answer.text), answer.closedByServer]).toEqual([400, true]);
  });

  it("the served host is answered, its connection kept", async () => {
    const answer = await exchange(app.port, "GET / HTTP/1.1\r\nHost: shop.example\r\n\r\n", 500);
    expect([status(answer.text), answer.closedByServer]).toEqual([200, false]);
  });
});

describe("allowed hosts: FW_ALLOWED_HOSTS and bad settings", () => {
  const before = { hosts: process.env["FW_ALLOWED_HOSTS"], origin: process.env["FW_ORIGIN"] };
  afterEach(() => {
    if (before.hosts === undefined) delete process.env["FW_ALLOWED_HOSTS"];
    else process.env["FW_ALLOWED_HOSTS"] = before.hosts;
    if (before.origin === undefined) delete process.env["FW_ORIGIN"];
    else process.env["FW_ORIGIN"] = before.origin;
  });

  /** Boots `app` through `main` (production: no `dev`) and answers its exit code and error lines. */
  async function boot(app: HttpApp): Promise<{ code: number; err: string }> {
    const err: string[] = [];
    app.console = { out: () => {}, err: (line) => err.push(line) };
    process.env["PORT"] = "0";
    try {
      return { code: await app.main([]), err: err.join("\n") };
    } finally {
      delete process.env["PORT"];
    }
  }

  it("production with neither FW_ORIGIN nor FW_ALLOWED_HOSTS refuses to boot, naming both (issue 32)", async () => {
    delete process.env["FW_ALLOWED_HOSTS"];
    delete process.env["FW_ORIGIN"];
    const { code, err } = await boot(new HttpApp({ routes, secret: TEST_SECRET }));
    expect(code).toBe(1);
    expect(err).toMatch(/^fw: cannot boot: production needs to know which host names it answers for, and neither FW_ORIGIN nor FW_ALLOWED_HOSTS is set/);
    expect(err).toContain("Set FW_ORIGIN to the app's public address (FW_ORIGIN=https://example.com");
  });

  it("FW_ORIGIN alone: its host is the one served (any port), every other Host is refused", async () => {
    process.env["FW_ORIGIN"] = "https://Shop.Example/";
    const app = await serve({ routes });
    try {
      expect(status(await get(app.port, "shop.example"))).toBe(200);
      expect(status(await get(app.port, "shop.example:8443"))).toBe(200);
      for (const host of ["attacker.example", "localhost", "127.0.0.1"]) expect(status(await get(app.port, host)), host).toBe(400);
    } finally {
      await app.close();
    }
  });

  it("FW_ORIGIN's host is added to FW_ALLOWED_HOSTS (the app's own links always work)", async () => {
    process.env["FW_ORIGIN"] = "https://shop.example";
    process.env["FW_ALLOWED_HOSTS"] = "admin.internal";
    const app = await serve({ routes });
    try {
      for (const host of ["shop.example", "admin.internal"]) expect(status(await get(app.port, host)), host).toBe(200);
      expect(status(await get(app.port, "other.example"))).toBe(400);
    } finally {
      await app.close();
    }
  });

  it.each([
    ["example.com", /"example.com" is not an http\(s\) origin/],
    ["https://example.com/app", /has more than an origin/],
    ["ftp://example.com", /is not an http\(s\) origin/],
  ])("FW_ORIGIN=%j fails boot, saying what to write", async (origin, message) => {
    process.env["FW_ORIGIN"] = origin;
    const { code, err } = await boot(new HttpApp({ routes, secret: TEST_SECRET }));
    expect(code).toBe(1);
    expect(err).toMatch(/^fw: cannot boot: origin \(or FW_ORIGIN\)/);
    expect(err).toMatch(message);
    expect(err).toContain('"https://example.com"');
  });

  it("FW_ALLOWED_HOSTS lists them, comma-separated, when the app sets none", async () => {
    process.env["FW_ALLOWED_HOSTS"] = " shop.example , [::1] ";
    const app = await serve({ routes });
    try {
      expect(status(await get(app.port, "shop.example"))).toBe(200);
      expect(status(await get(app.port, "[::1]:3000"))).toBe(200);
      expect(status(await get(app.port, "localhost"))).toBe(400);
    } finally {
      await app.close();
    }
  });

  it.each([
    [["example.com:443"], /"example.com:443" is not a host name.*Leave the port out/],
    [["https://example.com"], /"https:\/\/example.com" is not a host name/],
    [[], /is empty/],
  ])("%j fails boot, saying what to write", async (allowedHosts, message) => {
    const { code, err } = await boot(new HttpApp({ routes, secret: TEST_SECRET, allowedHosts }));
    expect(code).toBe(1);
    expect(err).toMatch(/^fw: cannot boot: allowedHosts \(or FW_ALLOWED_HOSTS\)/);
    expect(err).toMatch(message);
  });
});

describe("two Host headers", () => {
  let app: Served;
  beforeAll(async () => {
    app = await serve({ routes });
  });
  afterAll(() => app.close());

  it("→ 400, whatever their case or order (Node keeps only the first; a proxy may have read the other)", async () => {
    for (const pair of ["Host: a.example\r\nHost: b.example", "host: a.example\r\nHOST: a.example", "Host: a.example\r\nX-A: 1\r\nhost: b.example"]) {
      const answer = await rawRequest(app.port, `GET / HTTP/1.1\r\n${pair}\r\nConnection: close\r\n\r\n`);
      expect(status(answer), pair).toBe(400);
      expect(answer).toContain("more than one Host header");
    }
    expect(status(await get(app.port, "a.example"))).toBe(200);
  });

  it("on a WebSocket handshake → 400", async () => {
    const answer = await rawRequest(
      app.port,
      `GET /live HTTP/1.1\r\nHost: 127.0.0.1:${app.port}\r\nHost: other.example\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
        `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nOrigin: http://127.0.0.1:${app.port}\r\n\r\n`,
    );
    expect(status(answer)).toBe(400);
  });
});
