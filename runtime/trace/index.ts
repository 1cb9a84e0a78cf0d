import { diag, DiagLogLevel, SpanKind, trace } from "@opentelemetry/api";
import { ExportResultCode, W3CTraceContextPropagator, type ExportResult } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { defaultResource, detectResources, envDetector, hostDetector, processDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, ConsoleSpanExporter, NodeTracerProvider, SimpleSpanProcessor, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace-node";
import { addGaugeSource } from "../observe/gauges.js";
import { statementKind, watchStatements } from "../observe/statements.js";
import { setTracer } from "../observe/tracing.js";
import { PromiseContextManager } from "./context.js";
import { RequestSampler } from "./sampler.js";
import { failSpan, OtelTracer } from "./spans.js";
import { traceOutgoing } from "./outgoing.js";

export interface TracingOptions {
  /** `otlp` (OTLP over HTTP, protobuf, to the OTEL_EXPORTER_OTLP_* endpoint) or `console`. */
  readonly exporter: "otlp" | "console";
  /** fw's log, for the exporter's trouble (a receiver down, back) and OpenTelemetry's own warnings. */
  readonly log: (line: string) => void;
  /** The service's name when OTEL_SERVICE_NAME does not say (the app's package name). */
  readonly serviceName: string;
}

export interface Tracing {
  /** Spans the exporter could not deliver (the receiver down or refusing): dropped, counted. */
  readonly dropped: () => number;
  /** Sends what is still queued (within a few seconds), then stops. */
  close(): Promise<void>;
}

/**
 * Starts tracing with OpenTelemetry's Node SDK (loaded only here, only when the OTEL_* variables
 * ask: observe/trace-settings.ts): a provider with the standard settings read from the
 * environment (the sampler: OTEL_TRACES_SAMPLER and _ARG; the batch: OTEL_BSP_*; the exporter:
 * OTEL_EXPORTER_OTLP_*; the resource: OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, the host and
 * the process), W3C trace context in and out (OTEL_PROPAGATORS=none: neither), and fw's hooks:
 * requests, SQL statements, outgoing HTTP, and what fw/jobs, fw/mail and fw/live ask for.
 */
export async function startTracing(options: TracingOptions): Promise<Tracing> {
  diag.setLogger(diagnosticsTo(options.log), DiagLogLevel.WARN);
  // The app's name first; the environment's OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over it.
  const detected = detectResources({ detectors: [processDetector, hostDetector, envDetector] });
  await detected.waitForAsyncAttributes?.();
  const resource = defaultResource().merge(resourceFromAttributes({ "service.name": options.serviceName })).merge(detected);
  const exporter = new CountingExporter(options.exporter === "otlp" ? new OTLPTraceExporter() : new ConsoleSpanExporter(), options.log);
  const processor = options.exporter === "otlp" ? new BatchSpanProcessor(exporter) : new SimpleSpanProcessor(exporter);
  const sampler = RequestSampler.fromEnv(process.env);
  const provider = new NodeTracerProvider({ resource, sampler, spanProcessors: [processor] });
  const propagate = (process.env["OTEL_PROPAGATORS"] ?? "tracecontext").trim().toLowerCase() !== "none";
  // W3C trace context alone (baggage is not read: fw puts nothing in it), or none at all; the
  // context carried by promise hooks, not by an AsyncLocalStorage (context.ts says why).
  provider.register({ propagator: propagate ? new W3CTraceContextPropagator() : null, contextManager: new PromiseContextManager() });
  const tracer = trace.getTracer("fw");
  setTracer(new OtelTracer(tracer, propagate, sampler));
  const unwatch = watchStatements({
    started: (sql, engine) => {
      const parent = trace.getActiveSpan();
      if (parent === undefined || !parent.isRecording()) return NOTHING;
      const operation = statementKind(sql).toUpperCase();
      const span = tracer.startSpan(operation, {
        kind: SpanKind.CLIENT,
        attributes: { "db.system.name": engine === "postgres" ? "postgresql" : "pglite", "db.operation.name": operation, "db.query.text": sql.length > 2000 ? `${sql.slice(0, 2000)}…` : sql },
      });
      return (error) => {
        if (error !== undefined) failSpan(span, error);
        span.end();
      };
    },
  });
  const untrace = traceOutgoing(tracer, propagate);
  addGaugeSource({ name: "fw_trace_spans_dropped", help: "Spans the trace exporter could not deliver (its receiver down or refusing), dropped since the process started.", labelNames: [], aggregate: "sum", collect: () => [{ labels: {}, value: exporter.dropped }] });
  return {
    dropped: () => exporter.dropped,
    close: async () => {
      unwatch();
      untrace();
      setTracer(undefined);
      await Promise.race([provider.shutdown().catch(() => undefined), new Promise((done) => setTimeout(done, 5_000).unref())]);
    },
  };
}

const NOTHING = (): void => undefined;

/**
 * The exporter, counting what it could not deliver: a receiver that is down (or answers an error)
 * costs those spans, never a request. The log says so once when it starts failing, with the count,
 * and once when it delivers again.
 */
class CountingExporter implements SpanExporter {
  dropped = 0;
  #failing = false;

  constructor(
    private readonly inner: SpanExporter,
    private readonly log: (line: string) => void,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code === ExportResultCode.SUCCESS) {
        if (this.#failing) this.log(`fw/trace: spans reach the trace receiver again (${this.dropped} dropped meanwhile, in all)`);
        this.#failing = false;
      } else {
        this.dropped += spans.length;
        if (!this.#failing) this.log(`fw/trace: the trace receiver cannot take spans (${result.error?.message ?? "export failed"}): ${spans.length} dropped; the app serves on, and the count goes on in fw_trace_spans_dropped`);
        this.#failing = true;
      }
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** OpenTelemetry's own warnings and errors, on fw's log; one line per distinct message a minute at most. */
function diagnosticsTo(log: (line: string) => void) {
  const last = new Map<string, number>();
  const say = (message: string): void => {
    const now = Date.now();
    if ((last.get(message) ?? 0) > now - 60_000) return;
    last.set(message, now);
    log(`fw/trace: OpenTelemetry: ${message}`);
  };
  const ignore = (): void => undefined;
  return { error: say, warn: say, info: ignore, debug: ignore, verbose: ignore };
}
