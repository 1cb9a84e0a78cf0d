import { describe, expect, it } from "vitest";
import { limiterKey, MAX_KEY_PART, PER_ACCOUNT_AND_ADDRESS, PER_ADDRESS, RateLimiter, SIGNUPS_PER_ADDRESS } from "../../runtime/auth/index.js";
import { distModule, retainedBytes } from "../support/retained.js";

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

  it("every attempt counts as it is made: concurrent attempts cannot all see the count from before the others", async () => {
    const { limit } = limiter(5, 15 * MINUTE);
    const waits = await Promise.all(Array.from({ length: 40 }, () => limit.attempt("k")));
    expect(waits.filter((wait) => wait === 0)).toHaveLength(5);
    expect(waits.filter((wait) => wait > 0)).toHaveLength(35);
  });

  it("allows up to the limit, then refuses until the window ends; a window that filled makes the next twice as long (backoff)", async () => {
    const { clock, limit } = limiter(3, MINUTE);
    for (let i = 0; i < 3; i++) expect(await limit.attempt("k")).toBe(0);
    clock.now += 10_000;
    expect(await limit.attempt("k")).toBe(50_000);
    clock.now += 50_000;
    // The first window filled: the next is 2 minutes.
    for (let i = 0; i < 3; i++) expect(await limit.attempt("k")).toBe(0);
    expect(await limit.attempt("k")).toBe(2 * MINUTE);
    clock.now += 2 * MINUTE;
    for (let i = 0; i < 3; i++) expect(await limit.attempt("k")).toBe(0);
    expect(await limit.attempt("k")).toBe(4 * MINUTE);
  });

  it("backoff is capped (a day by default) and forgotten once the key stays quiet for a whole window", async () => {
    const { clock, limit } = limiter(1, 60 * MINUTE);
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

  it("keys are counted apart; reset forgets one key and its backoff; refund takes back one attempt", async () => {
    const { limit } = limiter(2, MINUTE);
    await limit.attempt("a");
    await limit.attempt("a");
    await limit.attempt("b");
    expect(await limit.attempt("a")).toBeGreaterThan(0);
    expect(await limit.attempt("b")).toBe(0);
    await limit.reset("a");
    expect(await limit.attempt("a")).toBe(0);
    await limit.refund("b");
    expect(await limit.attempt("b")).toBe(0);
    expect(await limit.attempt("b")).toBeGreaterThan(0);
  });

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
