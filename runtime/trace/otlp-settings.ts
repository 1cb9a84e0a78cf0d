import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { diag } from "@opentelemetry/api";
import { getNumberFromEnv, getStringFromEnv, parseKeyPairsIntoRecord } from "@opentelemetry/core";

/** Where and how spans are sent, and how they are batched: the standard variables, read as OpenTelemetry's SDK reads them. */
export interface OtlpSettings {
  /** OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces`, else http://localhost:4318/v1/traces. */
  readonly url: URL;
  /** OTEL_EXPORTER_OTLP_HEADERS, with OTEL_EXPORTER_OTLP_TRACES_HEADERS over it. */
  readonly headers: Readonly<Record<string, string>>;
  /** OTEL_EXPORTER_OTLP_(TRACES_)TIMEOUT: one export, its retries included (default 10 s). */
  readonly timeoutMs: number;
  /** OTEL_EXPORTER_OTLP_(TRACES_)COMPRESSION. */
  readonly gzip: boolean;
  /** OTEL_EXPORTER_OTLP_(TRACES_)CERTIFICATE, _CLIENT_CERTIFICATE, _CLIENT_KEY (an https endpoint's TLS). */
  readonly tls: { readonly ca?: Buffer; readonly cert?: Buffer; readonly key?: Buffer };
  /** OTEL_BSP_SCHEDULE_DELAY (default 5,000 ms). */
  readonly delayMs: number;
  /** OTEL_BSP_MAX_QUEUE_SIZE (default 2,048 spans). */
  readonly maxQueue: number;
  /** OTEL_BSP_MAX_EXPORT_BATCH_SIZE (default 512; at most the queue's size). */
  readonly maxBatch: number;
  /** OTEL_BSP_EXPORT_TIMEOUT (default 30,000 ms). */
  readonly exportTimeoutMs: number;
}

export function otlpSettingsFromEnv(): OtlpSettings {
  const maxQueue = positive("OTEL_BSP_MAX_QUEUE_SIZE", 2048);
  let maxBatch = positive("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 512);
  if (maxBatch > maxQueue) {
    diag.warn(`OTEL_BSP_MAX_EXPORT_BATCH_SIZE (${maxBatch}) is larger than OTEL_BSP_MAX_QUEUE_SIZE (${maxQueue}): batches of ${maxQueue} spans`);
    maxBatch = maxQueue;
  }
  return {
    url: urlFromEnv(),
    headers: { ...parseKeyPairsIntoRecord(getStringFromEnv("OTEL_EXPORTER_OTLP_HEADERS")), ...parseKeyPairsIntoRecord(getStringFromEnv("OTEL_EXPORTER_OTLP_TRACES_HEADERS")) },
    timeoutMs: timeout("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT") ?? timeout("OTEL_EXPORTER_OTLP_TIMEOUT") ?? 10_000,
    gzip: (compression("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION") ?? compression("OTEL_EXPORTER_OTLP_COMPRESSION")) === "gzip",
    tls: {
      ca: fileFromEnv("CERTIFICATE", "root certificate"),
      cert: fileFromEnv("CLIENT_CERTIFICATE", "client certificate chain"),
      key: fileFromEnv("CLIENT_KEY", "client certificate private key"),
    },
    delayMs: positive("OTEL_BSP_SCHEDULE_DELAY", 5000, true),
    maxQueue,
    maxBatch,
    exportTimeoutMs: positive("OTEL_BSP_EXPORT_TIMEOUT", 30_000),
  };
}

function urlFromEnv(): URL {
  const specific = getStringFromEnv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  if (specific !== undefined) {
    const url = parsed(specific);
    if (url !== undefined) return url;
  }
  const general = getStringFromEnv("OTEL_EXPORTER_OTLP_ENDPOINT");
  if (general !== undefined) {
    const url = parsed(`${general.endsWith("/") ? general : `${general}/`}v1/traces`);
    if (url !== undefined) return url;
  }
  return new URL("http://localhost:4318/v1/traces");
}

function parsed(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    diag.warn(`Configuration: Could not parse environment-provided export URL: '${text}', falling back to the default`);
    return undefined;
  }
}

function positive(name: string, fallback: number, zeroAllowed = false): number {
  const value = getNumberFromEnv(name);
  if (value === undefined) return fallback;
  if (Number.isFinite(value) && (value > 0 || (zeroAllowed && value === 0))) return value;
  diag.warn(`Configuration: ${name} is invalid, expected a number greater than 0 (actual: ${value}); using ${fallback}`);
  return fallback;
}

function timeout(name: string): number | undefined {
  const value = getNumberFromEnv(name);
  if (value === undefined) return undefined;
  if (Number.isFinite(value) && value > 0) return value;
  diag.warn(`Configuration: ${name} is invalid, expected number greater than 0 (actual: ${value})`);
  return undefined;
}

function compression(name: string): string | undefined {
  const value = getStringFromEnv(name)?.trim();
  if (value === undefined || value === "none" || value === "gzip") return value;
  diag.warn(`Configuration: ${name} is invalid, expected 'none' or 'gzip' (actual: '${value}')`);
  return undefined;
}

function fileFromEnv(suffix: string, what: string): Buffer | undefined {
  const path = getStringFromEnv(`OTEL_EXPORTER_OTLP_TRACES_${suffix}`) ?? getStringFromEnv(`OTEL_EXPORTER_OTLP_${suffix}`);
  if (path === undefined) return undefined;
  try {
    return readFileSync(resolve(process.cwd(), path));
  } catch {
    diag.warn(`Failed to read ${what} file ${path}`);
    return undefined;
  }
}
