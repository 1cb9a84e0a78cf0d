import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { gunzipSync } from "node:zlib";
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type HrTime } from "@opentelemetry/api";
import { TraceState } from "@opentelemetry/core";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { AlwaysOnSampler, NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { afterEach, describe, expect, it } from "vitest";
import { OtlpBatchProcessor, type Deliver } from "../../runtime/trace/otlp-export.js";
import { OtlpSender } from "../../runtime/trace/otlp-send.js";
import { otlpSettingsFromEnv, type OtlpSettings } from "../../runtime/trace/otlp-settings.js";
import { ProtoWriter } from "../../runtime/trace/protobuf.js";
import { writeTime } from "../../runtime/trace/otlp-span.js";
import { decodeTraceRequest, decodeTraces, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../support/otlp-receiver.js";
import { bootNode } from "../support/process.js";
import { PRODUCTION_ENV } from "../support/serve.js";

// Issue 44's tracing cost (bench/FINDINGS.md 36): fw encodes a span to OTLP protobuf as it ends
// (runtime/trace/otlp-span.ts, protobuf.ts) and batches and sends the bytes itself
// (otlp-export.ts, otlp-send.ts). What a receiver decodes with a real protobuf library
// (protobufjs, spec/support/otlp-receiver.ts) must be what the SDK's exporter sent.

const SETTINGS: OtlpSettings = { url: new URL("http://127.0.0.1:1/v1/traces"), headers: {}, timeoutMs: 2000, gzip: false, tls: {}, delayMs: 60_000, maxQueue: 2048, maxBatch: 512, exportTimeoutMs: 30_000 };

/** Resolves once `condition` holds, asking every 10 ms (the test's timeout bounds a hang). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((done) => setTimeout(done, 10));
}

/** A provider feeding fw's processor, sending to `url`; `bodies` gets each request's body as it is sent. */
function pipeline(url: string, overrides: Partial<OtlpSettings> = {}, wrap?: (deliver: Deliver) => Deliver) {
  const settings = { ...SETTINGS, url: new URL(`${url}/v1/traces`), ...overrides };
  const sender = new OtlpSender(settings);
  const bodies: Uint8Array[] = [];
  const logged: string[] = [];
  const send: Deliver = (body, timeoutMs) => {
    bodies.push(Buffer.from(body));
    return sender.send(body, timeoutMs);
  };
  const processor = new OtlpBatchProcessor(settings, resourceFromAttributes({ "service.name": "encoder-test", "host.count": 2 }), wrap === undefined ? send : wrap(send), (line) => logged.push(line));
  const provider = new NodeTracerProvider({ sampler: new AlwaysOnSampler(), spanProcessors: [processor] });
  const tracer = provider.getTracer("enc", "1.2.3");
  return { processor, provider, tracer, bodies, logged, close: () => sender.close() };
}

const receivers: OtlpReceiver[] = [];
afterEach(async () => {
  for (const receiver of receivers.splice(0)) await receiver.close();
});
async function receiver(port = 0): Promise<OtlpReceiver> {
  const started = await startOtlpReceiver(port);
  receivers.push(started);
  return started;
}

describe("issue 44: spans encoded as they end, decoded by protobufjs", () => {
  it("names and values as given: non-ASCII, large, int against double, arrays, events, links, an error status, the parent, the resource and the scope", async () => {
    const sink = await receiver();
    const { processor, tracer, bodies, close } = pipeline(sink.url);
    const big = "x".repeat(70_000) + "é"; // its length needs three bytes, its message's too
    const parent = tracer.startSpan("GET /posts/:id", { kind: SpanKind.SERVER }, ROOT_CONTEXT);
    const link = { context: { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", traceFlags: 1, isRemote: true, traceState: new TraceState("vendor=v1") }, attributes: { "fw.link": "enqueued by" } };
    const child = tracer.startSpan("SELECT café ☕ 日本 🚀", {
      kind: SpanKind.CLIENT,
      links: [link],
      attributes: { int: 42, negative: -7, large: 2 ** 40, huge: 2 ** 60, double: 1.5, yes: true, no: false, big, empty: "", ascii127: "a".repeat(127), ascii128: "b".repeat(128), utf127: `${"c".repeat(126)}é`, list: ["a", "ü"], numbers: [1, 2.5] },
    }, trace.setSpan(ROOT_CONTEXT, parent));
    child.addEvent("exception", { "exception.type": "Error", "exception.message": "naïve ❌" });
    child.setStatus({ code: SpanStatusCode.ERROR, message: "Error: naïve ❌" });
    child.end();
    parent.end();
    await processor.forceFlush();
    expect(bodies).toHaveLength(1);
    const spans = sink.spans;
    expect(spans.map((s) => s.name)).toEqual(["SELECT café ☕ 日本 🚀", "GET /posts/:id"]);
    const [decodedChild, decodedParent] = spans as [ReceivedSpan, ReceivedSpan];
    expect(decodedChild).toMatchObject({ kind: "client", parentSpanId: decodedParent.spanId, traceId: decodedParent.traceId, scope: "enc", status: { code: "error", message: "Error: naïve ❌" } });
    expect(decodedChild.traceId).toBe(child.spanContext().traceId);
    expect(decodedChild.spanId).toBe(child.spanContext().spanId);
    expect(decodedParent).toMatchObject({ kind: "server", parentSpanId: "", status: { code: "unset", message: "" } });
    expect(decodedChild.attributes).toEqual({ int: 42, negative: -7, large: 2 ** 40, huge: 2 ** 60, double: 1.5, yes: true, no: false, big, empty: "", ascii127: "a".repeat(127), ascii128: "b".repeat(128), utf127: `${"c".repeat(126)}é` });
    expect(decodedChild.events).toEqual([{ name: "exception", attributes: { "exception.type": "Error", "exception.message": "naïve ❌" } }]);
    expect(decodedChild.links).toEqual([{ traceId: link.context.traceId, spanId: link.context.spanId }]);
    expect(decodedChild.resource).toEqual({ "service.name": "encoder-test", "host.count": 2 });
    // What the receiver's summary leaves out, read from the decoded message itself.
    const raw = decodeTraceRequest(bodies[0] as Uint8Array) as { resource_spans: { scope_spans: { scope: { name: string; version: string }; spans: Record<string, unknown>[] }[] }[] };
    const scope = raw.resource_spans[0]?.scope_spans[0];
    expect(scope?.scope).toEqual({ name: "enc", version: "1.2.3" });
    const rawChild = scope?.spans[0] as Record<string, unknown> & { attributes: { key: string; value: Record<string, unknown> }[]; links: Record<string, unknown>[]; events: Record<string, unknown>[] };
    const value = (key: string) => rawChild.attributes.find((a) => a.key === key)?.value;
    expect(value("int")).toEqual({ int_value: "42" });
    expect(value("negative")).toEqual({ int_value: "-7" });
    expect(value("huge")).toEqual({ double_value: 2 ** 60 });
    expect(value("double")).toEqual({ double_value: 1.5 });
    expect(value("list")).toEqual({ array_value: { values: [{ string_value: "a" }, { string_value: "ü" }] } });
    expect(value("numbers")).toEqual({ array_value: { values: [{ int_value: "1" }, { double_value: 2.5 }] } });
    expect(rawChild["flags"]).toBe(0x101); // sampled, "has is_remote", not remote
    expect(rawChild.links[0]).toMatchObject({ trace_state: "vendor=v1", flags: 0x301 });
    const nanos = (time: HrTime): string => (BigInt(time[0]) * 1_000_000_000n + BigInt(time[1])).toString();
    const ended = child as unknown as { startTime: HrTime; endTime: HrTime; events: { time: HrTime }[] };
    expect(rawChild["start_time_unix_nano"]).toBe(nanos(ended.startTime));
    expect(rawChild["end_time_unix_nano"]).toBe(nanos(ended.endTime));
    expect(rawChild.events[0]?.["time_unix_nano"]).toBe(nanos((ended.events[0] as { time: HrTime }).time));
    close();
  });

  it("a link whose ids are not hex (made by hand) costs its own ids, not the batch: the spans around it decode", async () => {
    const sink = await receiver();
    const { processor, tracer, close } = pipeline(sink.url);
    tracer.startSpan("before", {}, ROOT_CONTEXT).end();
    tracer.startSpan("odd link", { links: [{ context: { traceId: "not-hex-at-all", spanId: "zz", traceFlags: 1 } }] }, ROOT_CONTEXT).end();
    tracer.startSpan("after", {}, ROOT_CONTEXT).end();
    await processor.forceFlush();
    expect(sink.spans.map((s) => s.name)).toEqual(["before", "odd link", "after"]);
    expect(sink.spans[1]?.links).toEqual([{ traceId: "", spanId: "" }]);
    close();
  });

  it("a span fw cannot encode (a name that is not a string, from untyped code) is dropped and counted, said once; the batch around it is intact", async () => {
    const sink = await receiver();
    const { processor, tracer, logged, close } = pipeline(sink.url);
    tracer.startSpan("before", {}, ROOT_CONTEXT).end();
    for (let i = 0; i < 2; i++) tracer.startSpan(42 as unknown as string, {}, ROOT_CONTEXT).end();
    tracer.startSpan("after", {}, ROOT_CONTEXT).end();
    await processor.forceFlush();
    expect(sink.spans.map((s) => s.name)).toEqual(["before", "after"]);
    expect(processor.dropped).toBe(2);
    expect(logged.filter((line) => line.includes("could not be encoded"))).toHaveLength(1);
    close();
  });

  it("a time's nanoseconds are exact past 2^53 (no BigInt, no rounding)", () => {
    const w = new ProtoWriter(16);
    for (const time of [[0, 0], [1, 999_999_999], [1_764_446_400, 123_456_789], [4_294_967_295, 999_999_999], [65_536, 1], [65_535, 999_999_999]] as HrTime[]) {
      w.reset();
      writeTime(w, time);
      expect(w.bytes().readBigUInt64LE(0)).toBe(BigInt(time[0]) * 1_000_000_000n + BigInt(time[1]));
    }
  });
});

describe("issue 44: the batch (OTEL_BSP_*) and the receiver's faults", () => {
  it("a batch is sent as soon as OTEL_BSP_MAX_EXPORT_BATCH_SIZE spans wait; the rest after the delay or on a flush, in the order they ended", async () => {
    const sink = await receiver();
    const { processor, tracer, bodies, close } = pipeline(sink.url, { maxBatch: 3 });
    for (let i = 0; i < 7; i++) tracer.startSpan(`span ${i}`, {}, ROOT_CONTEXT).end();
    await until(() => sink.spans.length === 6);
    expect(bodies.map((body) => decodeTraces(body).length)).toEqual([3, 3]);
    await processor.forceFlush();
    expect(bodies.map((body) => decodeTraces(body).length)).toEqual([3, 3, 1]);
    expect(sink.spans.map((s) => s.name)).toEqual(Array.from({ length: 7 }, (_, i) => `span ${i}`));
    close();
  });

  it("the delay (OTEL_BSP_SCHEDULE_DELAY) sends a batch that did not fill", async () => {
    const sink = await receiver();
    const { tracer, close } = pipeline(sink.url, { delayMs: 20 });
    tracer.startSpan("alone", {}, ROOT_CONTEXT).end();
    await until(() => sink.spans.length === 1);
    close();
  });

  it("a full queue (OTEL_BSP_MAX_QUEUE_SIZE) drops the spans past it, counts them and says so once", async () => {
    const sink = await receiver();
    let release = (): void => undefined;
    const gate = new Promise<void>((done) => (release = done));
    const { processor, tracer, logged, close } = pipeline(sink.url, { maxQueue: 4, maxBatch: 2 }, (send) => async (body, timeoutMs) => {
      await gate;
      return send(body, timeoutMs);
    });
    for (let i = 0; i < 2; i++) tracer.startSpan(`sent ${i}`, {}, ROOT_CONTEXT).end(); // a full batch: its export starts, held
    for (let i = 0; i < 7; i++) tracer.startSpan(`queued ${i}`, {}, ROOT_CONTEXT).end(); // 4 wait, 3 are dropped
    expect(processor.dropped).toBe(3);
    expect(logged.filter((line) => line.includes("the trace queue is full"))).toHaveLength(1);
    release();
    await processor.forceFlush();
    expect(sink.spans.map((s) => s.name)).toEqual(["sent 0", "sent 1", "queued 0", "queued 1", "queued 2", "queued 3"]);
    close();
  });

  it("the receiver down: the batch is dropped, counted and logged once; once it is back, spans arrive and the log says so", async () => {
    const probe = await startOtlpReceiver();
    const port = probe.port;
    await probe.close();
    // A timeout shorter than the first retry's back-off: one try, then the batch is given up.
    const { processor, tracer, logged, close } = pipeline(`http://127.0.0.1:${port}`, { timeoutMs: 300 });
    for (let i = 0; i < 5; i++) tracer.startSpan(`lost ${i}`, {}, ROOT_CONTEXT).end();
    await processor.forceFlush();
    tracer.startSpan("lost too", {}, ROOT_CONTEXT).end();
    await processor.forceFlush();
    expect(processor.dropped).toBe(6);
    expect(logged.filter((line) => line.includes("cannot take spans"))).toHaveLength(1);
    expect(logged[0]).toMatch(/ECONNREFUSED/);
    const back = await receiver(port);
    tracer.startSpan("arrives", {}, ROOT_CONTEXT).end();
    await processor.forceFlush();
    expect(back.spans.map((s) => s.name)).toEqual(["arrives"]);
    expect(logged.at(-1)).toMatch(/spans reach the trace receiver again \(6 dropped/);
    close();
  });

  it("a 503 with Retry-After is retried; headers (OTEL_EXPORTER_OTLP_HEADERS) and gzip (OTEL_EXPORTER_OTLP_COMPRESSION) are sent as set", async () => {
    const seen: { status: number; headers: IncomingHttpHeaders; spans: number }[] = [];
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const status = seen.length === 0 ? 503 : 200;
        seen.push({ status, headers: request.headers, spans: decodeTraces(gunzipSync(Buffer.concat(chunks))).length });
        response.writeHead(status, status === 503 ? { "retry-after": "0" } : {}).end();
      });
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const { processor, tracer, close } = pipeline(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { gzip: true, headers: { authorization: "Bearer t0ken", "x-tenant": "blog" } });
    tracer.startSpan("retried", {}, ROOT_CONTEXT).end();
    await processor.forceFlush();
    expect(seen.map((s) => [s.status, s.spans])).toEqual([[503, 1], [200, 1]]);
    expect(seen[1]?.headers).toMatchObject({ authorization: "Bearer t0ken", "x-tenant": "blog", "content-encoding": "gzip", "content-type": "application/x-protobuf" });
    expect(processor.dropped).toBe(0);
    close();
    await new Promise((done) => server.close(done));
  });
});

describe("issue 44: the exporter's settings, read as OpenTelemetry reads them", () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const key of Object.keys(process.env)) if (key.startsWith("OTEL_")) delete process.env[key];
    Object.assign(process.env, saved);
  });

  it("endpoints, headers, timeout, compression and the batch's sizes", () => {
    expect(otlpSettingsFromEnv()).toMatchObject({ url: new URL("http://localhost:4318/v1/traces"), headers: {}, timeoutMs: 10_000, gzip: false, delayMs: 5000, maxQueue: 2048, maxBatch: 512, exportTimeoutMs: 30_000 });
    Object.assign(process.env, {
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/base",
      OTEL_EXPORTER_OTLP_HEADERS: "a=1,b=2",
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: "b=3",
      OTEL_EXPORTER_OTLP_TIMEOUT: "700",
      OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: "gzip",
      OTEL_BSP_SCHEDULE_DELAY: "250",
      OTEL_BSP_MAX_QUEUE_SIZE: "100",
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "400",
      OTEL_BSP_EXPORT_TIMEOUT: "900",
    });
    expect(otlpSettingsFromEnv()).toMatchObject({ url: new URL("http://collector:4318/base/v1/traces"), headers: { a: "1", b: "3" }, timeoutMs: 700, gzip: true, delayMs: 250, maxQueue: 100, maxBatch: 100, exportTimeoutMs: 900 });
    process.env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] = "https://traces.example:4318/custom";
    expect(otlpSettingsFromEnv().url.href).toBe("https://traces.example:4318/custom");
  });
});

