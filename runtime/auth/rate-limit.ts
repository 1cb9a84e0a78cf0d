import { ownCopy } from "../http/own-copy.js";

/** How many failures a key may have within a window. */
export interface Limit {
  readonly failures: number;
  readonly windowMs: number;
}

/** Sign-in failures allowed per account (the email as typed, any case): 5 per 15 minutes. */
export const PER_ACCOUNT: Limit = { failures: 5, windowMs: 15 * 60_000 };
/** Sign-in failures allowed per client address, across accounts: 20 per 15 minutes. */
export const PER_ADDRESS: Limit = { failures: 20, windowMs: 15 * 60_000 };
/** Keys a limiter remembers at most; past it, the one that failed longest ago is forgotten. */
export const MAX_KEYS = 10_000;

/**
 * Counts failures per key in a sliding window, in memory. A key that reached its limit is
 * refused until its oldest counted failure leaves the window. Memory stays bounded: at most
 * `maxKeys` keys, each holding at most `limit.failures` timestamps.
 */
export class RateLimiter {
  /** Failure times per key, oldest first; Map order is least recently failed first. */
  private readonly failures = new Map<string, number[]>();

  constructor(
    readonly limit: Limit,
    private readonly maxKeys = MAX_KEYS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Milliseconds until `key` may try again; 0 when it may now. */
  retryAfter(key: string): number {
    const times = this.recent(key);
    if (times.length < this.limit.failures) return 0;
    return (times[0] as number) + this.limit.windowMs - this.now();
  }

  /** Counts one failure for `key`. */
  fail(key: string): void {
    const times = this.recent(key);
    times.push(this.now());
    if (times.length > this.limit.failures) times.shift();
    // Re-inserted last: the most recently failed. A key is cut from a request (a form field, a
    // forwarded-for header) and is kept for minutes: stored as a copy, not a view on the request.
    this.failures.delete(key);
    this.failures.set(ownCopy(key), times);
    if (this.failures.size > this.maxKeys) this.failures.delete(this.failures.keys().next().value as string);
  }

  /** Forgets `key`'s failures (a successful sign-in to the account). */
  reset(key: string): void {
    this.failures.delete(key);
  }

  /** How many keys are remembered now. */
  get size(): number {
    return this.failures.size;
  }

  private recent(key: string): number[] {
    const since = this.now() - this.limit.windowMs;
    const times = (this.failures.get(key) ?? []).filter((time) => time > since);
    if (times.length === 0) this.failures.delete(key);
    return times;
  }
}
