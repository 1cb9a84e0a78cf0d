import { context, ROOT_CONTEXT, TraceFlags, type Context } from "@opentelemetry/api";
import { suppressTracing } from "@opentelemetry/core";
import type { Resource } from "@opentelemetry/resources";
import type { ReadableSpan, Span, SpanProcessor } from "@opentelemetry/sdk-trace-node";
import { ProtoWriter } from "./protobuf.js";
import { writeAttributes, writeSpan } from "./otlp-span.js";
import type { Sent } from "./otlp-send.js";
import type { OtlpSettings } from "./otlp-settings.js";

type Scope = ReadableSpan["instrumentationScope"];

/** Where a batch's spans go: one ExportTraceServiceRequest body in, what became of it out. */
export type Deliver = (body: Uint8Array, timeoutMs: number) => Promise<Sent>;

/** Spans of one scope in a batch: the ScopeSpans' scope field, then the spans, already encoded. */
interface ScopeBatch {
  readonly scope: Scope;
  readonly spans: ProtoWriter;
}

/** Up to OTEL_BSP_MAX_EXPORT_BATCH_SIZE spans, encoded, by scope (nearly always the one: fw's). */
class Batch {
  count = 0;
  readonly scopes: ScopeBatch[] = [];
  #last: ScopeBatch | undefined;

  constructor(private readonly writer: () => ProtoWriter) {}

  writerFor(scope: Scope): ProtoWriter {
    const last = this.#last;
    if (last !== undefined && last.scope === scope) return last.spans;
    let found = this.scopes.find((s) => s.scope === scope);
    if (found === undefined) {
      found = { scope, spans: this.writer() };
      this.scopes.push(found);
    }
    this.#last = found;
    return found.spans;
  }
}

/**
 * The batch span processor and OTLP exporter in one (bench/FINDINGS.md 36): a sampled span is
 * encoded to OTLP protobuf the moment it ends, so what waits for the export is bytes, never the
 * span, its attributes and events (the SDK's BatchSpanProcessor kept those for up to 5 s, which
 * made V8 grow its young generation). The batching is the SDK's, read from the same OTEL_BSP_*
 * variables: an export when a batch is full or when the delay has passed since the first span
 * waiting, one export at a time, spans past the queue's size dropped; every dropped span (the
 * queue full, a receiver down or refusing) counted.
 */
export class OtlpBatchProcessor implements SpanProcessor {
  /** Spans dropped: the queue full, or their export failed. */
  dropped = 0;
  readonly #batches: Batch[] = [];
  #queued = 0;
  #timer: NodeJS.Timeout | undefined;
  #exporting: Promise<void> | undefined;
  #closed = false;
  #failing = false;
  #full = false;
  #unencodable = false;
  /** The request's frame: ExportTraceServiceRequest's ResourceSpans up to its scope spans. */
  readonly #resource: Buffer;
  readonly #schemaUrl: string | undefined;
  readonly #scopes = new Map<Scope, Buffer>();
  readonly #quiet: Context = suppressTracing(ROOT_CONTEXT);
  /**
   * Buffers of batches sent, kept for the next ones, and the request's: the buffers are memory
   * outside V8's heap, and new ones for every batch added up to V8's external-memory limit, whose
   * full collections then grew the young generation (bench/FINDINGS.md 36).
   */
  readonly #spare: ProtoWriter[] = [];
  readonly #request = new ProtoWriter(64 * 1024);
  readonly #newWriter = (): ProtoWriter => this.#spare.pop() ?? new ProtoWriter(16 * 1024);

  constructor(
    private readonly settings: OtlpSettings,
    resource: Resource,
    private readonly deliver: Deliver,
    private readonly log: (line: string) => void,
  ) {
    this.#resource = resourceField(resource);
    this.#schemaUrl = resource.schemaUrl;
  }

  onStart(_span: Span, _parent: Context): void {}

