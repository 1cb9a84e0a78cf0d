import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../support/otlp-receiver.js";
import { bootNode } from "../support/process.js";
import { PRODUCTION_ENV } from "../support/serve.js";

// Issue 44 item 2: OpenTelemetry traces, exported as OTLP over HTTP (protobuf) to a receiver in
// this test that decodes what arrives. The app runs from the built runtime in its own process.
const main = resolve("spec/ops/apps/logs-app.mjs");

/** Resolves once `condition` holds, asking every 20 ms (the test's timeout bounds a hang). */
async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((done) => setTimeout(done, 20));
}

/** What the traces need of the environment: the receiver, a short batch delay, the service's name. */
const traceEnv = (receiver: string): Record<string, string> => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: receiver,
  OTEL_BSP_SCHEDULE_DELAY: "50",
  OTEL_SERVICE_NAME: "ops-test",
});

describe("issue 44 item 2: traces from a real process, to an OTLP receiver", () => {
  let receiver: OtlpReceiver;
  let downstream: Server;
  const downstreamHeaders: IncomingHttpHeaders[] = [];
  let cwd = "";
  let app: ReturnType<typeof bootNode>;
  let url = "";
  const named = (name: string): ReceivedSpan[] => receiver.spans.filter((span) => span.name === name);
  const childrenOf = (parent: ReceivedSpan): ReceivedSpan[] => receiver.spans.filter((span) => span.traceId === parent.traceId && span.parentSpanId === parent.spanId);

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    downstream = createServer((request, response) => {
      downstreamHeaders.push(request.headers);
      response.writeHead(204).end();
    });
    await new Promise<void>((done) => downstream.listen(0, "127.0.0.1", done));
    cwd = mkdtempSync(join(tmpdir(), "fw-traces-"));
    const DOWNSTREAM = `http://127.0.0.1:${(downstream.address() as AddressInfo).port}`;
    app = bootNode(main, [], { ...PRODUCTION_ENV, ...traceEnv(receiver.url), DOWNSTREAM }, cwd);
    url = await app.url;
  }, 120_000);

  afterAll(async () => {
    app.child.kill("SIGTERM");
    await app.exited;
    await receiver.close();
    await new Promise((done) => downstream.close(done));
    rmSync(cwd, { recursive: true, force: true });
  });

  it("a server span per request, named by its route pattern, with its method, path, route, status and request id; the resource names the service", async () => {
    const response = await fetch(`${url}/?token=not-in-the-span`, { headers: { "x-request-id": "traced-1" } });
    expect(response.status).toBe(200);
    await until(() => receiver.spans.some((span) => span.attributes["fw.request_id"] === "traced-1"));
    const span = receiver.spans.find((s) => s.attributes["fw.request_id"] === "traced-1") as ReceivedSpan;
    expect(span).toMatchObject({ name: "GET /", kind: "server", parentSpanId: "", scope: "fw" });
    expect(span.attributes).toMatchObject({ "http.request.method": "GET", "url.path": "/", "http.route": "/", "http.response.status_code": 200 });
    expect(span.resource["service.name"]).toBe("ops-test");
    expect(JSON.stringify(receiver.spans)).not.toContain("not-in-the-span");
    expect(receiver.requests.every((request) => request.contentType === "application/x-protobuf")).toBe(true);
  });

  it("an incoming traceparent is continued: the server span is its child, in its trace", async () => {
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    await fetch(`${url}/pid`, { headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } });
    await until(() => named("GET /pid").some((span) => span.traceId === traceId));
    expect(named("GET /pid").find((span) => span.traceId === traceId)?.parentSpanId).toBe("00f067aa0ba902b7");
  });

  it("each SQL statement a request runs is a child span of its server span; a job it enqueued runs in a trace of its own linked to it", async () => {
    const response = await fetch(`${url}/api/notes`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", "x-request-id": "enqueue-traced" }, body: "n=7" });
    expect(response.status).toBe(200);
    await until(() => named("job Note").some((span) => span.attributes["fw.request_id"] === "enqueue-traced"));
    const server = receiver.spans.find((span) => span.attributes["fw.request_id"] === "enqueue-traced" && span.kind === "server") as ReceivedSpan;
    expect(server.name).toBe("POST /api/notes");
    const statements = childrenOf(server).filter((span) => span.attributes["db.system.name"] === "pglite");
    expect(statements.map((span) => span.name)).toContain("INSERT");
    const insert = statements.find((span) => span.name === "INSERT") as ReceivedSpan;
    expect(insert.kind).toBe("client");
    expect(String(insert.attributes["db.query.text"])).toMatch(/^INSERT INTO fw_jobs/);
    const job = named("job Note").find((span) => span.attributes["fw.request_id"] === "enqueue-traced") as ReceivedSpan;
    expect(job.kind).toBe("consumer");
    expect(job.parentSpanId).toBe("");
    expect(job.links).toEqual([{ traceId: server.traceId, spanId: server.spanId }]);
    expect(job.status.code).toBe("unset");
  });

  it("a request that fails: its span is an error with the exception (name and message, no stack) and the incident; a failing job's span too", async () => {
    const page = await (await fetch(`${url}/boom`, { headers: { "x-request-id": "boom-traced" } })).text();
    const incident = /Incident <code>([0-9a-f]{8})<\/code>/.exec(page)?.[1];
    await fetch(`${url}/api/notes`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", "x-request-id": "enqueue-13" }, body: "n=13" });
    await until(() => named("job Note").some((span) => span.attributes["fw.request_id"] === "enqueue-13") && named("GET /boom").length > 0);
    const boom = named("GET /boom")[0] as ReceivedSpan;
    expect(boom.status).toEqual({ code: "error", message: "Error: kaboom" });
    expect(boom.attributes["http.response.status_code"]).toBe(500);
    expect(boom.attributes["fw.incident"]).toBe(incident);
    expect(boom.events).toEqual([{ name: "exception", attributes: { "exception.type": "Error", "exception.message": "kaboom" } }]);
    const failed = named("job Note").find((span) => span.attributes["fw.request_id"] === "enqueue-13") as ReceivedSpan;
    expect(failed.status).toEqual({ code: "error", message: "Error: unlucky thirteen" });
  });

  it("mail delivery and outgoing HTTP are child spans; the trace goes on to the server called, the query stays out", async () => {
    expect((await fetch(`${url}/api/mail`, { method: "POST", headers: { "x-request-id": "mail-traced" } })).status).toBe(200);
    expect(await (await fetch(`${url}/api/fetch`, { headers: { "x-request-id": "fetch-traced" } })).text()).toBe("downstream said 204");
    await until(() => named("mail deliver").length > 0 && receiver.spans.some((span) => span.kind === "client" && span.attributes["http.request.method"] === "GET"));
    const mailServer = receiver.spans.find((span) => span.attributes["fw.request_id"] === "mail-traced" && span.kind === "server") as ReceivedSpan;
    expect(childrenOf(mailServer).map((span) => span.name)).toContain("mail deliver");
    expect(named("mail deliver")[0]?.attributes).toMatchObject({ "fw.mail.recipients": 1 });
    const fetchServer = receiver.spans.find((span) => span.attributes["fw.request_id"] === "fetch-traced" && span.kind === "server") as ReceivedSpan;
    const outgoing = childrenOf(fetchServer).find((span) => span.kind === "client") as ReceivedSpan;
    expect(outgoing.name).toBe("GET");
    expect(outgoing.attributes).toMatchObject({ "http.request.method": "GET", "http.response.status_code": 204 });
    expect(String(outgoing.attributes["url.full"])).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/downstream$/);
    expect(downstreamHeaders.at(-1)?.["traceparent"]).toBe(`00-${outgoing.traceId}-${outgoing.spanId}-01`);
  });
});

