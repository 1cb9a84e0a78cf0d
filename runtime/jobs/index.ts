/**
 * fw/jobs — durable background jobs in the app's own database (issue 32), on PGlite and
 * PostgreSQL alike: typed job files under `src/jobs/` found by the build, enqueued alone or in a
 * request's transaction, run by a worker in every serving process, retried with backoff, then
 * dead; scheduled (`runAt`) and recurring (cron) runs; unique jobs. The HTTP core and fw/db never
 * import it. Names are re-exported one by one; everything else here is internal.
 */
export { defineJobs, JobQueue, type Job, type Jobs, type JobsOptions } from "./jobs.js";
export {
  InvalidJobPayload,
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_BACKOFF_MS,
  DEFAULT_MAX_BACKOFF_MS,
  DEFAULT_TIMEOUT_MS,
  type JobContext,
  type JobOptions,
  type EnqueueOptions,
  type Enqueued,
  type JobSpec,
  type AnyJobSpec,
} from "./job.js";
export { JOBS_TABLE, SCHEDULES_TABLE, JOBS_TABLE_SQL } from "./table.js";
export type { JobState } from "./queue-sql.js";
export { accountJobs, EXPORT_JOB, EXPORT_SWEEP_JOB } from "./account-jobs.js";
