import { AggregatorRegistry, Gauge, Registry } from "prom-client";
import { FastHistogram, type HistogramSeries } from "./histogram.js";
import { collectNodeMetrics } from "./node-metrics.js";
import type { AccessEntry } from "../log/logger.js";
import { gaugeSources, openCounts } from "../observe/gauges.js";
import { statementKind, watchStatements } from "../observe/statements.js";

/** Seconds: from a millisecond to ten seconds, where a page's time lives. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Methods a label may name, by their place in a series' key; anything else is "other" (a label's values must stay few). */
const METHODS: ReadonlyMap<string, number> = new Map(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"].map((method, i) => [method, i]));
const OTHER_METHOD = METHODS.size;
/** The route label of a request no route answered (a 404, a refusal before matching): never its path. */
export const NO_ROUTE = "(none)";

/** This process's metrics: what the app's requests, statements and modules record. */
export interface ProcessMetrics {
  readonly registry: Registry;
  /** Records one answered request (the access entry, whether or not the access log is written). */
  observe(entry: AccessEntry): void;
  /** The metrics as Prometheus text (this process's). */
  text(): Promise<string>;
  /** This process's metrics as prom-client's JSON, for a `--workers` primary to add up. */
  json(): Promise<unknown>;
  close(): void;
}

/**
 * Makes this process's registry (prom-client, loaded only here: an app without metrics never
 * loads it): Node's own metrics (event-loop delay, memory, CPU, handles; GC durations when `gc`), requests by method,
 * route pattern and status (a histogram: its `_count` is the requests), SQL statements by engine
 * and kind, and the gauges fw's modules registered (the pool, jobs, sockets, views).
 */
export function processMetrics(options: { readonly gc?: boolean } = {}): ProcessMetrics {
  const registry = new Registry();
  const stopGc = collectNodeMetrics(registry, options.gc === true);
  const requests = new FastHistogram(
    registry,
    "fw_http_request_duration_seconds",
    "Requests answered, by method, route pattern and status: seconds from the request's arrival to its answer written (_count: how many).",
    BUCKETS,
  );
  const statements = new FastHistogram(
    registry,
    "fw_db_statement_duration_seconds",
    "SQL statements fw/db sent, by engine and kind (select, insert, …): seconds until the database answered.",
    BUCKETS,
  );
  counted(registry, "fw_live_sockets", "fw/live sockets open in this process.", () => openCounts.liveSockets);
  counted(registry, "fw_live_views", "fw/live shared views (one per page and state shown, however many sockets show it).", () => openCounts.liveViews);
  counted(registry, "fw_websockets", "WebSocket connections open in this process (live ones included).", () => openCounts.webSockets);
  const sourced = new Set<string>();
  const addSources = (): void => {
    for (const source of gaugeSources()) {
      if (sourced.has(source.name)) continue;
      sourced.add(source.name);
      new Gauge({
        name: source.name,
        help: source.help,
        labelNames: [...source.labelNames],
        aggregator: source.aggregate,
        registers: [registry],
        async collect() {
          const values = await source.collect();
          this.reset();
          for (const value of values) this.set(value.labels, value.value);
        },
      });
    }
  };
  const unwatch = watchStatements({
    started: (sql, engine) => {
      const start = performance.now();
      return (error) => {
        const statement = statementKind(sql);
        const outcome = error === undefined ? "ok" : "error";
        statements.observe(
          statements.series(`${engine} ${statement} ${outcome}`, () => ({ engine, statement, outcome })),
          (performance.now() - start) / 1000,
        );
      };
    },
  });
  const requestSeries = seriesByRequest(requests);
  return {
    registry,
    observe: (entry) => requests.observe(requestSeries(entry), entry.ms / 1000),
    text: () => {
      addSources();
      return registry.metrics();
    },
    json: () => {
      addSources();
      return registry.getMetricsAsJSON();
    },
    close: () => {
      unwatch();
      stopGc();
    },
  };
}

/**
 * The request histogram's series of an entry, found without making a string: by its route
 * pattern (the route table's own string), then by a number of its status and method. A key string
 * built per request (method, status and route joined, then hashed by the Map) cost about 2,000
 * instructions a request (FINDINGS.md 32).
 */
function seriesByRequest(requests: FastHistogram): (entry: AccessEntry) => HistogramSeries {
  const byRoute = new Map<string, Map<number, HistogramSeries>>();
  return (entry) => {
    const route = entry.route ?? NO_ROUTE;
    let ofRoute = byRoute.get(route);
    if (ofRoute === undefined) byRoute.set(route, (ofRoute = new Map()));
    const methodIndex = METHODS.get(entry.method) ?? OTHER_METHOD;
    const key = entry.status * (OTHER_METHOD + 1) + methodIndex;
    let series = ofRoute.get(key);
    if (series === undefined) {
      const method = methodIndex === OTHER_METHOD ? "other" : entry.method;
      const status = String(entry.status);
      ofRoute.set(key, (series = requests.series(`${method} ${status} ${route}`, () => ({ method, route, status }))));
    }
    return series;
  };
}

function counted(registry: Registry, name: string, help: string, read: () => number): void {
  new Gauge({
    name,
    help,
    aggregator: "sum",
    registers: [registry],
    collect() {
      this.set(read());
    },
  });
}

/** `--workers` processes' metrics as one text: prom-client adds them up, each metric by its aggregator. */
export function aggregated(perWorker: readonly unknown[]): Promise<string> {
  return AggregatorRegistry.aggregate(perWorker as Parameters<typeof AggregatorRegistry.aggregate>[0]).metrics();
}

/** The content type of the text (Prometheus' 0.0.4 text format). */
export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;
