import { describe, expect, it } from "vitest";
import { PER_ACCOUNT, PER_ADDRESS, RateLimiter } from "../../runtime/auth/index.js";
import { distModule, retainedBytes } from "../support/retained.js";

/** A limiter on a clock the test moves. */
function limiter(failures: number, windowMs: number, maxKeys = 100) {
  const clock = { now: 1_000_000 };
  return { clock, limiter: new RateLimiter({ failures, windowMs }, maxKeys, () => clock.now) };
}

describe("Sign-in rate limiting: a sliding window per key, in memory, bounded", () => {
  it("the documented numbers: 5 per account and 20 per address, per 15 minutes", () => {
    expect(PER_ACCOUNT).toEqual({ failures: 5, windowMs: 900_000 });
    expect(PER_ADDRESS).toEqual({ failures: 20, windowMs: 900_000 });
  });

  it("allows up to the limit, then refuses until the oldest failure leaves the window", () => {
    const { clock, limiter: limit } = limiter(3, 60_000);
    for (let i = 0; i < 3; i++) {
      expect(limit.retryAfter("k")).toBe(0);
      limit.fail("k");
      clock.now += 10_000;
    }
    expect(limit.retryAfter("k")).toBe(30_000); // first failure at t0, now t0 + 30 s
    clock.now += 29_999;
    expect(limit.retryAfter("k")).toBe(1);
    clock.now += 1;
    expect(limit.retryAfter("k")).toBe(0);
    limit.fail("k");
    expect(limit.retryAfter("k")).toBeGreaterThan(0); // the two later failures are still in the window
  });

  it("keys are counted apart; reset forgets one key", () => {
    const { limiter: limit } = limiter(2, 60_000);
    limit.fail("a");
    limit.fail("a");
    limit.fail("b");
    expect(limit.retryAfter("a")).toBeGreaterThan(0);
    expect(limit.retryAfter("b")).toBe(0);
    limit.reset("a");
    expect(limit.retryAfter("a")).toBe(0);
  });

  it("memory is bounded: at most maxKeys keys, the one that failed longest ago forgotten first", () => {
    const { clock, limiter: limit } = limiter(1, 60_000, 3);
    for (const key of ["a", "b", "c", "d"]) {
      limit.fail(key);
      clock.now += 1;
    }
    expect(limit.size).toBe(3);
    expect(limit.retryAfter("a")).toBe(0);
    expect(limit.retryAfter("d")).toBeGreaterThan(0);
  });

  it("keeps at most `failures` times per key, however many failures come", () => {
    const { clock, limiter: limit } = limiter(2, 60_000);
    for (let i = 0; i < 1000; i++) {
      limit.fail("k");
      clock.now += 1;
    }
    expect(limit.retryAfter("k")).toBe(60_000 - 2); // the two newest failures are kept: t-2 and t-1
  });
});

describe("A limiter's keys are its own strings", () => {
  it("keys cut from big request strings (a form field, a forwarded-for header) do not keep them: 200 keys from 500 KB strings leave KBs", () => {
    const retained = retainedBytes(
      `const { RateLimiter, PER_ADDRESS } = await import(${distModule("auth/rate-limit.js")});
       const limiter = new RateLimiter(PER_ADDRESS);
       globalThis.kept = limiter;`,
      `for (let i = 0; i < 200; i++) {
         const header = "2001:db8:85a3::8a2e:370:" + i + ", " + "z".repeat(500000);
         limiter.fail(header.slice(0, header.indexOf(",")).trim());
       }
       if (limiter.size !== 200) throw new Error("keys not counted: " + limiter.size);`,
    );
    expect(retained).toBeLessThan(5_000_000); // the headers were 100 MB
  });
});

