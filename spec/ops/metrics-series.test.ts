import { afterEach, describe, expect, it } from "vitest";
import type { AccessEntry } from "../../runtime/log/logger.js";
import { NO_ROUTE, processMetrics, type ProcessMetrics } from "../../runtime/metrics/process-metrics.js";

// Issue 44 item 3: the request histogram's series, one per method, route pattern and status. fw
// finds a request's series by its route, then by a number made of its status and method
// (FINDINGS.md 32), so two label sets must never meet under one number, and a method outside the
// known seven is counted as "other" (a label's values stay few).

type Sample = { labels: Record<string, string | number>; value: number; metricName?: string };

let metrics: ProcessMetrics | undefined;
afterEach(() => metrics?.close());

const entry = (method: string, route: string | undefined, status: number, ms = 2): AccessEntry => ({ requestId: "r", method, path: "/x", route, status, ms });

async function counts(of: ProcessMetrics): Promise<Map<string, number>> {
  const family = (await of.registry.getMetricsAsJSON()).find((m) => m.name === "fw_http_request_duration_seconds");
  const found = new Map<string, number>();
  for (const sample of (family?.values ?? []) as Sample[]) {
    if (sample.metricName !== "fw_http_request_duration_seconds_count") continue;
    found.set(`${sample.labels["method"]} ${sample.labels["route"]} ${sample.labels["status"]}`, sample.value);
  }
  return found;
}

describe("issue 44 item 3: a series per method, route pattern and status", () => {
  it("keeps methods, statuses and routes apart, and names other methods and no route as such", async () => {
    metrics = processMetrics();
    const seen: AccessEntry[] = [
      entry("GET", "/posts/:id", 200),
      entry("GET", "/posts/:id", 200),
      entry("HEAD", "/posts/:id", 200),
      entry("POST", "/posts/:id", 200),
      entry("GET", "/posts/:id", 201),
      entry("OPTIONS", "/posts/:id", 204),
      entry("GET", "/", 200),
      entry("PROPFIND", "/posts/:id", 501),
      entry("BREW", "/posts/:id", 501),
      entry("GET", undefined, 404),
      entry("DELETE", undefined, 404),
    ];
    for (const one of seen) metrics.observe(one);
    expect(Object.fromEntries(await counts(metrics))).toEqual({
      "GET /posts/:id 200": 2,
      "HEAD /posts/:id 200": 1,
      "POST /posts/:id 200": 1,
      "GET /posts/:id 201": 1,
      "OPTIONS /posts/:id 204": 1,
      "GET / 200": 1,
      "other /posts/:id 501": 2,
      [`GET ${NO_ROUTE} 404`]: 1,
      [`DELETE ${NO_ROUTE} 404`]: 1,
    });
  });

  it("a status next to another with the last known method does not share its series (no two label sets under one number)", async () => {
    metrics = processMetrics();
    // The number is status × 8 + the method's place (GET 0 … OPTIONS 6, other 7): 200 "other"
    // is 1607 and 201 GET is 1608, neighbours that must stay apart.
    metrics.observe(entry("BREW", "/a", 200));
    metrics.observe(entry("GET", "/a", 201));
    metrics.observe(entry("OPTIONS", "/a", 200));
    expect(Object.fromEntries(await counts(metrics))).toEqual({ "other /a 200": 1, "GET /a 201": 1, "OPTIONS /a 200": 1 });
  });

  it("sums the seconds and fills the buckets of the series observed", async () => {
    metrics = processMetrics();
    metrics.observe(entry("GET", "/a", 200, 3));
    metrics.observe(entry("GET", "/a", 200, 40));
    const text = await metrics.text();
    expect(text).toContain('fw_http_request_duration_seconds_bucket{method="GET",route="/a",status="200",le="0.001"} 0');
    expect(text).toContain('fw_http_request_duration_seconds_bucket{method="GET",route="/a",status="200",le="0.005"} 1');
    expect(text).toContain('fw_http_request_duration_seconds_bucket{method="GET",route="/a",status="200",le="0.05"} 2');
    expect(text).toContain('fw_http_request_duration_seconds_sum{method="GET",route="/a",status="200"} 0.043');
    expect(text).toContain('fw_http_request_duration_seconds_count{method="GET",route="/a",status="200"} 2');
  });
});
