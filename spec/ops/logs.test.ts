import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootNode, runNode } from "../support/process.js";
import { PRODUCTION_ENV } from "../support/serve.js";

// Issue 44 item 1: production writes JSON lines through pino, each request's carrying its id.
// The app runs from the built runtime in a process of its own; what it writes on stdout is read
// line by line with JSON.parse, as a log collector reads it.
const main = resolve("spec/ops/apps/logs-app.mjs");
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface Entry {
  readonly level: string;
  readonly time: number;
  readonly pid: number;
  readonly hostname: string;
  readonly msg: string;
  readonly [member: string]: unknown;
}

/**
 * Every line of `out` as JSON; a line that is not JSON fails the test, named. Only whole lines:
 * what follows the last newline is a line still arriving (a pipe hands a backlog over in chunks
 * that may end mid-line), read whole on a later look.
 */
function entries(out: string): Entry[] {
  return out
    .slice(0, out.lastIndexOf("\n") + 1)
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      try {
        return JSON.parse(line) as Entry;
      } catch {
        throw new Error(`a log line is not JSON: ${line}`);
      }
    });
}

/** Resolves once `condition` holds, asking every 20 ms (the test's timeout bounds a hang). */
async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((done) => setTimeout(done, 20));
}

function freePort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => done(port));
    });
  });
}

// Secrets sent in every way a request carries them: none may reach a log line.
const SECRETS = {
  cookie: "cookie-secret-5f1e",
  bearer: "bearer-secret-77aa",
  query: "query-secret-0c3d",
  password: "password-secret-9b2e",
  token: "form-token-secret-41f0",
};

