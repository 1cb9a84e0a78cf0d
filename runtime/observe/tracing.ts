import type { IncomingMessage } from "node:http";
import type { AccessEntry } from "../log/logger.js";

/**
 * What fw's modules ask of tracing (runtime/trace, OpenTelemetry, loaded only when the OTEL_*
 * variables configure it). The HTTP core, fw/jobs, fw/mail and fw/live call these hooks; with no
 * tracer installed each call is one check, and none of them loads OpenTelemetry.
 */
export interface Tracer {
  /**
   * A request arrived: its server span starts (a child of the `traceparent` it carries, if any);
   * undefined when the sampler leaves it out, and the request is then served as if untraced.
   */
  startRequest(incoming: IncomingMessage, id: string): RequestSpan | undefined;
  /** The active span's W3C `traceparent`, for work done later (a job) to link back to; undefined when none is recorded. */
  traceparent(): string | undefined;
  /** Runs `work` in a span of its own, ended when its promise settles (an error marks the span failed). */
  inSpan<T>(name: string, options: SpanOptions, work: () => Promise<T>): Promise<T>;
  /** A failure (a 500's cause) on the active span, as an exception event: its name and message, no stack. */
  failed(cause: unknown, incident: string | undefined): void;
}

export interface RequestSpan {
  /** Runs dispatch with the request's span active, so what it does (SQL, mail, fetch) are its children. */
  run<T>(work: () => T): T;
  /** The answer is written: the span gets its route (and its name from it), status, and ends. */
  end(entry: AccessEntry): void;
}

export interface SpanOptions {
  readonly kind?: "internal" | "client" | "consumer" | "producer";
  readonly attributes?: Readonly<Record<string, string | number | boolean | undefined>>;
  /** A W3C `traceparent` the span links to (a job's enqueuing request). */
  readonly link?: string | undefined;
  /** Start a trace of its own even inside another span (a job run is not part of the poll that found it). */
  readonly root?: boolean;
}

let installed: Tracer | undefined;

/** @internal Installs the process's tracer (runtime/trace does, at boot). */
export function setTracer(tracer: Tracer | undefined): void {
  installed = tracer;
}

/** The process's tracer, or undefined when tracing is not configured. */
export function tracer(): Tracer | undefined {
  return installed;
}

/** `work` in a span when tracing is on; just `work` otherwise. */
export function traced<T>(name: string, options: SpanOptions, work: () => Promise<T>): Promise<T> {
  const now = installed;
  return now === undefined ? work() : now.inSpan(name, options, work);
}
