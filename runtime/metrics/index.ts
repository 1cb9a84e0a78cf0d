import type { AccessEntry } from "../log/logger.js";
import type { HttpRoute } from "../routing/route.js";
import { isMessage, type AskJson, type AskText, type JsonAnswer, type TextAnswer } from "./cluster-ipc.js";
import { listenForMetrics, metricsRoute, type MetricsListener } from "./endpoint.js";
import { METRICS_CONTENT_TYPE, processMetrics } from "./process-metrics.js";
import type { MetricsSettings } from "../observe/metrics-settings.js";

/** What a serving process does with metrics on: records, and serves them where configured. */
export interface AppMetrics {
  observe(entry: AccessEntry): void;
  /** `/fw/metrics` on the app's port, when a token is set. */
  readonly route: HttpRoute | undefined;
  /** The metrics' own port, when one is set and this process serves it (not a `--workers` worker: its primary does). */
  readonly listener: MetricsListener | undefined;
  close(): Promise<void>;
}

/**
 * Starts metrics in a serving process (fw/metrics, loaded by `HttpApp` only when
 * `FW_METRICS_TOKEN` or `FW_METRICS_PORT` is set). A `--workers` worker answers its primary's
 * requests for its metrics, and asks the primary for the sum when `/fw/metrics` is asked of it.
 */
export async function startMetrics(settings: MetricsSettings, inWorker: boolean): Promise<AppMetrics> {
  const metrics = processMetrics({ gc: settings.gc });
  const text = inWorker ? askPrimary : () => metrics.text();
  let detach = (): void => undefined;
  if (inWorker) {
    const answer = (message: unknown): void => {
      if (!isMessage<AskJson>(message, "metrics-json?")) return;
      void metrics.json().then((json) => process.send?.({ fw: "metrics-json", id: message.id, metrics: json } satisfies JsonAnswer, undefined, {}, () => undefined));
    };
    process.on("message", answer);
    detach = () => void process.off("message", answer);
  }
  const route = settings.token === undefined ? undefined : metricsRoute(settings.token, text, METRICS_CONTENT_TYPE);
  const listener = settings.port === undefined || inWorker ? undefined : await listenForMetrics(settings.port, settings.host, settings.token, text, METRICS_CONTENT_TYPE);
  return {
    observe: (entry) => metrics.observe(entry),
    route,
    listener,
    close: async () => {
      detach();
      metrics.close();
      await listener?.close();
    },
  };
}

let asked = 0;

/** The whole app's metrics, from the primary (which adds up every serving worker's). */
function askPrimary(): Promise<string> {
  const id = ++asked;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      process.off("message", listen);
      reject(new Error("the primary did not answer with the metrics within 5 s"));
    }, 5_000);
    const listen = (message: unknown): void => {
      if (!isMessage<TextAnswer>(message, "metrics") || message.id !== id) return;
      clearTimeout(timer);
      process.off("message", listen);
      if (message.text === undefined) reject(new Error(message.error ?? "the primary could not gather the metrics"));
      else resolve(message.text);
    };
    process.on("message", listen);
    process.send?.({ fw: "metrics?", id } satisfies AskText);
  });
}
