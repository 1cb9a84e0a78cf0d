import { request as httpRequest, Agent as HttpAgent, type IncomingMessage } from "node:http";
import { request as httpsRequest, Agent as HttpsAgent } from "node:https";
import { gzipSync } from "node:zlib";
import type { OtlpSettings } from "./otlp-settings.js";

/** What one export came to: delivered, or not and why (a receiver down, refusing, too slow). */
export type Sent = { readonly ok: true } | { readonly ok: false; readonly reason: string };

type Attempt = { readonly ok: true } | { readonly ok: false; readonly reason: string; readonly retry: boolean; readonly afterMs?: number };

/** OTLP/HTTP's retry policy, as the SDK's exporter applies it: 5 more tries, 1 s backing off by 1.5× to 5 s, ±20 %. */
const RETRIES = 5;
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 5000;
const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);
const RETRYABLE_ERRORS = new Set(["ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT", "EAI_AGAIN", "ENOTFOUND", "ENETUNREACH", "EHOSTUNREACH"]);

/**
 * POSTs ExportTraceServiceRequest bodies to the OTLP/HTTP endpoint over one keep-alive agent:
 * the settings' headers, gzip when asked, a retry on 429/502/503/504 (after its Retry-After) and
 * on a network error, all within the timeout.
 */
export class OtlpSender {
  readonly #agent: HttpAgent;
  readonly #request: typeof httpRequest;

  constructor(private readonly settings: OtlpSettings) {
    const https = settings.url.protocol === "https:";
    this.#agent = https ? new HttpsAgent({ keepAlive: true, ...settings.tls }) : new HttpAgent({ keepAlive: true });
    this.#request = https ? httpsRequest : httpRequest;
  }

  async send(body: Uint8Array, timeoutMs: number): Promise<Sent> {
    const deadline = Date.now() + timeoutMs;
    const payload = this.settings.gzip ? gzipSync(body) : body;
    let backoff = FIRST_BACKOFF_MS;
    let result = await this.#post(payload, timeoutMs);
    for (let left = RETRIES; !result.ok && result.retry && left > 0; left--) {
      const wait = result.afterMs ?? Math.min(backoff * (1 + (Math.random() * 0.4 - 0.2)), MAX_BACKOFF_MS);
      backoff *= 1.5;
      const remaining = deadline - Date.now();
      if (wait > remaining) break;
      await new Promise((done) => setTimeout(done, wait).unref());
      result = await this.#post(payload, deadline - Date.now());
    }
    return result.ok ? result : { ok: false, reason: result.reason };
  }

  close(): void {
    this.#agent.destroy();
  }

  #post(payload: Uint8Array, timeoutMs: number): Promise<Attempt> {
    const headers: Record<string, string | number> = { ...this.settings.headers, "content-type": "application/x-protobuf", "content-length": payload.length };
    if (this.settings.gzip) headers["content-encoding"] = "gzip";
    return new Promise((settle) => {
      const request = this.#request(this.settings.url, { method: "POST", headers, agent: this.#agent }, (response) => answered(response, settle));
      request.setTimeout(Math.max(1, timeoutMs), () => {
        request.destroy();
        settle({ ok: false, reason: `no answer within ${Math.round(timeoutMs)} ms`, retry: true });
      });
      request.on("error", (error: NodeJS.ErrnoException) => settle({ ok: false, reason: error.message, retry: RETRYABLE_ERRORS.has(error.code ?? "") }));
      request.end(payload);
    });
  }
}

/** A receiver's answer: 2xx delivered; the rest failed, retried when OTLP says it may be. */
function answered(response: IncomingMessage, settle: (attempt: Attempt) => void): void {
  const status = response.statusCode ?? 0;
  // The body (a partial success or an error status) is not read: drained, within a bound.
  let size = 0;
  response.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size > 4 << 20) response.destroy();
  });
  response.on("error", () => undefined);
  response.on("close", () => {
    if (status >= 200 && status <= 299) settle({ ok: true });
    else settle({ ok: false, reason: `HTTP ${status}`, retry: RETRYABLE_STATUS.has(status), afterMs: retryAfter(response.headers["retry-after"]) });
  });
}

/** Retry-After as milliseconds (seconds or an HTTP date); undefined when absent or unreadable. */
function retryAfter(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}
