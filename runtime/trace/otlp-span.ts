import type { AttributeValue, Attributes, HrTime, Link, SpanContext } from "@opentelemetry/api";
import type { ReadableSpan, TimedEvent } from "@opentelemetry/sdk-trace-node";
import type { ProtoWriter } from "./protobuf.js";

/**
 * OTLP's trace messages as protobuf (opentelemetry/proto/trace/v1/trace.proto and common.proto,
 * field numbers as published), written the moment a span ends so that no span object waits in a
 * queue: what waits is bytes (bench/FINDINGS.md 36). The values are those the SDK's own OTLP
 * transform sends: kinds shifted by one, span flags with the "has is_remote" bit, an integer
 * attribute as int64 and any other number as double.
 */

/** One `Span` as field 2 of ScopeSpans (its tag and length included), appended to `w`. */
export function writeSpan(w: ProtoWriter, span: ReadableSpan): void {
  const at = w.begin(2);
  const context = span.spanContext();
  w.tag(1, 2);
  w.hex(context.traceId);
  w.tag(2, 2);
  w.hex(context.spanId);
  const state = context.traceState?.serialize();
  if (state) {
    w.tag(3, 2);
    w.string(state);
  }
  const parent = span.parentSpanContext;
  if (parent !== undefined) {
    w.tag(4, 2);
    w.hex(parent.spanId);
  }
  w.tag(5, 2);
  w.string(span.name);
  w.tag(6, 0);
  w.uint32(span.kind + 1);
  w.tag(7, 1);
  writeTime(w, span.startTime);
  w.tag(8, 1);
  writeTime(w, span.endTime);
  writeAttributes(w, 9, span.attributes);
  writeCount(w, 10, span.droppedAttributesCount);
  for (const event of span.events) writeEvent(w, event);
  writeCount(w, 12, span.droppedEventsCount);
  for (const link of span.links) writeLink(w, link);
  writeCount(w, 14, span.droppedLinksCount);
  const status = span.status;
  if (status.code !== 0 || status.message) {
    const s = w.begin(15);
    if (status.message) {
      w.tag(2, 2);
      w.string(status.message);
    }
    if (status.code !== 0) {
      w.tag(3, 0);
      w.uint32(status.code);
    }
    w.end(s);
  }
  w.tag(16, 5);
  w.fixed32(flagsOf(context, parent?.isRemote));
  w.end(at);
}

/** OTLP's span flags: W3C trace flags in the low byte, then "has is_remote" and "is_remote". */
function flagsOf(context: SpanContext, remote: boolean | undefined): number {
  return (context.traceFlags & 0xff) | 0x100 | (remote === true ? 0x200 : 0);
}

function writeEvent(w: ProtoWriter, event: TimedEvent): void {
  const at = w.begin(11);
  w.tag(1, 1);
  writeTime(w, event.time);
  w.tag(2, 2);
  w.string(event.name);
  writeAttributes(w, 3, event.attributes);
  writeCount(w, 4, event.droppedAttributesCount);
  w.end(at);
}

function writeLink(w: ProtoWriter, link: Link): void {
  const at = w.begin(13);
  w.tag(1, 2);
  w.hex(link.context.traceId);
  w.tag(2, 2);
  w.hex(link.context.spanId);
  const state = link.context.traceState?.serialize();
  if (state) {
    w.tag(3, 2);
    w.string(state);
  }
  writeAttributes(w, 4, link.attributes);
  writeCount(w, 5, link.droppedAttributesCount);
  w.tag(6, 5);
  w.fixed32(flagsOf(link.context, link.context.isRemote));
  w.end(at);
}

function writeCount(w: ProtoWriter, field: number, count: number | undefined): void {
  if (count === undefined || count === 0) return;
  w.tag(field, 0);
  w.uint32(count);
}

/** Attributes as repeated KeyValue of `field` (an undefined or null value is left out, as the SDK's transform leaves it empty). */
export function writeAttributes(w: ProtoWriter, field: number, attributes: Attributes | undefined): void {
  if (attributes === undefined) return;
  for (const key in attributes) {
    const value = attributes[key];
    if (value === undefined || value === null) continue;
    const at = w.begin(field);
    w.tag(1, 2);
    w.string(key);
    const v = w.begin(2);
    writeAnyValue(w, value);
    w.end(v);
    w.end(at);
  }
}

/** The inside of an AnyValue: one of string, bool, int64, double, or an ArrayValue of them. */
function writeAnyValue(w: ProtoWriter, value: AttributeValue | null | undefined): void {
  switch (typeof value) {
    case "string":
      w.tag(1, 2);
      w.string(value);
      return;
    case "boolean":
      w.tag(2, 0);
      w.uint32(value ? 1 : 0);
      return;
    case "number":
      // An integer beyond 2^53 is not one int64 can be sure of: a double, as it was given.
      if (Number.isSafeInteger(value)) {
        w.tag(3, 0);
        w.int64(value);
      } else {
        w.tag(4, 1);
        w.double(value);
      }
      return;
    default:
      if (!Array.isArray(value)) return; // null or undefined in an array: an empty AnyValue, as the SDK sends it
      {
        const at = w.begin(5);
        for (const item of value as readonly (string | number | boolean | null | undefined)[]) {
          const v = w.begin(1);
          writeAnyValue(w, item);
          w.end(v);
        }
        w.end(at);
      }
  }
}

const NANOS_PER_SECOND = 1e9;

/**
 * An HrTime ([seconds, nanoseconds]) as fixed64 nanoseconds, exact without BigInt: seconds split
 * in 16-bit halves keep every product below 2^53.
 */
export function writeTime(w: ProtoWriter, time: HrTime): void {
  const seconds = time[0];
  const high = Math.floor(seconds / 65536) * NANOS_PER_SECOND; // × 2^16
  const low = (seconds % 65536) * NANOS_PER_SECOND + time[1];
  const below = (high % 65536) * 65536 + low;
  w.fixed64(below % 4294967296, Math.floor(high / 65536) + Math.floor(below / 4294967296));
}
