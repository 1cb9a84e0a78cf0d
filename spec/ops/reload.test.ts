import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest, Agent } from "node:http";
import { createConnection, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootNode } from "../support/process.js";
import { PRODUCTION_ENV } from "../support/serve.js";

// Issue 44 item 7: `--workers N` reloads on SIGHUP without a dropped request or a refused
// connection, and /fw/health is readiness (503 "stopping" on a draining worker) apart from
// /fw/health/live. The app is a file in a temp folder that the test rewrites between reloads,
// as a deploy writes a new build.
const RUNTIME = pathToFileURL(resolve("dist/runtime/index.js")).href;

function appSource(version: string, broken = false): string {
  return `${broken ? 'throw new Error("this build is broken");\n' : ""}import { HttpApp, Ok, Route, RouteTable } from ${JSON.stringify(RUNTIME)};
const routes = RouteTable.of(
  Route.get("/", () => Ok("${version}")),
  Route.get("/pid", () => Ok(\`${version} \${process.pid}\`)),
  Route.get("/slow", async () => {
    await new Promise((done) => setTimeout(done, 400));
    return Ok("${version} slow");
  }),
);
// A long keep-alive, so the test's idle connections outlive the reload.
const app = new HttpApp({ routes, keepAliveTimeoutMs: 30_000 });
process.exitCode = await app.main(process.argv.slice(2));
`;
}

interface Outcome {
  ok: number;
  failures: string[];
  bodies: Set<string>;
}

/** Requests `path` in a loop until `stop()`: over keep-alive connections (fetch) or a new connection each (agent: false). */
function load(base: string, keepAlive: boolean, outcome: Outcome): { stop: () => Promise<void> } {
  let running = true;
  const agent = keepAlive ? new Agent({ keepAlive: true, maxSockets: 4 }) : undefined;
  const one = (path: string): Promise<void> =>
    new Promise((done) => {
      const req = httpRequest(`${base}${path}`, { agent: agent ?? false }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => {
          if (res.statusCode === 200) {
            outcome.ok++;
            outcome.bodies.add(body);
          } else outcome.failures.push(`${path}: ${res.statusCode} ${body}`);
          done();
        });
      });
      req.on("error", (error: NodeJS.ErrnoException) => {
        outcome.failures.push(`${path}: ${error.code ?? error.message}`);
        done();
      });
      req.end();
    });
  const loop = async (path: string): Promise<void> => {
    while (running) await one(path);
  };
  const loops = [loop("/"), loop("/"), loop("/"), loop("/slow")];
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
      agent?.destroy();
    },
  };
}

async function until(check: () => boolean, what: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 25));
  }
}

