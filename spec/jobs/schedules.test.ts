// A recurring job's cron text is read in UTC (runtime/jobs/schedules.ts). It is read as the fixed
// offset 0, not as the named zone "UTC": a named zone goes through Intl.DateTimeFormat, which
// makes node page in ICU's time zone data (~7 MB an idle app keeps; bench/FINDINGS.md 24).
import { afterEach, describe, expect, it } from "vitest";
import { recurring } from "../../runtime/jobs/schedules.js";

const Original = Intl.DateTimeFormat;
let made = 0;

afterEach(() => {
  Intl.DateTimeFormat = Original;
});

/** Counts what makes an Intl.DateTimeFormat from here on (with `new` or without). */
function countDateTimeFormats(): void {
  made = 0;
  Intl.DateTimeFormat = new Proxy(Original, {
    construct(target, args: unknown[]) {
      made++;
      return Reflect.construct(target, args) as object;
    },
    apply(target, self, args: unknown[]) {
      made++;
      return Reflect.apply(target, self, args) as unknown;
    },
  });
}

const job = (cron: string) => ({ name: "Nightly", source: "src/jobs/Nightly.ts", cron, maxAttempts: 3 });

describe("recurring jobs' schedules", () => {
  it("are read in UTC without Intl's time zone data", async () => {
    countDateTimeFormats();
    const nightly = await recurring(job("0 3 * * *"));
    nightly.next(new Date("2026-03-29T01:30:00Z"));
    expect(made).toBe(0);
  });

  it("are due at the UTC times the cron text names, daylight saving elsewhere or not", async () => {
    const nightly = await recurring(job("0 3 * * *"));
    // 29 March 2026: Europe moves its clocks at 01:00 UTC; UTC does not move.
    expect(nightly.next(new Date("2026-03-29T00:30:00Z")).toISOString()).toBe("2026-03-29T03:00:00.000Z");
    expect(nightly.next(new Date("2026-03-29T03:00:00Z")).toISOString()).toBe("2026-03-30T03:00:00.000Z");
    const monthly = await recurring(job("30 23 1 * *"));
    expect(monthly.next(new Date("2026-10-31T23:45:00Z")).toISOString()).toBe("2026-11-01T23:30:00.000Z");
    const everyQuarter = await recurring(job("*/15 * * * *"));
    expect(everyQuarter.next(new Date("2026-12-31T23:59:00Z")).toISOString()).toBe("2027-01-01T00:00:00.000Z");
  });
});
