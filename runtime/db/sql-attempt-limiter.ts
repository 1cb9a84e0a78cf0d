import type { AttemptLimiter, Limit } from "../auth/rate-limit.js";
import type { Queryable } from "./database.js";

/** The table the counts live in (`fw_` names are fw's), created on first use. */
export const ATTEMPTS_TABLE = "fw_attempts";
const DAY_MS = 24 * 60 * 60_000;
/** How often one limiter deletes the keys that have started over (at most once a minute). */
const SWEEP_EVERY_MS = 60_000;

/**
 * The table's DDL. fw/db creates it on first use (`CREATE TABLE IF NOT EXISTS`), outside the
 * app's migrations: it holds fw's bookkeeping, not the app's data, and its shape is fw's to
 * change. `idle_after_ms` is when a quiet key starts over: past it the row may go.
 */
export const ATTEMPTS_TABLE_SQL =
  `CREATE TABLE IF NOT EXISTS ${ATTEMPTS_TABLE} (\n` +
  `  scope text NOT NULL,\n` +
  `  key text NOT NULL,\n` +
  `  count integer NOT NULL,\n` +
  `  window_end_ms bigint NOT NULL,\n` +
  `  strikes integer NOT NULL,\n` +
  `  idle_after_ms bigint NOT NULL,\n` +
  `  PRIMARY KEY (scope, key)\n` +
  `);\n` +
  `CREATE INDEX IF NOT EXISTS ${ATTEMPTS_TABLE}_idle ON ${ATTEMPTS_TABLE} (idle_after_ms);\n`;

/** A window's length after `strikes` filled ones, in SQL: $5 the window, $6 the longest. */
const length = (strikes: string): string => `LEAST($5::bigint * power(2, LEAST(${strikes}, 30))::bigint, $6::bigint)`;
/** Whether the stored window is still running at $3 (now). */
const RUNNING = "$3::bigint < a.window_end_ms";
/** The strikes of a window starting now after the stored one ended: one more if it filled up ($4 attempts) and is recent. */
const NEXT_STRIKES = "(CASE WHEN a.count >= $4::integer AND $3::bigint < a.idle_after_ms THEN a.strikes + 1 ELSE 0 END)";

/**
 * One statement counts an attempt: a new key starts a window; a running window counts one more
 * (at most attempts + 1: the rest are refused alike); an ended one starts a new window, twice as
 * long when the one before filled up. Atomic under concurrency: INSERT … ON CONFLICT DO UPDATE
 * locks the row, so concurrent attempts each see the count the others left.
 */
const ATTEMPT_SQL =
  `INSERT INTO ${ATTEMPTS_TABLE} AS a (scope, key, count, window_end_ms, strikes, idle_after_ms) ` +
  `VALUES ($1, $2, 1, $3::bigint + ${length("0")}, 0, $3::bigint + 2 * ${length("0")}) ` +
  `ON CONFLICT (scope, key) DO UPDATE SET ` +
  `count = CASE WHEN ${RUNNING} THEN LEAST(a.count + 1, $4::integer + 1) ELSE 1 END, ` +
  `strikes = CASE WHEN ${RUNNING} THEN a.strikes ELSE ${NEXT_STRIKES} END, ` +
  `window_end_ms = CASE WHEN ${RUNNING} THEN a.window_end_ms ELSE $3::bigint + ${length(NEXT_STRIKES)} END, ` +
  `idle_after_ms = CASE WHEN ${RUNNING} THEN a.idle_after_ms ELSE $3::bigint + 2 * ${length(NEXT_STRIKES)} END ` +
  `RETURNING count, window_end_ms`;

/** Each database's table is made once per process (a `db reset` dropping it is noticed and it is made again). */
const bootstrapped = new WeakMap<Queryable, Promise<void>>();

/**
 * fw/auth's `AttemptLimiter` with its counts in the database, so every process on it counts
 * together: five wrong passwords spread over two processes are five. The same rule as the
 * in-memory `RateLimiter` (a fixed window per key, twice as long after each one that filled up,
 * starting over after a quiet window), counted by one atomic statement per attempt. Keys are
 * fw/auth's SHA-256 hashes; `scope` keeps two limiters' keys apart. Rows of keys that started
 * over are deleted, at most once a minute per limiter.
 */
export class SqlAttemptLimiter implements AttemptLimiter {
  private lastSweep = 0;

  constructor(
    private readonly db: Queryable,
    private readonly scope: string,
    readonly limit: Limit,
    private readonly now: () => number = Date.now,
  ) {}

  async attempt(key: string): Promise<number> {
    const now = this.now();
    const { attempts, windowMs } = this.limit;
    const params = [this.scope, key, now, attempts, windowMs, this.limit.maxWindowMs ?? DAY_MS];
    const result = await this.run<{ count: number; window_end_ms: number }>(ATTEMPT_SQL, params);
    this.sweep(now);
    const row = result[0];
    if (row === undefined) throw new Error(`fw/db: counting an attempt in ${ATTEMPTS_TABLE} returned no row`);
    return Number(row.count) > attempts ? Number(row.window_end_ms) - now : 0;
  }

  async refund(key: string): Promise<void> {
    await this.run(`UPDATE ${ATTEMPTS_TABLE} SET count = count - 1 WHERE scope = $1 AND key = $2 AND count > 0`, [this.scope, key]);
  }

  async reset(key: string): Promise<void> {
    await this.run(`DELETE FROM ${ATTEMPTS_TABLE} WHERE scope = $1 AND key = $2`, [this.scope, key]);
  }

  /** Runs a statement on the table, making it first (and again, once, when it went missing). */
  private async run<R extends Record<string, unknown>>(sql: string, params: readonly unknown[]): Promise<R[]> {
    await ensureTable(this.db);
    try {
      return (await this.db.query<R>(sql, params)).rows;
    } catch (error) {
      if ((error as { code?: unknown }).code !== "42P01") throw error; // undefined_table: `db reset` dropped it
      bootstrapped.delete(this.db);
      await ensureTable(this.db);
      return (await this.db.query<R>(sql, params)).rows;
    }
  }

  /** Deletes the keys that have started over; never waits, never fails a request. */
  private sweep(now: number): void {
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    this.db.query(`DELETE FROM ${ATTEMPTS_TABLE} WHERE scope = $1 AND idle_after_ms < $2`, [this.scope, now]).catch(() => undefined);
  }
}

function ensureTable(db: Queryable): Promise<void> {
  let made = bootstrapped.get(db);
  if (made === undefined) {
    made = db.script(ATTEMPTS_TABLE_SQL).catch((error: unknown) => {
      // Two processes making it at once: one wins, the other's IF NOT EXISTS can still collide.
      const code = (error as { code?: unknown }).code;
      if (code === "23505" || code === "42P07" || code === "42710") return;
      bootstrapped.delete(db);
      throw error;
    });
    bootstrapped.set(db, made);
  }
  return made;
}