/** A raw keep-alive connection: one request at a time, the answer's status line, headers and body. */
class Raw {
  readonly socket: Socket;
  #buffer = "";
  constructor(port: number) {
    this.socket = createConnection({ port, host: "127.0.0.1" });
    this.socket.setEncoding("utf8");
    this.socket.on("data", (chunk: string) => (this.#buffer += chunk));
  }
  async get(path: string): Promise<string> {
    this.#buffer = "";
    this.socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    await until(() => /\r\n\r\n/.test(this.#buffer) && complete(this.#buffer), `the answer to ${path}`, 10_000);
    return this.#buffer;
  }
}

function complete(text: string): boolean {
  const [head = "", body = ""] = text.split("\r\n\r\n");
  const length = /content-length: (\d+)/i.exec(head)?.[1];
  return length !== undefined && Buffer.byteLength(body) >= Number(length);
}

describe("issue 44 item 7: --workers reloads on SIGHUP", () => {
  let dir = "";
  let script = "";
  let app: ReturnType<typeof bootNode>;
  let base = "";

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "fw-reload-"));
    script = join(dir, "main.mjs");
    writeFileSync(script, appSource("v1"));
    app = bootNode(script, ["--workers", "2"], { ...PRODUCTION_ENV, FW_LOG_FORMAT: "text" }, dir);
    base = await app.url;
  }, 60_000);

  afterAll(async () => {
    app.child.kill("SIGTERM");
    await app.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  const output = (): string => `${app.output().out}\n${app.output().err}`;
  const count = (text: string): number => output().split(text).length - 1;

  it("/fw/health is ready (200 ok) and /fw/health/live alive (200 ok), with no-store", async () => {
    const ready = await fetch(`${base}/fw/health`);
    expect([ready.status, await ready.text(), ready.headers.get("cache-control")]).toEqual([200, "ok", "no-store"]);
    const live = await fetch(`${base}/fw/health/live`);
    expect([live.status, await live.text()]).toEqual([200, "ok"]);
  });

  it("a reload under load: no failed request, no refused connection; the new build answers after; idle connections to old workers hear 'stopping' and close", async () => {
    const port = Number(new URL(base).port);
    // Idle keep-alive connections spread over both old workers (round-robin).
    const raws = [new Raw(port), new Raw(port), new Raw(port), new Raw(port)];
    const oldPids = new Set<string>();
    for (const raw of raws) oldPids.add((await raw.get("/pid")).split(" ").at(-1) ?? "");
    expect(oldPids.size).toBe(2);

    const outcome: Outcome = { ok: 0, failures: [], bodies: new Set() };
    const kept = load(base, true, outcome);
    const fresh = load(base, false, outcome);
    await new Promise((done) => setTimeout(done, 300));
    writeFileSync(script, appSource("v2"));
    app.child.kill("SIGHUP");
    await until(() => count("fw: reloaded: 2 new worker processes serving") === 1, "the new workers");
    // The old workers drain: an idle connection's next request is answered, told "stopping", and closed.
    const answers = await Promise.all(raws.map((raw) => raw.get("/fw/health")));
    for (const answer of answers) {
      expect(answer).toMatch(/^HTTP\/1\.1 503 /);
      expect(answer).toMatch(/\r\nconnection: close\r\n/i);
      expect(answer.endsWith("stopping")).toBe(true);
    }
    await until(() => count("fw: reload done") === 1, "the old workers to exit");
    await new Promise((done) => setTimeout(done, 300));
    await Promise.all([kept.stop(), fresh.stop()]);

    expect(outcome.failures).toEqual([]);
    expect(outcome.ok).toBeGreaterThan(50);
    expect(outcome.bodies).toEqual(new Set(["v1", "v2", "v1 slow", "v2 slow"]));
    // Only the new build answers now, from two new processes.
    const after = await Promise.all(Array.from({ length: 8 }, () => fetch(`${base}/pid`).then((r) => r.text())));
    const newPids = new Set(after.map((text) => text.split(" ")[1]));
    expect(after.every((text) => text.startsWith("v2 "))).toBe(true);
    expect(newPids.size).toBe(2);
    for (const pid of newPids) expect(oldPids.has(pid ?? "")).toBe(false);
    expect(output()).not.toMatch(/exited .* starting another/);
  }, 120_000);

  it("a broken build: the reload fails, saying why, and the running workers serve on without a failed request", async () => {
    const before = new Set(await Promise.all(Array.from({ length: 6 }, () => fetch(`${base}/pid`).then((r) => r.text()))));
    const outcome: Outcome = { ok: 0, failures: [], bodies: new Set() };
    const kept = load(base, true, outcome);
    writeFileSync(script, appSource("v3", true));
    app.child.kill("SIGHUP");
    await until(() => count("fw: reload failed: a new worker") === 1, "the failed reload");
    // Its other new worker is stopped too: a failed reload is not a done one.
    await new Promise((done) => setTimeout(done, 1000));
    expect(count("fw: reload done")).toBe(1);
    await new Promise((done) => setTimeout(done, 500));
    await kept.stop();
    expect(outcome.failures).toEqual([]);
    expect(outcome.bodies).toEqual(new Set(["v2", "v2 slow"]));
    expect(output()).toMatch(/fw: reload failed: a new worker \(pid \d+\) exited with code 1 before it was ready; the running worker processes serve on/);
    const after = new Set(await Promise.all(Array.from({ length: 6 }, () => fetch(`${base}/pid`).then((r) => r.text()))));
    expect(after).toEqual(before);
    // Fixed, it reloads.
    writeFileSync(script, appSource("v4"));
    app.child.kill("SIGHUP");
    await until(() => count("fw: reload done") === 2, `the second reload:\n${output()}`);
    expect(await (await fetch(base)).text()).toBe("v4");
  }, 120_000);
});

describe("issue 44 item 7: readiness apart from liveness", () => {
  let dir = "";
  let app: ReturnType<typeof bootNode> | undefined;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "fw-ready-"));
    // An app with more to start once it listens, as DbApp's jobs: ready when told (SIGUSR2).
    writeFileSync(
      join(dir, "main.mjs"),
      `import { HttpApp, Ok, Route, RouteTable } from ${JSON.stringify(RUNTIME)};
class StartsLater extends HttpApp {
  readyWhenServed = false;
  async serve(options) {
    const running = await super.serve(options);
    process.on("SIGUSR2", () => this.markReady());
    return running;
  }
}
process.exitCode = await new StartsLater({ routes: RouteTable.of(Route.get("/", () => Ok("hello"))) }).main([]);
`,
    );
  });

  afterAll(async () => {
    app?.child.kill("SIGTERM");
    await app?.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  it("/fw/health says 503 starting until the boot is done, then 200 ok; /fw/health/live is 200 throughout; requests are served meanwhile", async () => {
    app = bootNode(join(dir, "main.mjs"), [], PRODUCTION_ENV, dir);
    const base = await app.url;
    const starting = await fetch(`${base}/fw/health`);
    expect([starting.status, await starting.text()]).toEqual([503, "starting"]);
    const live = await fetch(`${base}/fw/health/live`);
    expect([live.status, await live.text()]).toEqual([200, "ok"]);
    expect(await (await fetch(base)).text()).toBe("hello");
    app.child.kill("SIGUSR2");
    let ready = await fetch(`${base}/fw/health`);
    for (let i = 0; i < 100 && ready.status !== 200; i++) {
      await new Promise((done) => setTimeout(done, 50));
      ready = await fetch(`${base}/fw/health`);
    }
    expect([ready.status, await ready.text()]).toEqual([200, "ok"]);
  });
});
