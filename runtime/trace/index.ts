import { diag, DiagLogLevel, SpanKind, trace } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { defaultResource, detectResources, envDetector, hostDetector, processDetector, resourceFromAttributes, type Resource } from "@opentelemetry/resources";
import { ConsoleSpanExporter, NodeTracerProvider, SimpleSpanProcessor, type SpanProcessor } from "@opentelemetry/sdk-trace-node";
import { addGaugeSource } from "../observe/gauges.js";
import { statementKind, watchStatements } from "../observe/statements.js";
import { setTracer } from "../observe/tracing.js";
import { PromiseContextManager } from "./context.js";
import { OtlpBatchProcessor } from "./otlp-export.js";
import { OtlpSender } from "./otlp-send.js";
import { otlpSettingsFromEnv } from "./otlp-settings.js";
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
  const { processor, dropped, stop } = exporting(options, resource);
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
  addGaugeSource({ name: "fw_trace_spans_dropped", help: "Spans the trace exporter could not deliver (its receiver down or refusing, or its queue full), dropped since the process started.", labelNames: [], aggregate: "sum", collect: () => [{ labels: {}, value: dropped() }] });
  return {
    dropped,
    close: async () => {
      unwatch();
      untrace();
      setTracer(undefined);
      await Promise.race([provider.shutdown().catch(() => undefined), new Promise((done) => setTimeout(done, 5_000).unref())]);
      stop();
    },
  };
}

const NOTHING = (): void => undefined;

/**
 * Where spans go. OTLP: fw's own batch processor and exporter, which encode a span to protobuf as
 * it ends (otlp-export.ts says why), behind the SDK's variables. Console: the SDK's exporter, one
 * span at a time (a look in dev, not a production path).
 */
function exporting(options: TracingOptions, resource: Resource): { processor: SpanProcessor; dropped: () => number; stop: () => void } {
  if (options.exporter === "console") return { processor: new SimpleSpanProcessor(new ConsoleSpanExporter()), dropped: () => 0, stop: NOTHING };
  const settings = otlpSettingsFromEnv();
  const sender = new OtlpSender(settings);
  const processor = new OtlpBatchProcessor(settings, resource, (body, timeoutMs) => sender.send(body, timeoutMs), options.log);
  return { processor, dropped: () => processor.dropped, stop: () => sender.close() };
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
