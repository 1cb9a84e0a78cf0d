import type { Database, Queryable } from "../db/database.js";

/** The jobs table (`fw_` names are fw's), made on first use like fw/auth's `fw_attempts`. */
export const JOBS_TABLE = "fw_jobs";
/** One row per recurring job: when it is next due. */
export const SCHEDULES_TABLE = "fw_job_schedules";

/**
 * The DDL. fw/jobs creates it on first use (`CREATE … IF NOT EXISTS`), outside the app's
 * migrations: it holds fw's bookkeeping, and its shape is fw's to change. A job's row lives
 * while it is queued, running, failed (waiting for its next try) or dead (out of tries, kept
 * with its error until retried or deleted); a job that succeeds is deleted.
 * `locked_until` is the running job's lease: its worker extends it while the job runs, and a
 * job whose lease ran out (its process was killed) is taken back by the next worker that polls.
 */
export const JOBS_TABLE_SQL =
  `CREATE TABLE IF NOT EXISTS ${JOBS_TABLE} (\n` +
  `  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,\n` +
  `  name text NOT NULL,\n` +
  `  payload jsonb NOT NULL,\n` +
  `  state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'failed', 'dead')),\n` +
  `  run_at timestamptz NOT NULL DEFAULT now(),\n` +
  `  attempts integer NOT NULL DEFAULT 0,\n` +
  `  max_attempts integer NOT NULL,\n` +
  `  unique_key text,\n` +
  `  locked_by text,\n` +
  `  locked_until timestamptz,\n` +
  `  last_error text,\n` +
  `  created_at timestamptz NOT NULL DEFAULT now()\n` +
  `);\n` +
  // Added after the table's first release, so an existing table gains it: the request that
  // enqueued the job ({"requestId": …, "traceparent": …}), for its log lines and its trace.
  `ALTER TABLE ${JOBS_TABLE} ADD COLUMN IF NOT EXISTS origin jsonb;\n` +
  `CREATE INDEX IF NOT EXISTS ${JOBS_TABLE}_due ON ${JOBS_TABLE} (run_at, id) WHERE state IN ('queued', 'failed');\n` +
  `CREATE INDEX IF NOT EXISTS ${JOBS_TABLE}_lease ON ${JOBS_TABLE} (locked_until) WHERE state = 'running';\n` +
  `CREATE UNIQUE INDEX IF NOT EXISTS ${JOBS_TABLE}_unique ON ${JOBS_TABLE} (name, unique_key) WHERE unique_key IS NOT NULL AND state <> 'dead';\n` +
  `CREATE TABLE IF NOT EXISTS ${SCHEDULES_TABLE} (\n` +
  `  name text PRIMARY KEY,\n` +
  `  cron text NOT NULL,\n` +
  `  next_at timestamptz NOT NULL\n` +
  `);\n`;

/**
 * Two processes booting at once would both run `CREATE TABLE IF NOT EXISTS`, and PostgreSQL
 * lets one of them fail on its catalog's unique index: a transaction-scoped advisory lock (one
 * key for fw/jobs) makes them take turns.
 */
const LOCK_KEY = 0x66776a6f; // "fwjo"

/** Each database's tables are made once per process (a `db reset` dropping them is noticed and they are made again). */
const made = new WeakMap<Queryable, Promise<void>>();

/** Creates the jobs tables if they are missing; once per database and process. */
export function ensureJobsTable(db: Database): Promise<void> {
  let making = made.get(db);
  if (making === undefined) {
    making = db
      .transaction(async (tx) => {
        await tx.query(`SELECT pg_advisory_xact_lock(${LOCK_KEY})`);
        await tx.script(JOBS_TABLE_SQL);
      })
      .catch((error: unknown) => {
        made.delete(db);
        throw error;
      });
    made.set(db, making);
  }
  return making;
}

/** Forgets that the tables were made (a statement found them missing: `db reset` dropped them). */
export function forgetJobsTable(db: Database): void {
  made.delete(db);
}

/** SQLSTATE 42P01: the statement names a table that does not exist. */
export function isMissingTable(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "42P01";
}
