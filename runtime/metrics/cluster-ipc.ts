/**
 * The messages of `--workers` metrics over node:cluster's channel: the primary asks each serving
 * worker for its metrics as JSON and adds them up (prom-client's aggregators); a worker asked for
 * `/fw/metrics` asks the primary for that sum.
 */
export interface AskJson {
  readonly fw: "metrics-json?";
  readonly id: number;
}
export interface JsonAnswer {
  readonly fw: "metrics-json";
  readonly id: number;
  readonly metrics: unknown;
}
export interface AskText {
  readonly fw: "metrics?";
  readonly id: number;
}
export interface TextAnswer {
  readonly fw: "metrics";
  readonly id: number;
  readonly text?: string;
  readonly error?: string;
}

export function isMessage<T extends { fw: string }>(message: unknown, kind: T["fw"]): message is T {
  return typeof message === "object" && message !== null && (message as { fw?: unknown }).fw === kind;
}

/** How long the primary waits for a worker's metrics: one that has not answered by then is left out of the sum. */
export const WORKER_ANSWER_MS = 2_000;
