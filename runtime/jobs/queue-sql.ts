import type { Queryable } from "../db/database.js";
import { JOBS_TABLE as T } from "./table.js";

/** A job row as a worker claims it. */
export interface Claimed {
  readonly id: number;
  readonly name: string;
  readonly payload: unknown;
  readonly attempts: number;
  readonly maxAttempts: number;
  /** The request that enqueued it (its id, its trace), if one did. */
  readonly origin: JobOrigin | undefined;
}

/** What a job keeps of the request that enqueued it: its id (log lines) and its trace context (W3C `traceparent`). */
export interface JobOrigin {
  readonly requestId?: string;
  readonly traceparent?: string;
}

/** The job states a row can be in (a job that succeeded has no row). */
export type JobState = "queued" | "running" | "failed" | "dead";

/** A job row as the dev page lists it. */
export interface JobRow {
  readonly id: number;
  readonly name: string;
  readonly state: JobState;
  readonly payload: unknown;
  readonly attempts: number;
  readonly maxAttempts: number;
  readonly runAt: Date;
  readonly uniqueKey: string | null;
  readonly lastError: string | null;
}

/** `$n` milliseconds as an interval. */
const ms = (n: number): string => `($${n}::double precision * interval '1 millisecond')`;

/** The unique index's predicate: an ON CONFLICT naming a partial index must repeat it. */
const UNIQUE_TARGET = `(name, unique_key) WHERE unique_key IS NOT NULL AND state <> 'dead'`;

export interface NewJob {
  readonly name: string;
  /** JSON text. */
  readonly payload: string;
  readonly maxAttempts: number;
  readonly runAt: Date | undefined;
  readonly delayMs: number;
  readonly unique: string | undefined;
  /** The request enqueueing it (none for fw's own jobs and schedules). */
  readonly origin?: JobOrigin | undefined;
}

/**
 * Inserts a job; for a unique one whose key is taken, adds nothing and answers the job there.
 * The database's clock decides `run_at` (every process agrees on it).
 */
export async function insertJob(db: Queryable, job: NewJob): Promise<{ id: number; duplicate: boolean }> {
  const runAt = `COALESCE($6::timestamptz, now() + ${ms(5)})`;
  const params = [job.name, job.payload, job.maxAttempts, job.unique ?? null, job.delayMs, job.runAt?.toISOString() ?? null, job.origin === undefined ? null : JSON.stringify(job.origin)];
  // The key's job can finish between the insert that found it and the read: then insert again.
  for (let tries = 0; tries < 3; tries++) {
    const inserted = await db.query<{ id: string | number }>(
      `INSERT INTO ${T} (name, payload, max_attempts, unique_key, run_at, origin) VALUES ($1, $2::jsonb, $3, $4, ${runAt}, $7::jsonb) ` +
        `ON CONFLICT ${UNIQUE_TARGET} DO NOTHING RETURNING id`,
      params,
    );
    const row = inserted.rows[0];
    if (row !== undefined) return { id: Number(row.id), duplicate: false };
    const there = await db.query<{ id: string | number }>(`SELECT id FROM ${T} WHERE name = $1 AND unique_key = $2 AND state <> 'dead'`, [job.name, job.unique]);
    const existing = there.rows[0];
    if (existing !== undefined) return { id: Number(existing.id), duplicate: true };
  }
  throw new Error(`fw/jobs: could not enqueue ${job.name} with the unique key ${JSON.stringify(job.unique)}: its job kept finishing and coming back`);
}

/**
 * Claims up to `limit` due jobs of the names this worker runs, oldest due first, in one
 * statement: `FOR UPDATE SKIP LOCKED` lets concurrent workers take different rows without
 * waiting on each other, and the claim counts a try and starts the lease.
 */
export async function claimJobs(db: Queryable, worker: string, names: readonly string[], limit: number, leaseMs: number): Promise<Claimed[]> {
  const claimed = await db.query<{ id: string | number; name: string; payload: unknown; attempts: number; max_attempts: number; origin: unknown }>(
    `UPDATE ${T} AS j SET state = 'running', attempts = j.attempts + 1, locked_by = $1, locked_until = now() + ${ms(2)} ` +
      `FROM (SELECT id FROM ${T} WHERE state IN ('queued', 'failed') AND run_at <= now() AND name = ANY($3::text[]) ` +
      `ORDER BY run_at, id LIMIT $4 FOR UPDATE SKIP LOCKED) AS due ` +
      `WHERE j.id = due.id RETURNING j.id, j.name, j.payload, j.attempts, j.max_attempts, j.origin`,
    [worker, leaseMs, names, limit],
  );
  return claimed.rows
    .map((row) => ({ id: Number(row.id), name: row.name, payload: row.payload, attempts: Number(row.attempts), maxAttempts: Number(row.max_attempts), origin: originOf(row.origin) }))
    .sort((a, b) => a.id - b.id);
}

