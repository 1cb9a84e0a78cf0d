import type { Database } from "../db/database.js";
import { insertJob } from "./queue-sql.js";
import { SCHEDULES_TABLE as S } from "./table.js";

/** A recurring job: its name, cron text, and when it is due after a time. */
export interface Recurring {
  readonly name: string;
  readonly cron: string;
  readonly maxAttempts: number;
  next(after: Date): Date;
}

/**
 * Reads a job's cron text with croner (a maintained parser with no dependencies of its own,
 * loaded only by apps that have a recurring job), in UTC. A pattern it refuses throws, naming
 * the job's file and why.
 */
export async function recurring(job: { readonly name: string; readonly source: string; readonly cron: string; readonly maxAttempts: number }): Promise<Recurring> {
  const { Cron } = await import("croner");
  let cron: InstanceType<typeof Cron>;
  try {
    // UTC as a fixed offset of 0 minutes, not `timezone: "UTC"`: croner reads a named time zone
    // through Intl.DateTimeFormat, which pages ICU's time zone data in from node's binary, ~7 MB
    // of resident memory an idle app keeps (the example on PostgreSQL: 71.0 against 64.2 MB,
    // bench/FINDINGS.md 24). UTC has no daylight saving, so the due times are the same.
    cron = new Cron(job.cron, { utcOffset: 0, paused: true });
  } catch (error) {
    const why = error instanceof Error ? error.message.replace(/^CronPattern: /, "") : String(error);
    throw new TypeError(`fw/jobs: ${job.source}: options.cron ${JSON.stringify(job.cron)} is not a cron schedule (${why}). Write five fields, minute hour day month weekday, such as "0 3 * * *" (every day at 03:00 UTC).`);
  }
  const next = (after: Date): Date => {
    const at = cron.nextRun(after);
    if (at === null) throw new TypeError(`fw/jobs: ${job.source}: options.cron ${JSON.stringify(job.cron)} is never due again.`);
    return at;
  };
  next(new Date()); // a pattern that is never due is refused at boot, not on its first poll
  return { name: job.name, cron: job.cron, maxAttempts: job.maxAttempts, next };
}

/**
 * Writes each recurring job's next due time, unless the database already holds one for the
 * same cron text (another process, or a previous boot, set it: a restart does not move it).
 */
export async function registerSchedules(db: Database, jobs: readonly Recurring[]): Promise<void> {
  for (const job of jobs) {
    await db.query(
      `INSERT INTO ${S} (name, cron, next_at) VALUES ($1, $2, $3::timestamptz) ` +
        `ON CONFLICT (name) DO UPDATE SET cron = EXCLUDED.cron, next_at = EXCLUDED.next_at WHERE ${S}.cron <> EXCLUDED.cron`,
      [job.name, job.cron, job.next(new Date()).toISOString()],
    );
  }
}

/**
 * Enqueues the recurring jobs that are due, once each across every process: the schedule row is
 * locked (`SKIP LOCKED`: another process busy with it is left to it), moved to the next due time
 * and the job inserted in one transaction. A due time missed while no process ran is run once,
 * not once per missed time. Answers how many jobs it enqueued.
 */
export async function enqueueDue(db: Database, jobs: readonly Recurring[]): Promise<number> {
  if (jobs.length === 0) return 0;
  const byName = new Map(jobs.map((job) => [job.name, job]));
  return db.transaction(async (tx) => {
    const due = await tx.query<{ name: string; next_at: Date | string; now: Date | string }>(
      `SELECT name, next_at, now() AS now FROM ${S} WHERE next_at <= now() AND name = ANY($1::text[]) FOR UPDATE SKIP LOCKED`,
      [[...byName.keys()]],
    );
    for (const row of due.rows) {
      const job = byName.get(row.name) as Recurring;
      const dueAt = new Date(row.next_at);
      await tx.query(`UPDATE ${S} SET next_at = $2::timestamptz WHERE name = $1`, [job.name, job.next(new Date(row.now)).toISOString()]);
      // The due time as its unique key: a schedule moved back by hand cannot enqueue the same run twice.
      await insertJob(tx, { name: job.name, payload: "{}", maxAttempts: job.maxAttempts, runAt: undefined, delayMs: 0, unique: `cron:${dueAt.toISOString()}` });
    }
    return due.rows.length;
  });
}
