import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootNode } from "../support/process.js";
import { parsePrometheus, prometheusParserMissing, sampleValue, type Family } from "../support/prometheus.js";
import { PRODUCTION_ENV } from "../support/serve.js";
import { connect } from "../support/ws-client.js";

// Issue 44 item 3: Prometheus metrics, off unless configured, behind a token or on a port of
// their own, added up over `--workers` processes. The apps run from the built runtime in
// processes of their own; what they answer is read by the Prometheus project's parser.
const main = resolve("spec/ops/apps/logs-app.mjs");
const TOKEN = "metrics-token-0123456789abcdef";
const missing = prometheusParserMissing();
if (missing !== undefined) console.log(`The Prometheus parser cannot run (${missing}): the metrics tests are skipped.`);

function freePort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => done(port));
    });
  });
}

/** One GET on a connection of its own, so a `--workers` primary hands each to the next worker. */
function getFresh(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const req = request(url, { agent: false, headers: { connection: "close", ...headers } }, (response) => {
      let body = "";
      response.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      response.on("end", () => done({ status: response.statusCode ?? 0, body }));
    });
    req.on("error", fail).end();
  });
}

async function scrape(url: string): Promise<Family[]> {
  const answer = await getFresh(url, { authorization: `Bearer ${TOKEN}` });
  expect(answer.status).toBe(200);
  return parsePrometheus(answer.body);
}

const requestsOf = (families: readonly Family[], labels: Record<string, string>): number => sampleValue(families, "fw_http_request_duration_seconds_count", labels) ?? 0;

describe.skipIf(missing !== undefined)("issue 44 item 3: metrics from one process, behind a token", () => {
  let cwd = "";
  let app: ReturnType<typeof bootNode>;
  let url = "";

  beforeAll(async () => {
    cwd = mkdtempSync(join(tmpdir(), "fw-metrics-"));
    app = bootNode(main, [], { ...PRODUCTION_ENV, FW_METRICS_TOKEN: TOKEN }, cwd);
    url = await app.url;
  }, 120_000);

  afterAll(async () => {
    app.child.kill("SIGTERM");
    await app.exited;
    rmSync(cwd, { recursive: true, force: true });
  });

  it("/fw/metrics without the token, or with another, is the 404 any unknown path gets", async () => {
    const unknown = await getFresh(`${url}/fw/nothing-here`);
    const tries: Record<string, string>[] = [{}, { authorization: "Bearer wrong-token-0123456789abcd" }, { authorization: TOKEN }, { authorization: `Basic ${TOKEN}` }];
    for (const headers of tries) {
      const refused = await getFresh(`${url}/fw/metrics`, headers);
      expect(refused.status).toBe(404);
      expect(refused.body.replace(/\/fw\/metrics/g, "/fw/nothing-here")).toBe(unknown.body);
    }
  });

  it("requests by method, route pattern and status (a histogram: its _count is the requests), never by path", async () => {
    for (let i = 0; i < 3; i++) await getFresh(`${url}/`);
    await getFresh(`${url}/boom`);
    await getFresh(`${url}/no/such/page/4711`);
    const families = await scrape(`${url}/fw/metrics`);
    const family = families.find((f) => f.name === "fw_http_request_duration_seconds");
    expect(family?.type).toBe("histogram");
    expect(requestsOf(families, { method: "GET", route: "/", status: "200" })).toBe(3);
    expect(requestsOf(families, { method: "GET", route: "/boom", status: "500" })).toBe(1);
    expect(requestsOf(families, { method: "GET", route: "(none)", status: "404" })).toBeGreaterThanOrEqual(1);
    expect(sampleValue(families, "fw_http_request_duration_seconds_bucket", { route: "/", status: "200", le: "+Inf" })).toBe(3);
    expect(family?.samples.some((s) => String(s.labels["route"]).includes("4711"))).toBe(false);
  });

  it("SQL statements by engine and kind, jobs by state with the oldest's age, sockets, event-loop delay and memory", async () => {
    const enqueue = (n: number) => fetch(`${url}/api/notes`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: `n=${n}` });
    expect((await enqueue(13)).status).toBe(200); // dead after its one try
    const socket = await connect(url, "/echo");
    try {
      let families: Family[] = [];
      for (let tries = 0; tries < 100 && (sampleValue(families, "fw_jobs", { state: "dead" }) ?? 0) < 1; tries++) {
        await new Promise((done) => setTimeout(done, 100));
        families = await scrape(`${url}/fw/metrics`);
      }
      expect(sampleValue(families, "fw_jobs", { state: "dead" })).toBeGreaterThanOrEqual(1);
      expect(sampleValue(families, "fw_jobs", { state: "queued" })).toBe(0);
      expect(sampleValue(families, "fw_jobs_oldest_age_seconds", { state: "dead" })).toBeGreaterThan(0);
      expect(sampleValue(families, "fw_db_statement_duration_seconds_count", { engine: "pglite", statement: "insert", outcome: "ok" })).toBeGreaterThanOrEqual(1);
      expect(sampleValue(families, "fw_db_statement_duration_seconds_count", { engine: "pglite", statement: "select" })).toBeGreaterThanOrEqual(1);
      expect(sampleValue(families, "fw_websockets")).toBe(1);
      expect(sampleValue(families, "fw_live_sockets")).toBe(0);
      expect(sampleValue(families, "nodejs_eventloop_lag_p99_seconds")).toBeGreaterThan(0);
      expect(sampleValue(families, "process_resident_memory_bytes")).toBeGreaterThan(10_000_000);
      expect(sampleValue(families, "nodejs_heap_size_used_bytes")).toBeGreaterThan(0);
      // GC durations only with FW_METRICS_GC=on (below): observing collections costs each one.
      expect(families.map((family) => family.name)).not.toContain("nodejs_gc_duration_seconds");
    } finally {
      socket.socket.close();
    }
  });
});