describe("issue 44: fw's exporter in a real process", () => {
  const main = resolve("spec/ops/apps/trace-app.mjs");

  it("an app's own span through @opentelemetry/api is exported beside fw's, a child of the request's; SIGTERM sends what waits", async () => {
    const sink = await receiver();
    const cwd = mkdtempSync(join(tmpdir(), "fw-otlp-export-"));
    // A delay far longer than the test: only the shutdown's flush can send these spans.
    const app = bootNode(main, [], { ...PRODUCTION_ENV, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_BSP_SCHEDULE_DELAY: "600000", OTEL_SERVICE_NAME: "exporter-test" }, cwd);
    try {
      const url = await app.url;
      expect(await (await fetch(`${url}/own-span`, { headers: { "x-request-id": "own-1" } })).text()).toBe("worked");
      expect(sink.spans).toEqual([]);
      app.child.kill("SIGTERM");
      expect(await app.exited).toBe(0);
      const server = sink.spans.find((span) => span.attributes["fw.request_id"] === "own-1") as ReceivedSpan;
      expect(server).toMatchObject({ name: "GET /own-span", kind: "server", scope: "fw" });
      expect(server.resource["service.name"]).toBe("exporter-test");
      const own = sink.spans.find((span) => span.name === "app work") as ReceivedSpan;
      expect(own).toMatchObject({ scope: "app-tracer", traceId: server.traceId, parentSpanId: server.spanId, attributes: { "app.rows": 3, "app.ratio": 0.25 } });
      expect(own.events).toEqual([{ name: "app event", attributes: { "app.step": "one" } }]);
    } finally {
      if (app.child.exitCode === null) app.child.kill("SIGKILL");
      rmSync(cwd, { recursive: true, force: true });
    }
  }, 60_000);
});
