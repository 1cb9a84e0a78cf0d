import { describe, expect, it } from "vitest";
import { metricsSettings } from "../../runtime/observe/metrics-settings.js";

// Issue 44 item 3: what turns metrics on, and the GC durations' own switch (off by default:
// observing collections costs each one, bench/FINDINGS.md 32).
describe("metrics settings", () => {
  const token = "a-metrics-token-of-24-chars";

  it("are off without a token or a port, and leave the GC durations out unless FW_METRICS_GC=on", () => {
    expect(metricsSettings({})).toBeUndefined();
    expect(metricsSettings({ FW_METRICS_GC: "on" })).toBeUndefined();
    expect(metricsSettings({ FW_METRICS_TOKEN: token })?.gc).toBe(false);
    expect(metricsSettings({ FW_METRICS_TOKEN: token, FW_METRICS_GC: "off" })?.gc).toBe(false);
    expect(metricsSettings({ FW_METRICS_TOKEN: token, FW_METRICS_GC: "on" })?.gc).toBe(true);
  });

  it("stop the boot on a GC switch that is neither on nor off, saying what each does", () => {
    expect(() => metricsSettings({ FW_METRICS_TOKEN: token, FW_METRICS_GC: "yes" })).toThrow(/FW_METRICS_GC="yes" is neither "on" nor "off": "on" records each garbage collection's duration/);
  });
});
