import { expect, it } from "vitest";
import type { AttemptLimiter, Limit } from "../../runtime/auth/index.js";

const MINUTE = 60_000;

/** A limiter of the implementation under test, on a clock the test moves; each call a fresh one (its own keys). */
export type MakeLimiter = (limit: Limit) => { readonly clock: { now: number }; readonly limit: AttemptLimiter };

/**
 * The rule every AttemptLimiter keeps (fw/auth's in-memory RateLimiter, fw/db's SqlAttemptLimiter):
 * counted as attempted, a window, doubling backoff capped at a day and forgotten after a quiet
 * window, keys apart, reset and refund. Call inside a `describe`.
 */
export function attemptLimiterContract(make: MakeLimiter): void {
  it("every attempt counts as it is made: of 40 concurrent attempts, 5 go ahead", async () => {
    const { limit } = make({ attempts: 5, windowMs: 15 * MINUTE });
    const waits = await Promise.all(Array.from({ length: 40 }, () => limit.attempt("k")));
    expect(waits.filter((wait) => wait === 0)).toHaveLength(5);
    expect(waits.filter((wait) => wait > 0)).toHaveLength(35);
  });

  it("up to the limit, then refused until the window ends; a window that filled makes the next twice as long", async () => {
    const { clock, limit } = make({ attempts: 3, windowMs: MINUTE });
    for (let i = 0; i < 3; i++) expect(await limit.attempt("k")).toBe(0);
    clock.now += 10_000;
    expect(await limit.attempt("k")).toBe(50_000);
    clock.now += 50_000;
    for (let i = 0; i < 3; i++) expect(await limit.attempt("k")).toBe(0);
    expect(await limit.attempt("k")).toBe(2 * MINUTE);
    clock.now += 2 * MINUTE;
    for (let i = 0; i < 3; i++) expect(await limit.attempt("k")).toBe(0);
    expect(await limit.attempt("k")).toBe(4 * MINUTE);
  });

  it("backoff is capped (a day by default) and forgotten once the key stays quiet for a whole window", async () => {
    const { clock, limit } = make({ attempts: 1, windowMs: 60 * MINUTE });
    for (let round = 0; round < 8; round++) {
      await limit.attempt("k");
      const wait = await limit.attempt("k");
      expect(wait).toBeLessThanOrEqual(24 * 60 * MINUTE);
      clock.now += wait;
    }
    expect(await limit.attempt("k")).toBe(0);
    expect(await limit.attempt("k")).toBe(24 * 60 * MINUTE);
    clock.now += 3 * 24 * 60 * MINUTE;
    expect(await limit.attempt("k")).toBe(0);
    expect(await limit.attempt("k")).toBe(60 * MINUTE);
  });

  it("keys are counted apart, and so are limiters; reset forgets a key and its backoff; refund takes back one attempt", async () => {
    const { limit } = make({ attempts: 2, windowMs: MINUTE });
    const { limit: other } = make({ attempts: 2, windowMs: MINUTE });
    await limit.attempt("a");
    await limit.attempt("a");
    await limit.attempt("b");
    expect(await limit.attempt("a")).toBeGreaterThan(0);
    expect(await other.attempt("a")).toBe(0);
    expect(await limit.attempt("b")).toBe(0);
    await limit.reset("a");
    expect(await limit.attempt("a")).toBe(0);
    await limit.refund("b");
    expect(await limit.attempt("b")).toBe(0);
    expect(await limit.attempt("b")).toBeGreaterThan(0);
  });
}
