import { constants, PerformanceObserver } from "node:perf_hooks";
import type { Registry } from "prom-client";
// prom-client's own collectors, one module each (prom-client 15.1.3, pinned; its package has no
// `exports` map, so these paths are public to Node): all of `collectDefaultMetrics` but its GC one.
import eventLoopLag from "prom-client/lib/metrics/eventLoopLag.js";
import heapSizeAndUsed from "prom-client/lib/metrics/heapSizeAndUsed.js";
import heapSpacesSizeAndUsed from "prom-client/lib/metrics/heapSpacesSizeAndUsed.js";
import osMemoryHeap from "prom-client/lib/metrics/osMemoryHeap.js";
import processCpuTotal from "prom-client/lib/metrics/processCpuTotal.js";
import processHandles from "prom-client/lib/metrics/processHandles.js";
import processMaxFileDescriptors from "prom-client/lib/metrics/processMaxFileDescriptors.js";
import processOpenFileDescriptors from "prom-client/lib/metrics/processOpenFileDescriptors.js";
import processRequests from "prom-client/lib/metrics/processRequests.js";
import processResources from "prom-client/lib/metrics/processResources.js";
import processStartTime from "prom-client/lib/metrics/processStartTime.js";
import version from "prom-client/lib/metrics/version.js";
import { FastHistogram, type HistogramSeries } from "./histogram.js";

/** prom-client's buckets and help for the GC histogram, so the metric reads as it always has. */
const GC_BUCKETS = [0.001, 0.01, 0.1, 1, 2, 5];
const GC_HELP = "Garbage collection duration by kind, one of major, minor, incremental or weakcb.";
const GC_KINDS: ReadonlyMap<number, string> = new Map([
  [constants.NODE_PERFORMANCE_GC_MAJOR, "major"],
  [constants.NODE_PERFORMANCE_GC_MINOR, "minor"],
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL, "incremental"],
  [constants.NODE_PERFORMANCE_GC_WEAKCB, "weakcb"],
]);

/**
 * Node's own metrics in `registry`: prom-client's default set (event-loop delay, memory, heap
 * spaces, CPU, handles, file descriptors, …) under its usual names, and with `gc` (FW_METRICS_GC=on;
 * off by default, for its cost below) the GC durations recorded by fw: prom-client's GC collector reads only the first entry of each batch its observer gets,
 * so collections that fall in one turn of the event loop were counted once (bench/FINDINGS.md 32).
 * Here each entry is one `FastHistogram` observation. Observing GC at all costs a few hundred
 * thousand instructions a collection, nearly all Node's own (the entry, a native immediate, a JS
 * callback): a collection comes every 50–230 requests of a page. Returns what stops the observer.
 */
export function collectNodeMetrics(registry: Registry, gc: boolean): () => void {
  const config = { register: registry, eventLoopMonitoringPrecision: 10 };
  const collectors = [processCpuTotal, processStartTime, osMemoryHeap, processOpenFileDescriptors, processMaxFileDescriptors, eventLoopLag, processHandles, processRequests, heapSizeAndUsed, heapSpacesSizeAndUsed, version];
  // As collectDefaultMetrics does: active resources only where Node can list them (Node ≥ 17.3).
  if (typeof process.getActiveResourcesInfo === "function") collectors.push(processResources);
  for (const collect of collectors) collect(registry, config);
  return gc ? observeGc(registry) : () => undefined;
}

function observeGc(registry: Registry): () => void {
  const histogram = new FastHistogram(registry, "nodejs_gc_duration_seconds", GC_HELP, GC_BUCKETS);
  const byKind = new Map<number, HistogramSeries>();
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      // Node's GC entries carry `detail.kind` (its @types leave `detail` off PerformanceEntry).
      const kind = (entry as { readonly detail?: { readonly kind?: number } | null }).detail?.kind ?? 0;
      let series = byKind.get(kind);
      if (series === undefined) byKind.set(kind, (series = histogram.series(String(kind), () => ({ kind: GC_KINDS.get(kind) ?? "other" }))));
      histogram.observe(series, entry.duration / 1000);
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  return () => observer.disconnect();
}
