import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import protobuf from "protobufjs";

/**
 * An OTLP/HTTP trace receiver for the tests: it takes `POST /v1/traces` as protobuf (OTLP's
 * default encoding, what fw's exporter sends) and decodes each request for real, with protobufjs
 * and the messages of opentelemetry-proto's trace, common and resource `.proto` files (field
 * numbers as published; the fields a test reads).
 */
const PROTO = `
syntax = "proto3";
package otlp;
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  string trace_state = 3;
  bytes parent_span_id = 4;
  fixed32 flags = 16;
  string name = 5;
  enum SpanKind { SPAN_KIND_UNSPECIFIED = 0; SPAN_KIND_INTERNAL = 1; SPAN_KIND_SERVER = 2; SPAN_KIND_CLIENT = 3; SPAN_KIND_PRODUCER = 4; SPAN_KIND_CONSUMER = 5; }
  SpanKind kind = 6;
  fixed64 start_time_unix_nano = 7;
  fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9;
  uint32 dropped_attributes_count = 10;
  message Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
  repeated Event events = 11;
  uint32 dropped_events_count = 12;
  message Link { bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; repeated KeyValue attributes = 4; uint32 dropped_attributes_count = 5; fixed32 flags = 6; }
  repeated Link links = 13;
  uint32 dropped_links_count = 14;
  Status status = 15;
}
message Status { string message = 2; enum StatusCode { STATUS_CODE_UNSET = 0; STATUS_CODE_OK = 1; STATUS_CODE_ERROR = 2; } StatusCode code = 3; }
message AnyValue { oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7; } }
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
`;

const Request = protobuf.parse(PROTO, { keepCase: true }).root.lookupType("otlp.ExportTraceServiceRequest");

export type Attributes = Readonly<Record<string, string | number | boolean>>;

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** "" for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: "unspecified" | "internal" | "server" | "client" | "producer" | "consumer";
  readonly attributes: Attributes;
  readonly status: { readonly code: "unset" | "ok" | "error"; readonly message: string };
  readonly events: readonly { readonly name: string; readonly attributes: Attributes }[];
  readonly links: readonly { readonly traceId: string; readonly spanId: string }[];
  readonly resource: Attributes;
  readonly scope: string;
}

export interface OtlpReceiver {
  readonly url: string;
  readonly port: number;
  readonly spans: ReceivedSpan[];
  /** How many export requests arrived, and what they were sent as. */
  readonly requests: { readonly contentType: string }[];
  close(): Promise<void>;
}

const KINDS = ["unspecified", "internal", "server", "client", "producer", "consumer"] as const;
const CODES = ["unset", "ok", "error"] as const;

type Decoded = {
  resource_spans?: {
    resource?: { attributes?: KeyValue[] };
    scope_spans?: { scope?: { name?: string }; spans?: DecodedSpan[] }[];
  }[];
};
type KeyValue = { key: string; value?: Record<string, unknown> };
type DecodedSpan = {
  trace_id: Uint8Array;
  span_id: Uint8Array;
  parent_span_id?: Uint8Array;
  name: string;
  kind?: number;
  attributes?: KeyValue[];
  status?: { code?: number; message?: string };
  events?: { name: string; attributes?: KeyValue[] }[];
  links?: { trace_id: Uint8Array; span_id: Uint8Array }[];
};

const hex = (bytes: Uint8Array | undefined): string => Buffer.from(bytes ?? []).toString("hex");

function attributesOf(list: readonly KeyValue[] | undefined): Attributes {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of list ?? []) {
    const v = value ?? {};
    if ("string_value" in v) out[key] = v["string_value"] as string;
    else if ("bool_value" in v) out[key] = v["bool_value"] as boolean;
    else if ("int_value" in v) out[key] = Number(v["int_value"]);
    else if ("double_value" in v) out[key] = v["double_value"] as number;
  }
  return out;
}

/** One ExportTraceServiceRequest body as protobufjs decodes it (snake_case fields, 64-bit values as strings, bytes as Uint8Array). */
export function decodeTraceRequest(body: Uint8Array): Record<string, unknown> {
  return Request.toObject(Request.decode(body), { longs: String, defaults: false });
}

/** Decodes one ExportTraceServiceRequest body into its spans. */
export function decodeTraces(body: Uint8Array): ReceivedSpan[] {
  const message = decodeTraceRequest(body) as Decoded;
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of message.resource_spans ?? []) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scope_spans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        spans.push({
          traceId: hex(span.trace_id),
          spanId: hex(span.span_id),
          parentSpanId: hex(span.parent_span_id),
          name: span.name,
          kind: KINDS[span.kind ?? 0] ?? "unspecified",
          attributes: attributesOf(span.attributes),
          status: { code: CODES[span.status?.code ?? 0] ?? "unset", message: span.status?.message ?? "" },
          events: (span.events ?? []).map((event) => ({ name: event.name, attributes: attributesOf(event.attributes) })),
          links: (span.links ?? []).map((link) => ({ traceId: hex(link.trace_id), spanId: hex(link.span_id) })),
          resource,
          scope: scopeSpans.scope?.name ?? "",
        });
      }
    }
  }
  return spans;
}

/** Starts the receiver on a loopback port (`port` to take a given one: the restart of one that was down). */
export function startOtlpReceiver(port = 0): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: { contentType: string }[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.method !== "POST" || request.url !== "/v1/traces") {
        response.writeHead(404).end();
        return;
      }
      requests.push({ contentType: request.headers["content-type"] ?? "" });
      try {
        spans.push(...decodeTraces(Buffer.concat(chunks)));
      } catch {
        response.writeHead(400).end();
        return;
      }
      response.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  return new Promise((resolve) => {
    server.listen(port, "127.0.0.1", () => {
      const bound = (server.address() as AddressInfo).port;
      resolve({
        url: `http://127.0.0.1:${bound}`,
        port: bound,
        spans,
        requests,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
