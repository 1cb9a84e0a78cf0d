import diagnostics from "node:diagnostics_channel";
import type { ClientRequest, IncomingMessage } from "node:http";
import { context, propagation, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from "@opentelemetry/api";

/** What undici (fetch) publishes of a request: enough for a span, and a way to add headers. */
interface UndiciRequest {
  readonly origin: string;
  readonly method: string;
  readonly path: string;
  addHeader(name: string, value: string): unknown;
}

/**
 * Spans of outgoing HTTP, from the diagnostics channels Node's fetch (undici) and node:http
 * publish: no module is patched. A span is made only under a recorded one (a request's, a job's),
 * never for a bare background call; the trace goes along as `traceparent` unless propagation is
 * off. Its attributes: method, the URL without its query, status; a 5xx or a failure is an error.
 */
export function traceOutgoing(tracer: Tracer, propagate: boolean): () => void {
  const spans = new WeakMap<object, Span>();
  const start = (method: string, url: string): Span | undefined => {
    const parent = trace.getActiveSpan();
    if (parent === undefined || !parent.isRecording()) return undefined;
    return tracer.startSpan(method, { kind: SpanKind.CLIENT, attributes: { "http.request.method": method, "url.full": url } });
  };
  const inject = (span: Span, set: (name: string, value: string) => void): void => {
    if (!propagate) return;
    const carrier: Record<string, string> = {};
    propagation.inject(trace.setSpan(context.active(), span), carrier);
    for (const [name, value] of Object.entries(carrier)) set(name, value);
  };
  const finish = (key: object, status: number | undefined, error?: unknown): void => {
    const span = spans.get(key);
    if (span === undefined) return;
    spans.delete(key);
    if (status !== undefined) span.setAttribute("http.response.status_code", status);
    if (error !== undefined || (status !== undefined && status >= 500)) {
      span.setStatus({ code: SpanStatusCode.ERROR, ...(error instanceof Error ? { message: `${error.name}: ${error.message}`.slice(0, 200) } : {}) });
    }
    span.end();
  };

  const undiciCreate = (message: unknown): void => {
    const { request } = message as { request: UndiciRequest };
    const span = start(request.method, `${request.origin}${request.path.split("?")[0]}`);
    if (span === undefined) return;
    spans.set(request, span);
    inject(span, (name, value) => request.addHeader(name, value));
  };
  const undiciHeaders = (message: unknown): void => {
    const { request, response } = message as { request: object; response: { statusCode: number } };
    spans.get(request)?.setAttribute("http.response.status_code", response.statusCode);
    if (response.statusCode >= 500) spans.get(request)?.setStatus({ code: SpanStatusCode.ERROR });
  };
  const undiciDone = (message: unknown): void => finish((message as { request: object }).request, undefined);
  const undiciError = (message: unknown): void => {
    const { request, error } = message as { request: object; error: unknown };
    finish(request, undefined, error);
  };

  const httpStart = (message: unknown): void => {
    const { request } = message as { request: ClientRequest };
    const span = start(request.method, `${request.protocol}//${request.host}${request.path.split("?")[0]}`);
    if (span === undefined) return;
    spans.set(request, span);
    inject(span, (name, value) => {
      if (!request.headersSent) request.setHeader(name, value);
    });
    request.once("error", (error) => finish(request, undefined, error));
  };
  const httpFinish = (message: unknown): void => {
    const { request, response } = message as { request: ClientRequest; response: IncomingMessage };
    finish(request, response.statusCode);
  };

  const subscriptions: [string, (message: unknown) => void][] = [
    ["undici:request:create", undiciCreate],
    ["undici:request:headers", undiciHeaders],
    ["undici:request:trailers", undiciDone],
    ["undici:request:error", undiciError],
    ["http.client.request.start", httpStart],
    ["http.client.response.finish", httpFinish],
  ];
  for (const [name, listener] of subscriptions) diagnostics.subscribe(name, listener);
  return () => {
    for (const [name, listener] of subscriptions) diagnostics.unsubscribe(name, listener);
  };
}
