import type { IncomingMessage } from "node:http";
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Link, type Span, type Tracer as ApiTracer } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { summary } from "../http/error-log.js";
import type { AccessEntry } from "../log/logger.js";
import type { RequestSpan, SpanOptions, Tracer } from "../observe/tracing.js";
import type { RequestSampler } from "./sampler.js";

const KINDS = { internal: SpanKind.INTERNAL, client: SpanKind.CLIENT, consumer: SpanKind.CONSUMER, producer: SpanKind.PRODUCER } as const;
const TRACE_CONTEXT = new W3CTraceContextPropagator();

/** The SDK's spans keep their status readable (the API's `Span` does not say so). */
interface ReadableSpanStatus {
  readonly status: { readonly code: SpanStatusCode };
}

/** A request's server span while the request runs: one object a request, no closures. */
class ServerSpan implements RequestSpan {
  constructor(
    private readonly span: Span,
    private readonly active: Context,
  ) {}

  run<T>(work: () => T): T {
    return context.with(this.active, work);
  }

  /**
   * Named by the route's pattern once dispatch found it (`GET /posts/:id`; the method alone when
   * no route answered, as OpenTelemetry's HTTP conventions say), never by the path.
   */
  end(entry: AccessEntry): void {
    const span = this.span;
    if (span.isRecording()) {
      if (entry.route !== undefined) {
        span.updateName(`${entry.method} ${entry.route}`);
        span.setAttribute("http.route", entry.route);
      }
      span.setAttribute("http.response.status_code", entry.status);
      // A 5xx is an error; one whose cause was recorded (`failed`) keeps that status and its message.
      if (entry.status >= 500 && (span as Partial<ReadableSpanStatus>).status?.code !== SpanStatusCode.ERROR) span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  }
}

/**
 * fw's tracer over OpenTelemetry's API: server spans for requests (the incoming `traceparent`
 * continued unless `propagate` is off), spans for work (jobs, mail, live refreshes), failures as
 * exception events without their stacks.
 */
export class OtelTracer implements Tracer {
  constructor(
    private readonly tracer: ApiTracer,
    private readonly propagate: boolean,
    private readonly sampler: RequestSampler,
  ) {}

  /**
   * A request the sampler leaves out costs a sampling decision and nothing more: no span object of
   * fw's, no context entered for it (its SQL, mail and fetches make no spans either way, since they
   * are made only under a recorded span), no access entry built for it. The price: an unsampled
   * request does not tell the servers it calls that it was left out, and they decide for themselves.
   */
  startRequest(incoming: IncomingMessage, id: string): RequestSpan | undefined {
    const method = incoming.method ?? "_OTHER";
    let parent = ROOT_CONTEXT;
    let span: Span;
    // Only a request that carries a trace context has one to extract (most carry none); one that
    // carries none starts a new trace, which fw's draw samples or leaves out before the SDK is asked.
    if (this.propagate && incoming.headers.traceparent !== undefined) {
      parent = propagation.extract(ROOT_CONTEXT, incoming.headers);
      span = this.tracer.startSpan(method, { kind: SpanKind.SERVER }, parent);
    } else if (this.sampler.sampleRoot()) {
      span = this.sampler.decided(() => this.tracer.startSpan(method, { kind: SpanKind.SERVER }, ROOT_CONTEXT));
    } else return undefined;
    if (!span.isRecording()) return undefined;
    const url = incoming.url ?? "/";
    const q = url.indexOf("?");
    span.setAttributes({ "http.request.method": method, "url.path": q === -1 ? url : url.slice(0, q), "fw.request_id": id });
    return new ServerSpan(span, trace.setSpan(parent, span));
  }

  traceparent(): string | undefined {
    const span = trace.getActiveSpan();
    if (span === undefined || !span.isRecording()) return undefined;
    const carrier: Record<string, string> = {};
    TRACE_CONTEXT.inject(context.active(), carrier, { set: (c, key, value) => void (c[key] = value) });
    return carrier["traceparent"];
  }

  inSpan<T>(name: string, options: SpanOptions, work: () => Promise<T>): Promise<T> {
    const parent = options.root === true ? ROOT_CONTEXT : context.active();
    const links: Link[] = [];
    const linked = options.link === undefined ? undefined : linkOf(options.link);
    if (linked !== undefined) links.push(linked);
    const attributes = Object.fromEntries(Object.entries(options.attributes ?? {}).filter(([, value]) => value !== undefined)) as Record<string, string | number | boolean>;
    const span = this.tracer.startSpan(name, { kind: KINDS[options.kind ?? "internal"], attributes, links }, parent);
    let running: Promise<T>;
    try {
      running = context.with(trace.setSpan(parent, span), work);
    } catch (error) {
      failSpan(span, error);
      span.end();
      throw error;
    }
    return running.then(
      (value) => {
        span.end();
        return value;
      },
      (error: unknown) => {
        failSpan(span, error);
        span.end();
        throw error;
      },
    );
  }

  failed(cause: unknown, incident: string | undefined): void {
    const span = trace.getActiveSpan();
    if (span === undefined || !span.isRecording()) return;
    failSpan(span, cause);
    if (incident !== undefined) span.setAttribute("fw.incident", incident);
  }
}



/** A span failed: an exception event with the cause's name and message (cut, escaped: error-log.ts), no stack; status ERROR. */
export function failSpan(span: Span, cause: unknown): void {
  const said = summary(cause);
  const colon = said.indexOf(": ");
  span.recordException({ name: colon === -1 ? "Error" : said.slice(0, colon), message: colon === -1 ? said : said.slice(colon + 2) });
  span.setStatus({ code: SpanStatusCode.ERROR, message: said });
}

/** A link to the span a W3C `traceparent` names; undefined for a value that is not one. */
function linkOf(traceparent: string): Link | undefined {
  const extracted = TRACE_CONTEXT.extract(ROOT_CONTEXT, { traceparent }, { get: (carrier, key) => carrier[key as "traceparent"], keys: () => ["traceparent"] });
  const spanContext = trace.getSpanContext(extracted);
  return spanContext === undefined ? undefined : { context: spanContext, attributes: { "fw.link": "enqueued by" } };
}