describe("issue 44 item 1: JSON logs with request ids, from a real process", () => {
  let cwd = "";
  let app: ReturnType<typeof bootNode>;
  let url = "";
  const out = (): string => app.output().out;

  beforeAll(async () => {
    cwd = mkdtempSync(join(tmpdir(), "fw-logs-"));
    app = bootNode(main, [], { ...PRODUCTION_ENV, FW_LOG_FORMAT: "json" }, cwd);
    url = await app.url;
  }, 120_000);

  afterAll(async () => {
    app.child.kill("SIGTERM");
    await app.exited;
    rmSync(cwd, { recursive: true, force: true });
  });

  it("every line on stdout is a pino JSON object: level as its label, time (epoch ms), pid, hostname, msg", async () => {
    await fetch(`${url}/`);
    await until(() => entries(out()).some((entry) => entry.msg === "request"));
    const all = entries(out());
    expect(all.length).toBeGreaterThan(1);
    for (const entry of all) {
      expect(["trace", "debug", "info", "warn", "error", "fatal"]).toContain(entry.level);
      expect(Math.abs(entry.time - Date.now())).toBeLessThan(10 * 60_000); // milliseconds since the epoch
      expect(entry.pid).toBe(app.child.pid);
      expect(typeof entry.hostname).toBe("string");
      expect(typeof entry.msg).toBe("string");
    }
    // The banner is a line of the log too.
    expect(all.some((entry) => /^fw: serving \d+ routes on http:\/\/127\.0\.0\.1:\d+$/.test(entry.msg))).toBe(true);
  });

  it("a request without an id gets a new one: sent back, on its access entry, given to the handler", async () => {
    const response = await fetch(`${url}/`);
    const id = response.headers.get("x-request-id") ?? "";
    expect(id).toMatch(UUID);
    expect(await response.text()).toBe(`hello ${id}`);
    await until(() => entries(out()).some((entry) => entry.requestId === id));
    const access = entries(out()).find((entry) => entry.requestId === id);
    expect(access).toMatchObject({ level: "info", msg: "request", method: "GET", path: "/", route: "/", status: 200 });
    expect(typeof access?.["ms"]).toBe("number");
  });

  it("a well-formed X-Request-Id is kept (a proxy's id ties its log to fw's); a malformed one is replaced", async () => {
    const kept = await fetch(`${url}/`, { headers: { "x-request-id": "lb-7f3a.42:req/9" } });
    expect(kept.headers.get("x-request-id")).toBe("lb-7f3a.42:req/9");
    // Two X-Request-Id headers arrive joined by ", ": malformed too.
    for (const malformed of ['evil" injected="1', "x".repeat(129), "two words", "first, second", "tab\tinside"]) {
      const replaced = await fetch(`${url}/`, { headers: { "x-request-id": malformed } });
      expect(replaced.headers.get("x-request-id")).toMatch(UUID);
    }
    await until(() => entries(out()).some((entry) => entry.requestId === "lb-7f3a.42:req/9"));
    expect(out()).not.toContain("injected");
    expect(out()).not.toContain("x".repeat(129));
  });

  it("a 500: the page shows the incident and the request id, and one error entry carries both, the cause's message and no stack", async () => {
    const response = await fetch(`${url}/boom`, { headers: { "x-request-id": "boom-request-1" } });
    expect(response.status).toBe(500);
    const page = await response.text();
    const incident = /Incident <code>([0-9a-f]{8})<\/code>, request <code class="fw-problem-request">boom-request-1<\/code>/.exec(page)?.[1];
    expect(incident).toBeDefined();
    // The error entry is written as the page is made, the access entry once it is sent.
    await until(() => entries(out()).some((entry) => entry.requestId === "boom-request-1" && entry.msg === "request"));
    const error = entries(out()).find((entry) => entry.level === "error");
    expect(error).toMatchObject({ msg: "500 GET /boom (route /boom)", requestId: "boom-request-1", incident, error: "Error: kaboom" });
    expect(error).not.toHaveProperty("stack");
    expect(entries(out()).find((entry) => entry.requestId === "boom-request-1" && entry.msg === "request")).toMatchObject({ status: 500 });
  });

  it("nothing secret or personal reaches the log: cookies, Authorization, the query, form values, and the app's own `password` and `token` fields", async () => {
    const headers = { cookie: `fw_session=${SECRETS.cookie}`, authorization: `Bearer ${SECRETS.bearer}`, "content-type": "application/x-www-form-urlencoded", "x-request-id": "secret-request" };
    const body = `email=someone%40example.com&password=${SECRETS.password}&token=${SECRETS.token}`;
    expect((await fetch(`${url}/api/signin?token=${SECRETS.query}`, { method: "POST", headers, body })).status).toBe(200);
    await fetch(`${url}/?token=${SECRETS.query}`, { headers });
    await until(() => entries(out()).filter((entry) => entry.requestId === "secret-request").length >= 3);
    const all = `${out()}\n${app.output().err}`;
    for (const secret of Object.values(SECRETS)) expect(all).not.toContain(secret);
    const tried = entries(out()).find((entry) => entry.msg === "sign-in tried");
    expect(tried).toMatchObject({ level: "info", requestId: "secret-request", password: "[redacted]", nested: { token: "[redacted]" } });
    expect(entries(out()).find((entry) => entry.requestId === "secret-request" && entry.msg === "request")).toMatchObject({ path: "/api/signin" });
  });

  it("a log reader that falls behind never stops the server: with stdout's pipe full the requests are still answered, and every line arrives once it reads again", async () => {
    // pino's synchronous writer met a full pipe on a non-blocking stdout with EAGAIN and slept the
    // whole process 100 ms a try, over and over while the reader was away: every request hung.
    const id = `backlog-${Date.now()}`;
    app.child.stdout.pause(); // the collector stops reading: the pipe fills
    try {
      const total = 4_000; // ~1 MB of access lines, many times a pipe's buffer
      for (let sent = 0; sent < total; sent += 50) {
        const answers = await Promise.all(Array.from({ length: 50 }, (_, n) => fetch(`${url}/`, { headers: { "x-request-id": `${id}-${sent + n}` } })));
        expect(answers.map((answer) => answer.status)).toEqual(Array(50).fill(200));
        await Promise.all(answers.map((answer) => answer.text()));
      }
    } finally {
      app.child.stdout.resume();
    }
    await until(() => entries(out()).filter((entry) => String(entry.requestId).startsWith(`${id}-`)).length === 4_000);
  }, 60_000);

  it("a job keeps the id of the request that enqueued it: the job is told it, and its log lines (the app's and fw's) carry it", async () => {
    const enqueue = (n: number, id: string) =>
      fetch(`${url}/api/notes`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", "x-request-id": id }, body: `n=${n}` });
    expect((await enqueue(7, "enqueue-7")).status).toBe(200);
    expect((await enqueue(13, "enqueue-13")).status).toBe(200);
    await until(() => entries(out()).some((entry) => entry.level === "warn" && String(entry.msg).includes("unlucky thirteen")));
    const ran = entries(out()).filter((entry) => entry.msg === "note job ran");
    expect(ran).toContainEqual(expect.objectContaining({ n: 7, given: "enqueue-7", requestId: "enqueue-7" }));
    expect(ran).toContainEqual(expect.objectContaining({ n: 13, given: "enqueue-13", requestId: "enqueue-13" }));
    const dead = entries(out()).find((entry) => entry.level === "warn" && String(entry.msg).includes("unlucky thirteen"));
    expect(dead).toMatchObject({ requestId: "enqueue-13" });
    expect(dead?.msg).toMatch(/^fw\/jobs: Note #\d+ \(request enqueue-13\) is dead after 1 try: Error: unlucky thirteen$/);
  });
});

describe("issue 44 item 1: log levels and formats by configuration", () => {
  it("FW_LOG_LEVEL=warn: no access entries (nor the banner, an info line), a 500 still logged", async () => {
    const port = await freePort();
    const app = bootNode(main, [], { ...PRODUCTION_ENV, PLAIN: "1", FW_LOG_FORMAT: "json", FW_LOG_LEVEL: "warn", PORT: String(port) });
    app.url.catch(() => undefined); // it prints no banner: its url is never read from it
    try {
      const url = `http://127.0.0.1:${port}`;
      await until(async () => (await fetch(`${url}/fw/health`).catch(() => undefined))?.status === 200);
      await fetch(`${url}/`);
      expect((await fetch(`${url}/boom`)).status).toBe(500);
      await until(() => app.output().out.includes('"level":"error"'));
      expect(entries(app.output().out).filter((entry) => entry.level === "info")).toEqual([]);
    } finally {
      app.child.kill("SIGTERM");
      await app.exited;
    }
  });

  it("a level or format that is none of the names stops the boot, naming the variable", async () => {
    const level = await runNode(main, [], { ...PRODUCTION_ENV, PLAIN: "1", PORT: "0", FW_LOG_LEVEL: "loud" });
    expect(level.code).toBe(1);
    expect(level.err).toContain('FW_LOG_LEVEL="loud" is not one of trace, debug, info, warn, error, fatal, silent');
    const format = await runNode(main, [], { ...PRODUCTION_ENV, PLAIN: "1", PORT: "0", FW_LOG_FORMAT: "xml" });
    expect(format.code).toBe(1);
    expect(format.err).toContain('FW_LOG_FORMAT="xml" is not one of json, text');
  });

  it("text (dev's, or FW_LOG_FORMAT=text): the access line as it always was, the id still sent back", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "fw-logs-dev-"));
    const app = bootNode(main, ["dev"], { PLAIN: "1", FW_LOG_FORMAT: "" }, cwd);
    try {
      const url = await app.url;
      const response = await fetch(`${url}/?token=${SECRETS.query}`);
      expect(response.headers.get("x-request-id")).toMatch(UUID);
      await until(() => /^GET \/ 200 \d+\.\dms$/m.test(app.output().out));
      expect(app.output().out).not.toContain(SECRETS.query);
    } finally {
      app.child.kill("SIGTERM");
      await app.exited;
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
