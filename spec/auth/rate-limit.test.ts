import { describe, expect, it } from "vitest";
import { limiterKey, MAX_KEY_PART, PER_ACCOUNT_AND_ADDRESS, PER_ADDRESS, RateLimiter, SIGNUPS_PER_ADDRESS } from "../../runtime/auth/index.js";
import { distModule, retainedBytes } from "../support/retained.js";
import { attemptLimiterContract } from "./limiter-conformance.js";

const MINUTE = 60_000;

/** A limiter on a clock the test moves. */
function limiter(attempts: number, windowMs: number, maxKeys = 100) {
  const clock = { now: 1_000_000 };
  return { clock, limit: new RateLimiter({ attempts, windowMs }, maxKeys, () => clock.now) };
}

describe("Sign-in and sign-up rate limiting: attempts counted per key before the work, with backoff, bounded", () => {
  it("the documented numbers: 5 per (address, account) and 20 failures per address per 15 minutes; 10 sign-ups per address per hour", () => {
    expect(PER_ACCOUNT_AND_ADDRESS).toEqual({ attempts: 5, windowMs: 15 * MINUTE });
    expect(PER_ADDRESS).toEqual({ attempts: 20, windowMs: 15 * MINUTE });
    expect(SIGNUPS_PER_ADDRESS).toEqual({ attempts: 10, windowMs: 60 * MINUTE });
  });

  // The rule every AttemptLimiter keeps, fw/db's included (spec/scale/sql-attempt-limiter.test.ts).
  attemptLimiterContract(({ attempts, windowMs }) => limiter(attempts, windowMs));

  it("memory is bounded: at most maxKeys keys, the one used longest ago forgotten first", async () => {
    const { clock, limit } = limiter(1, MINUTE, 3);
    for (const key of ["a", "b", "c", "d"]) {
      await limit.attempt(key);
      clock.now += 1;
    }
    expect(limit.size).toBe(3);
    expect(await limit.attempt("a")).toBe(0);
    expect(await limit.attempt("d")).toBeGreaterThan(0);
  });

  it("a key is a fixed-size hash of its parts, each read up to MAX_KEY_PART characters; parts cannot run into each other", () => {
    expect(limiterKey("login", "10.0.0.1", "ada@example.com")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(limiterKey("login", "10.0.0.1", "x".repeat(1_000_000))).toHaveLength(43);
    expect(limiterKey("login", "x".repeat(MAX_KEY_PART) + "a")).toBe(limiterKey("login", "x".repeat(MAX_KEY_PART) + "b"));
    expect(limiterKey("ab", "c")).not.toBe(limiterKey("a", "bc"));
  });
});

describe("A limiter's keys are its own strings", () => {
  it("keys cut from big request strings do not keep them: 200 keys from 500 KB strings leave KBs", () => {
    const retained = retainedBytes(
      `const { RateLimiter, PER_ADDRESS, limiterKey } = await import(${distModule("auth/rate-limit.js")});
       const limiter = new RateLimiter(PER_ADDRESS);
       globalThis.kept = limiter;`,
      `for (let i = 0; i < 200; i++) {
         const header = "2001:db8:85a3::8a2e:370:" + i + ", " + "z".repeat(500000);
         limiter.count(limiterKey("login", header.slice(0, header.indexOf(",")).trim(), header));
       }
       if (limiter.size !== 200) throw new Error("keys not counted: " + limiter.size);`,
    );
    expect(retained).toBeLessThan(5_000_000); // the headers were 100 MB
  });
});
