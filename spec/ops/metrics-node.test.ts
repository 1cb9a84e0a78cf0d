import { PerformanceObserver } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { collectDefaultMetrics, Registry } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";
import { processMetrics, type ProcessMetrics } from "../../runtime/metrics/process-metrics.js";

// Issue 44 item 3: Node's own metrics (event-loop delay, memory, GC, CPU, handles). fw takes
// prom-client's default set but records the GC durations itself (FINDINGS.md 32): every
// collection, also when several fall in one turn of the event loop, which prom-client's own
// collector counted once.

let metrics: ProcessMetrics | undefined;
afterEach(() => metrics?.close());

type Sample = { labels: Record<string, string | number>; value: number; metricName?: string };

async function gcCounts(of: Registry): Promise<Map<string, number>> {
  const family = (await of.getMetricsAsJSON()).find((m) => m.name === "nodejs_gc_duration_seconds");
  const counts = new Map<string, number>();
  for (const sample of (family?.values ?? []) as Sample[]) {
    if (sample.metricName === "nodejs_gc_duration_seconds_count") counts.set(String(sample.labels["kind"]), sample.value);
  }
  return counts;
}

const turn = (): Promise<void> => new Promise((done) => setTimeout(done, 20));

describe("issue 44 item 3: Node's own metrics", () => {
  it("has every metric of prom-client's default set, under the same names and types (the GC durations with `gc`)", async () => {
    const theirs = new Registry();
    collectDefaultMetrics({ register: theirs });
    metrics = processMetrics({ gc: true });
    const ours = new Map((await metrics.registry.getMetricsAsJSON()).map((m) => [m.name, m.type]));
    for (const metric of await theirs.getMetricsAsJSON()) expect([metric.name, ours.get(metric.name)]).toEqual([metric.name, metric.type]);
    theirs.clear();
  });

  it("counts every collection, several in one turn of the event loop included, as Node reports them", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    metrics = processMetrics({ gc: true });
    await turn();
    const reported = new Map<number, number>();
    const watcher = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        const kind = (entry as { detail?: { kind?: number } }).detail?.kind ?? 0;
        reported.set(kind, (reported.get(kind) ?? 0) + 1);
      }
    });
    watcher.observe({ entryTypes: ["gc"] });
    const before = await gcCounts(metrics.registry);
    gc();
    gc();
    gc();
    await turn();
    await turn();
    watcher.disconnect();
    const after = await gcCounts(metrics.registry);
    const majors = (after.get("major") ?? 0) - (before.get("major") ?? 0);
    expect(majors).toBeGreaterThanOrEqual(3);
    // 4 is Node's kind for a major collection (perf_hooks.constants.NODE_PERFORMANCE_GC_MAJOR).
    expect(majors).toBe(reported.get(4));
  });

  it("leaves the GC durations out unless asked (FW_METRICS_GC=on): observing collections costs every collection", async () => {
    metrics = processMetrics();
    const names = (await metrics.registry.getMetricsAsJSON()).map((m) => m.name);
    expect(names).toContain("nodejs_eventloop_lag_p99_seconds");
    expect(names).not.toContain("nodejs_gc_duration_seconds");
  });

  it("still answers event-loop delay and memory, and its GC histogram in prom-client's buckets", async () => {
    metrics = processMetrics({ gc: true });
    await new Promise((done) => setTimeout(done, 50));
    const text = await metrics.text();
    expect(text).toMatch(/^nodejs_eventloop_lag_p99_seconds \d/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d{7,}/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
    expect(text).toContain("# TYPE nodejs_gc_duration_seconds histogram");
  });
});
