import { createHash } from "node:crypto";

/** How many attempts a key may make in a window; each window that fills up makes the next twice as long. */
export interface Limit {
  readonly attempts: number;
  readonly windowMs: number;
  /** The longest window backoff reaches. Default 24 hours. */
  readonly maxWindowMs?: number;
}

/** Sign-in attempts per (client address, account): 5 per 15 minutes, then 30, 60, … minutes (at most a day). */
export const PER_ACCOUNT_AND_ADDRESS: Limit = { attempts: 5, windowMs: 15 * 60_000 };
/** Failed sign-in attempts per client address, across accounts: 20 per 15 minutes, with the same backoff. */
export const PER_ADDRESS: Limit = { attempts: 20, windowMs: 15 * 60_000 };
/** Sign-up attempts per client address: 10 per hour, with the same backoff. */
export const SIGNUPS_PER_ADDRESS: Limit = { attempts: 10, windowMs: 60 * 60_000 };
/** Keys a limiter remembers at most; past it, the one used longest ago is forgotten. */
export const MAX_KEYS = 10_000;
/** The longest text of a key part read (an email field may be megabytes): the rest is not read. */
export const MAX_KEY_PART = 1024;
const DAY_MS = 24 * 60 * 60_000;

/**
 * Counts attempts per key, for the sign-in and sign-up forms. Asynchronous so that the counts
 * can live in a database shared by every process; an implementation must count atomically (an
 * increment that returns the new count, never a read then a write), so that concurrent attempts
 * cannot all see the count from before the others.
 */
export interface AttemptLimiter {
  readonly limit: Limit;
  /**
   * Counts one attempt for `key` now, before the work it guards (the password hash) runs, and
   * answers how many milliseconds the key must wait: 0 when this attempt may go ahead. Refused
   * attempts count too.
   */
  attempt(key: string): Promise<number>;
  /** Takes back one attempt (a sign-in that succeeded does not count against its address). */
  refund(key: string): Promise<void>;
  /** Forgets `key` and its backoff (a successful sign-in to the account from this address). */
  reset(key: string): Promise<void>;
}

/**
 * A limiter key: the parts (address, account, …) hashed together (SHA-256, base64url: 43
 * characters), each part read up to `MAX_KEY_PART` characters. Whatever a client types, a key
 * costs the same memory, and the limiter keeps no text from the request.
 */
export function limiterKey(...parts: readonly string[]): string {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(`${Math.min(part.length, MAX_KEY_PART)}:`).update(part.slice(0, MAX_KEY_PART));
  return hash.digest("base64url");
}

interface Window {
  /** Attempts in this window (at most `attempts + 1`: the rest are refused alike). */
  count: number;
  readonly end: number;
  /** How many windows before this one filled up, in a row. */
  readonly strikes: number;
}

/**
 * An `AttemptLimiter` in this process's memory: a fixed window per key, whose length doubles
 * (up to `maxWindowMs`) each time a window before it filled up, and starts over once the key
 * stays quiet for a whole window. Counting is synchronous, so in one process it is atomic.
 * Memory is bounded: at most `maxKeys` keys of three numbers each.
 */
export class RateLimiter implements AttemptLimiter {
  /** Map order is least recently used first. */
  private readonly windows = new Map<string, Window>();

  constructor(
    readonly limit: Limit,
    private readonly maxKeys = MAX_KEYS,
    private readonly now: () => number = Date.now,
  ) {}

  async attempt(key: string): Promise<number> {
    return this.count(key);
  }

  /** `attempt`, answered at once (the in-memory count is synchronous). */
  count(key: string): number {
    const now = this.now();
    const window = this.current(key, now);
    if (window.count <= this.limit.attempts) window.count++;
    this.windows.delete(key);
    this.windows.set(key, window);
    if (this.windows.size > this.maxKeys) this.windows.delete(this.windows.keys().next().value as string);
    return window.count > this.limit.attempts ? window.end - now : 0;
  }

  async refund(key: string): Promise<void> {
    const window = this.windows.get(key);
    if (window !== undefined && window.count > 0) window.count--;
  }

  async reset(key: string): Promise<void> {
    this.windows.delete(key);
  }

  /** How many keys are remembered now. */
  get size(): number {
    return this.windows.size;
  }

  private current(key: string, now: number): Window {
    const held = this.windows.get(key);
    if (held !== undefined && now < held.end) return held;
    const filled = held !== undefined && held.count >= this.limit.attempts && now < held.end + this.length(held.strikes);
    const strikes = filled ? held.strikes + 1 : 0;
    return { count: 0, end: now + this.length(strikes), strikes };
  }

  /** The length of a window after `strikes` filled ones. */
  private length(strikes: number): number {
    return Math.min(this.limit.windowMs * 2 ** Math.min(strikes, 30), this.limit.maxWindowMs ?? DAY_MS);
  }
}