/** A stored origin as read back (jsonb: an object, or its text from a driver that does not parse it); anything else is none. */
function originOf(value: unknown): JobOrigin | undefined {
  let parsed = value;
  if (typeof value === "string") {
    try {
      parsed = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const { requestId, traceparent } = parsed as Record<string, unknown>;
  return {
    ...(typeof requestId === "string" ? { requestId } : {}),
    ...(typeof traceparent === "string" ? { traceparent } : {}),
  };
}

/** Extends the lease of this worker's running jobs. */
export async function extendLeases(db: Queryable, worker: string, leaseMs: number): Promise<void> {
  await db.query(`UPDATE ${T} SET locked_until = now() + ${ms(2)} WHERE locked_by = $1 AND state = 'running'`, [worker, leaseMs]);
}

/** Deletes jobs that succeeded (still held by this worker: one whose lease was taken back runs again). */
export async function finishJobs(db: Queryable, worker: string, ids: readonly number[]): Promise<void> {
  await db.query(`DELETE FROM ${T} WHERE id = ANY($1::bigint[]) AND locked_by = $2`, [ids, worker]);
}

/** A failed try: dead when it was the last (or `dead` says so), else failed until `retryInMs` from now. */
export async function failJob(db: Queryable, worker: string, id: number, failure: { readonly error: string; readonly retryInMs: number; readonly dead: boolean }): Promise<JobState | undefined> {
  const result = await db.query<{ state: JobState }>(
    `UPDATE ${T} SET state = CASE WHEN $5 OR attempts >= max_attempts THEN 'dead' ELSE 'failed' END, ` +
      `run_at = now() + ${ms(3)}, last_error = $4, locked_by = NULL, locked_until = NULL ` +
      `WHERE id = $1 AND locked_by = $2 RETURNING state`,
    [id, worker, failure.retryInMs, failure.error, failure.dead],
  );
  return result.rows[0]?.state;
}

/**
 * Jobs still running when the process stopped past its grace go back to the queue at once,
 * without counting the try (the shutdown cut them off, not their own fault).
 */
export async function releaseJobs(db: Queryable, worker: string, ids: readonly number[]): Promise<void> {
  await db.query(
    `UPDATE ${T} SET state = CASE WHEN attempts > 1 THEN 'failed' ELSE 'queued' END, attempts = attempts - 1, run_at = now(), locked_by = NULL, locked_until = NULL ` +
      `WHERE id = ANY($1::bigint[]) AND locked_by = $2 AND state = 'running'`,
    [ids, worker],
  );
}

/**
 * Takes back jobs whose lease ran out (their worker's process was killed, or lost the
 * database): due again at once, or dead if that was their last try. Answers how many.
 */
export async function rescueJobs(db: Queryable): Promise<number> {
  const result = await db.query(
    `UPDATE ${T} SET state = CASE WHEN attempts >= max_attempts THEN 'dead' ELSE 'failed' END, run_at = now(), ` +
      `last_error = 'the process running it stopped before it finished (killed, or cut off from the database): its lease ran out', ` +
      `locked_by = NULL, locked_until = NULL WHERE state = 'running' AND locked_until < now()`,
  );
  return result.rowCount;
}

/** The rows of the dev page: every state, the newest first within each, at most `limit` per state. */
export async function listJobs(db: Queryable, limit: number): Promise<JobRow[]> {
  const result = await db.query<{ id: string | number; name: string; state: JobState; payload: unknown; attempts: number; max_attempts: number; run_at: Date | string; unique_key: string | null; last_error: string | null }>(
    `SELECT id, name, state, payload, attempts, max_attempts, run_at, unique_key, last_error FROM (` +
      `SELECT *, row_number() OVER (PARTITION BY state ORDER BY run_at DESC, id DESC) AS n FROM ${T}) AS ranked WHERE n <= $1 ORDER BY state, run_at DESC, id DESC`,
    [limit],
  );
  return result.rows.map((row) => ({
    id: Number(row.id),
    name: row.name,
    state: row.state,
    payload: row.payload,
    attempts: Number(row.attempts),
    maxAttempts: Number(row.max_attempts),
    runAt: new Date(row.run_at),
    uniqueKey: row.unique_key,
    lastError: row.last_error,
  }));
}

/** How many jobs are in each state. */
export async function countJobs(db: Queryable): Promise<Record<JobState, number>> {
  const result = await db.query<{ state: JobState; count: string | number }>(`SELECT state, count(*) AS count FROM ${T} GROUP BY state`);
  const counts: Record<JobState, number> = { queued: 0, running: 0, failed: 0, dead: 0 };
  for (const row of result.rows) counts[row.state] = Number(row.count);
  return counts;
}

/** How many jobs are in each state, and how old (since enqueued) the oldest of each is, in seconds. */
export async function jobStats(db: Queryable): Promise<{ state: JobState; count: number; oldestSeconds: number }[]> {
  const result = await db.query<{ state: JobState; count: string | number; oldest: string | number | null }>(
    `SELECT state, count(*) AS count, EXTRACT(EPOCH FROM now() - min(created_at))::float8 AS oldest FROM ${T} GROUP BY state`,
  );
  return result.rows.map((row) => ({ state: row.state, count: Number(row.count), oldestSeconds: Math.max(0, Number(row.oldest ?? 0)) }));
}

/**
 * A failed or dead job due again now, with a fresh set of tries; its last error is kept until
 * the next one. Answers false when there is no such job (it succeeded, ran, or is gone).
 */
export async function retryJob(db: Queryable, id: number): Promise<boolean> {
  const result = await db.query(`UPDATE ${T} SET state = 'queued', attempts = 0, run_at = now() WHERE id = $1 AND state IN ('failed', 'dead')`, [id]);
  return result.rowCount > 0;
}