describe("issue 44 item 2: the receiver down", () => {
  it("the app serves on; the spans are dropped, counted and logged once; once the receiver is back they arrive again", async () => {
    const down = await startOtlpReceiver();
    const port = down.port;
    await down.close(); // nothing listens there now
    const cwd = mkdtempSync(join(tmpdir(), "fw-traces-down-"));
    const app = bootNode(main, [], { ...PRODUCTION_ENV, ...traceEnv(`http://127.0.0.1:${port}`), PLAIN: "1", FW_METRICS_TOKEN: "metrics-token-0123456789abcdef", FW_LOG_FORMAT: "text" }, cwd);
    let back: OtlpReceiver | undefined;
    try {
      const url = await app.url;
      for (let i = 0; i < 20; i++) expect((await fetch(`${url}/`)).status).toBe(200);
      await until(() => app.output().err.includes("fw/trace: the trace receiver cannot take spans"));
      const dropped = async (): Promise<number> => {
        const text = await (await fetch(`${url}/fw/metrics`, { headers: { authorization: "Bearer metrics-token-0123456789abcdef" } })).text();
        return Number(/^fw_trace_spans_dropped (\d+)$/m.exec(text)?.[1] ?? 0);
      };
      await until(async () => (await dropped()) >= 20);
      expect(app.output().err.match(/cannot take spans/g)).toHaveLength(1);
      back = await startOtlpReceiver(port);
      await fetch(`${url}/pid`);
      await until(() => back?.spans.some((span) => span.name === "GET /pid") === true);
      await until(() => app.output().err.includes("fw/trace: spans reach the trace receiver again"));
    } finally {
      app.child.kill("SIGTERM");
      await app.exited;
      await back?.close();
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});

describe("issue 44 item 2: the sampler (OTEL_TRACES_SAMPLER=parentbased_traceidratio)", () => {
  it("a request without a trace context is traced at the ratio; one with a context follows its sampled flag", async () => {
    const receiver = await startOtlpReceiver();
    const cwd = mkdtempSync(join(tmpdir(), "fw-traces-ratio-"));
    const env = { ...PRODUCTION_ENV, ...traceEnv(receiver.url), OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.5" };
    const app = bootNode(main, [], env, cwd);
    const traced = (prefix: string): number => receiver.spans.filter((span) => span.kind === "server" && String(span.attributes["fw.request_id"]).startsWith(prefix)).length;
    try {
      const url = await app.url;
      // 400 new traces at 0.5: 200 expected, 10 the standard deviation; a ratio applied twice (0.25) gives 100.
      for (let i = 0; i < 400; i++) await (await fetch(`${url}/`, { headers: { "x-request-id": `root-${i}` } })).text();
      for (let i = 0; i < 20; i++) {
        const flags = i % 2 === 0 ? "01" : "00";
        const traceparent = `00-${(i + 1).toString(16).padStart(32, "a")}-00f067aa0ba902b7-${flags}`;
        await (await fetch(`${url}/`, { headers: { traceparent, "x-request-id": `${flags === "01" ? "sampled" : "unsampled"}-${i}` } })).text();
      }
      // The spans leave in the order they ended: once the last one sent has arrived, all have.
      await fetch(`${url}/pid`, { headers: { traceparent: `00-${"f".repeat(32)}-00f067aa0ba902b7-01` } });
      await until(() => receiver.spans.some((span) => span.name === "GET /pid"));
      expect(traced("root-")).toBeGreaterThan(140);
      expect(traced("root-")).toBeLessThan(260);
      expect(traced("sampled-")).toBe(10);
      expect(traced("unsampled-")).toBe(0);
    } finally {
      app.child.kill("SIGTERM");
      await app.exited;
      await receiver.close();
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