describe.skipIf(missing !== undefined)("issue 44 item 3: metrics on a port of their own, and added up over --workers", () => {
  it("FW_METRICS_PORT: /metrics there (nothing of the app), /fw/metrics on the app's port a 404; FW_METRICS_GC=on adds the GC durations", async () => {
    const port = await freePort();
    const app = bootNode(main, [], { ...PRODUCTION_ENV, PLAIN: "1", FW_METRICS_PORT: String(port), FW_METRICS_GC: "on" });
    try {
      const url = await app.url;
      await getFresh(`${url}/`);
      expect((await getFresh(`${url}/fw/metrics`)).status).toBe(404);
      const scraped = await getFresh(`http://127.0.0.1:${port}/metrics`);
      expect(scraped.status).toBe(200);
      const families = await parsePrometheus(scraped.body);
      expect(requestsOf(families, { route: "/", status: "200" })).toBe(1);
      expect(families.find((family) => family.name === "nodejs_gc_duration_seconds")?.type).toBe("histogram");
      expect((await getFresh(`http://127.0.0.1:${port}/`)).status).toBe(404);
      expect(app.output().out).toContain(`fw: metrics on http://127.0.0.1:${port}/metrics`);
    } finally {
      app.child.kill("SIGTERM");
      await app.exited;
    }
  });

  it("--workers 2: requests spread over both workers are counted once each, on the primary's port and through either worker's /fw/metrics", async () => {
    const port = await freePort();
    const app = bootNode(main, ["--workers", "2"], { ...PRODUCTION_ENV, PLAIN: "1", FW_METRICS_PORT: String(port), FW_METRICS_TOKEN: TOKEN });
    try {
      const url = await app.url;
      const pids = new Set<string>();
      for (let i = 0; i < 20; i++) pids.add((await getFresh(`${url}/pid`)).body);
      expect(pids.size).toBe(2); // both workers served
      const onPort = await scrape(`http://127.0.0.1:${port}/metrics`);
      expect(requestsOf(onPort, { route: "/pid", status: "200" })).toBe(20);
      // Through the app's port: whichever worker answers asks the primary for the sum.
      for (let i = 0; i < 2; i++) expect(requestsOf(await scrape(`${url}/fw/metrics`), { route: "/pid", status: "200" })).toBe(20);
      // A process's own gauge adds up: each worker's resident memory, summed, is more than one worker's.
      expect(sampleValue(onPort, "process_resident_memory_bytes")).toBeGreaterThan(40_000_000);
    } finally {
      app.child.kill("SIGTERM");
      await app.exited;
    }
  });
});