  onEnd(span: ReadableSpan): void {
    if (this.#closed || (span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return;
    if (this.#queued >= this.settings.maxQueue) {
      this.dropped++;
      if (!this.#full) this.log(`fw/trace: the trace queue is full (OTEL_BSP_MAX_QUEUE_SIZE=${this.settings.maxQueue} spans waiting): spans dropped, counted in fw_trace_spans_dropped`);
      this.#full = true;
      return;
    }
    this.#full = false;
    let batch = this.#batches.at(-1);
    if (batch === undefined || batch.count >= this.settings.maxBatch) {
      batch = new Batch(this.#newWriter);
      this.#batches.push(batch);
    }
    const w = batch.writerFor(span.instrumentationScope);
    const mark = w.pos;
    try {
      writeSpan(w, span);
    } catch (error) {
      // Not one of the span's values fw knows how to write: that span is lost, never the batch.
      w.pos = mark;
      this.dropped++;
      if (!this.#unencodable) this.log(`fw/trace: a span could not be encoded (${error instanceof Error ? error.message : String(error)}): dropped, counted in fw_trace_spans_dropped (said once)`);
      this.#unencodable = true;
      return;
    }
    batch.count++;
    this.#queued++;
    if (this.#exporting === undefined) this.#schedule(batch);
  }

  /** With no export running: an export now when `batch` is full, else one when the delay has passed (one timer at a time). */
  #schedule(batch: Batch): void {
    if (batch.count >= this.settings.maxBatch) this.#exportNext();
    else this.#timer ??= setTimeout(() => this.#exportNext(), this.settings.delayMs).unref();
  }

  /** Exports everything waiting, a batch at a time. */
  async forceFlush(): Promise<void> {
    while (this.#exporting !== undefined || this.#batches.length > 0) {
      if (this.#exporting === undefined) this.#exportNext();
      await this.#exporting;
    }
  }

  /** Takes no more spans, and exports what is waiting (the caller bounds how long it waits). */
  async shutdown(): Promise<void> {
    this.#closed = true;
    await this.forceFlush();
  }

  /** The first batch waiting, sent; then the next one if full, else the timer for the rest. */
  #exportNext(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#batches.shift();
    if (batch === undefined) return;
    this.#queued -= batch.count;
    // Out of the request's context: the export's own HTTP request is not a span of the request.
    this.#exporting = context.with(this.#quiet, () => this.#send(batch)).finally(() => {
      this.#exporting = undefined;
      const next = this.#batches[0];
      if (next !== undefined && !this.#closed) this.#schedule(next);
    });
  }

  async #send(batch: Batch): Promise<void> {
    const timeout = Math.min(this.settings.timeoutMs, this.settings.exportTimeoutMs);
    let sent: Sent;
    try {
      sent = await this.deliver(this.#body(batch), timeout);
    } catch (error) {
      sent = { ok: false, reason: error instanceof Error ? error.message : String(error) };
    }
    // Sent or given up: the buffers are free again (the next export starts after this one).
    for (const { spans } of batch.scopes) {
      spans.reset();
      if (this.#spare.length < 8 && spans.buf.length <= 1 << 20) this.#spare.push(spans);
    }
    if (sent.ok) {
      if (this.#failing) this.log(`fw/trace: spans reach the trace receiver again (${this.dropped} dropped meanwhile, in all)`);
      this.#failing = false;
      return;
    }
    this.dropped += batch.count;
    if (!this.#failing) this.log(`fw/trace: the trace receiver cannot take spans (${sent.reason}): ${batch.count} dropped; the app serves on, and the count goes on in fw_trace_spans_dropped`);
    this.#failing = true;
  }

  /** ExportTraceServiceRequest { resource_spans: [{ resource, scope_spans: [{ scope, spans }, …] }] }. */
  #body(batch: Batch): Uint8Array {
    const w = this.#request;
    w.reset();
    const resourceSpans = w.begin(1);
    w.raw(this.#resource);
    for (const { scope, spans } of batch.scopes) {
      const scopeSpans = w.begin(2);
      w.raw(this.#scopeField(scope));
      w.raw(spans.bytes());
      if (scope.schemaUrl) {
        w.tag(3, 2);
        w.string(scope.schemaUrl);
      }
      w.end(scopeSpans);
    }
    if (this.#schemaUrl) {
      w.tag(3, 2);
      w.string(this.#schemaUrl);
    }
    w.end(resourceSpans);
    return w.bytes();
  }

  /** ScopeSpans' field 1, InstrumentationScope { name, version }, encoded once per scope. */
  #scopeField(scope: Scope): Buffer {
    let field = this.#scopes.get(scope);
    if (field === undefined) {
      const w = new ProtoWriter(256);
      const at = w.begin(1);
      w.tag(1, 2);
      w.string(scope.name);
      if (scope.version) {
        w.tag(2, 2);
        w.string(scope.version);
      }
      w.end(at);
      field = Buffer.from(w.bytes());
      this.#scopes.set(scope, field);
    }
    return field;
  }
}

/** ResourceSpans' field 1, Resource { attributes }, encoded once at boot. */
function resourceField(resource: Resource): Buffer {
  const w = new ProtoWriter(1024);
  const at = w.begin(1);
  writeAttributes(w, 1, resource.attributes);
  w.end(at);
  return Buffer.from(w.bytes());
}
