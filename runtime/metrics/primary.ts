import type { Worker } from "node:cluster";
import { isMessage, WORKER_ANSWER_MS, type AskJson, type AskText, type JsonAnswer, type TextAnswer } from "./cluster-ipc.js";
import { listenForMetrics, type MetricsListener } from "./endpoint.js";
import { aggregated, METRICS_CONTENT_TYPE } from "./process-metrics.js";
import type { MetricsSettings } from "../observe/metrics-settings.js";

export interface PrimaryMetrics {
  /** Hands a worker's message to the metrics (its answer, or its ask for the sum). */
  message(worker: Worker, message: unknown): void;
  readonly listener: MetricsListener | undefined;
  close(): Promise<void>;
}

/**
 * The `--workers` primary's part: it adds up the serving workers' metrics (each asked over its
 * channel, prom-client's aggregators by metric: sums for counts and histograms, `max` for what
 * every worker reads from the database), answers workers that are asked for `/fw/metrics`, and
 * serves `FW_METRICS_PORT` itself. A worker that does not answer within 2 s (starting, or stuck)
 * is left out of that sum.
 */
export async function primaryMetrics(settings: MetricsSettings, serving: () => readonly Worker[]): Promise<PrimaryMetrics> {
  let next = 0;
  const waiting = new Map<number, (metrics: unknown) => void>();
  const ask = (worker: Worker): Promise<unknown> =>
    new Promise((resolve) => {
      const id = ++next;
      const timer = setTimeout(() => {
        waiting.delete(id);
        resolve(undefined);
      }, WORKER_ANSWER_MS);
      waiting.set(id, (metrics) => {
        clearTimeout(timer);
        waiting.delete(id);
        resolve(metrics);
      });
      if (!worker.isConnected()) return;
      worker.send({ fw: "metrics-json?", id } satisfies AskJson, undefined, () => undefined);
    });
  const text = async (): Promise<string> => {
    const answers = await Promise.all(serving().map(ask));
    return aggregated(answers.filter((answer) => answer !== undefined));
  };
  const listener = settings.port === undefined ? undefined : await listenForMetrics(settings.port, settings.host, settings.token, text, METRICS_CONTENT_TYPE);
  return {
    message: (worker, message) => {
      if (isMessage<JsonAnswer>(message, "metrics-json")) waiting.get(message.id)?.(message.metrics);
      else if (isMessage<AskText>(message, "metrics?")) {
        text().then(
          (body) => worker.isConnected() && worker.send({ fw: "metrics", id: message.id, text: body } satisfies TextAnswer, undefined, () => undefined),
          (error: unknown) => worker.isConnected() && worker.send({ fw: "metrics", id: message.id, error: String(error) } satisfies TextAnswer, undefined, () => undefined),
        );
      }
    },
    listener,
    close: async () => {
      await listener?.close();
    },
  };
}
