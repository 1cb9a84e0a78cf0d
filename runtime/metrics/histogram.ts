import type { Registry } from "prom-client";

/** One label set's observations: a count per bucket (not cumulative), their sum and count. */
export interface HistogramSeries {
  readonly labels: Readonly<Record<string, string>>;
  readonly buckets: Float64Array;
  sum: number;
  count: number;
}

/**
 * A Prometheus histogram that costs a request a Map lookup and a few additions: prom-client's own
 * `Histogram.observe` validates and hashes the labels on every call (its `labels()` child too),
 * about a microsecond, which the session page's budget (≤ 3 % for metrics) cannot spare. The
 * series are registered in prom-client's registry as a metric of their own (its `get()` answers
 * prom-client's shape), so prom-client still writes the text and adds `--workers` up.
 */
export class FastHistogram {
  readonly #series = new Map<string, HistogramSeries>();
  readonly #bounds: readonly number[];

  constructor(
    registry: Registry,
    readonly name: string,
    readonly help: string,
    bounds: readonly number[],
  ) {
    this.#bounds = bounds;
    registry.registerMetric({
      name,
      help,
      type: "histogram",
      aggregator: "sum",
      get: async () => this.#get(),
    } as unknown as Parameters<Registry["registerMetric"]>[0]); // prom-client's Metric type names its classes only; it reads name, type and get()
  }

  /**
   * The series of `key` (the caller's own string for a label set, so it need not build one per
   * observation): made with `labels` on first use.
   */
  series(key: string, labels: () => Readonly<Record<string, string>>): HistogramSeries {
    let found = this.#series.get(key);
    if (found === undefined) this.#series.set(key, (found = { labels: labels(), buckets: new Float64Array(this.#bounds.length), sum: 0, count: 0 }));
    return found;
  }

  observe(series: HistogramSeries, value: number): void {
    const bounds = this.#bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= (bounds[i] as number)) {
        series.buckets[i] = (series.buckets[i] as number) + 1;
        break;
      }
    }
    series.sum += value;
    series.count += 1;
  }

  #get() {
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
    for (const series of this.#series.values()) {
      let cumulative = 0;
      this.#bounds.forEach((bound, i) => {
        cumulative += series.buckets[i] as number;
        values.push({ labels: { ...series.labels, le: bound }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { ...series.labels, le: "+Inf" }, value: series.count, metricName: `${this.name}_bucket` });
      values.push({ labels: { ...series.labels }, value: series.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { ...series.labels }, value: series.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: "histogram", values, aggregator: "sum" };
  }
}
