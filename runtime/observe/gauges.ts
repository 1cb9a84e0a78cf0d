/**
 * What fw's modules can tell a metrics scrape (open connections, live sockets, jobs in the
 * queue): each registers a source here when it starts, and fw/metrics, loaded only when
 * configured, reads them at each scrape. Like statements.ts, it belongs to no optional module.
 */
export interface GaugeSource {
  /** The metric's name (`fw_jobs`). */
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  /**
   * How `--workers` processes' values add up: `sum` for what each process holds (its sockets,
   * its pool), `max` for what every process reads from one place (the jobs in the database).
   */
  readonly aggregate: "sum" | "max";
  /** The values now, one per label set. */
  collect(): Promise<readonly GaugeValue[]> | readonly GaugeValue[];
}

export interface GaugeValue {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const sources = new Map<string, GaugeSource>();

/** Adds (or replaces, by name) a source. */
export function addGaugeSource(source: GaugeSource): void {
  sources.set(source.name, source);
}

/** The sources registered so far. */
export function gaugeSources(): readonly GaugeSource[] {
  return [...sources.values()];
}

/**
 * Counters of what is open in this process, kept by the modules that open and close it: cheap
 * enough (one addition) to keep whether or not anything reads them.
 */
export const openCounts = {
  /** fw/live sockets whose page is mounted. */
  liveSockets: 0,
  /** fw/live views (one per page and state shown; sockets showing the same share one). */
  liveViews: 0,
  /** WebSocket connections of every route (live ones included). */
  webSockets: 0,
};
