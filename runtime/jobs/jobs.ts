import type { Background, BackgroundContext } from "../db/background.js";
import type { Database } from "../db/database.js";
import { processDatabase } from "../db/process-database.js";
import type { HttpRoute } from "../routing/route.js";
import { InvalidJobPayload, jobSettings, payloadProblems, type AnyJobSpec, type Enqueued, type EnqueueOptions, type JobSettings, type JobSpec } from "./job.js";
import { insertJob, jobStats, type JobState } from "./queue-sql.js";
import { addGaugeSource } from "../observe/gauges.js";
import { tracer } from "../observe/tracing.js";
import { recurring, registerSchedules } from "./schedules.js";
import { ensureJobsTable } from "./table.js";
import { JobWorker } from "./worker.js";
import { currentRequestId, useRequestContext } from "../log/request-context.js";

/** How a process runs its jobs (all optional). */
export interface JobsOptions {
  /** The database the jobs live in. Default: the app's (fw/db's `processDatabase()`, the one `DbApp` opens). */
  readonly database?: Database;
  /** Jobs one process runs at once. Default 10 (`FW_JOBS_CONCURRENCY`). */
  readonly concurrency?: number;
  /** How often an idle process looks for due jobs, in ms. Default 1000. */
  readonly pollMs?: number;
  /**
   * How long a claimed job stays its process's without a heartbeat (beats every third of it):
   * a job whose process was killed runs again once this ran out. Default 30 s.
   */
  readonly leaseMs?: number;
  /** Where the workers log. Default: the app's console (stderr). */
  readonly log?: (line: string) => void;
}

/** One job of the app, as its handlers enqueue it: `jobs.SendWelcome.enqueue({ userId })`. */
export interface Job<P> {
  readonly name: string;
  /**
   * Checks `payload` against the job's type (typia; a misfit throws `InvalidJobPayload` and
   * nothing is stored) and stores the job, in `options.tx` when given.
   */
  enqueue(payload: P, options?: EnqueueOptions): Promise<Enqueued>;
}

/** Settings from the environment: a bad value names the variable. */
function concurrencyFrom(env: NodeJS.ProcessEnv): number | undefined {
  const text = env["FW_JOBS_CONCURRENCY"];
  if (text === undefined || text === "") return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new TypeError(`fw/jobs: FW_JOBS_CONCURRENCY=${JSON.stringify(text)} is not a whole number from 1.`);
  return value;
}

/**
 * The app's jobs (the generated `src/.fw/jobs.ts` makes one with `defineJobs`): it enqueues them
 * and, passed to `DbApp` (`new DbApp({ routes, jobs })`), runs them in every serving process.
 */
export class JobQueue implements Background {
  readonly #specs = new Map<string, { readonly spec: JobSpec<unknown, unknown>; readonly settings: JobSettings }>();
  readonly #options: JobsOptions;
  #database: Database | undefined;
  #worker: JobWorker | undefined;

  constructor(specs: readonly AnyJobSpec[], options: JobsOptions = {}) {
    this.#options = options;
    // A job enqueued while a request is handled keeps that request's id (its log lines carry it):
    // requests run in a context from now on (request-context.ts says what that costs).
    useRequestContext();
    for (const spec of specs) {
      if (this.#specs.has(spec.name)) throw new TypeError(`fw/jobs: two jobs are named ${spec.name} (${spec.source})`);
      this.#specs.set(spec.name, { spec, settings: jobSettings(spec) });
    }
  }

  /** The database the jobs live in. */
  get database(): Database {
    return this.#database ?? this.#options.database ?? processDatabase();
  }

  /** The jobs' names, in the order given. */
  get names(): readonly string[] {
    return [...this.#specs.keys()];
  }

  /** Enqueues the job named `name` (what `jobs.Name.enqueue` calls). */
  async enqueue(name: string, payload: unknown, options: EnqueueOptions = {}): Promise<Enqueued> {
    const entry = this.#specs.get(name);
    if (entry === undefined) throw new TypeError(`fw/jobs: there is no job named ${JSON.stringify(name)} (jobs: ${this.names.join(", ") || "none"})`);
    const { spec, settings } = entry;
    const validation = spec.validate(payload);
    if (!validation.success) throw new InvalidJobPayload(name, payloadProblems(validation), spec.source);
    const maxAttempts = options.maxAttempts ?? settings.maxAttempts;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new TypeError(`fw/jobs: maxAttempts must be a whole number from 1, not ${maxAttempts} (enqueueing ${name})`);
    const delayMs = options.delayMs ?? 0;
    if (!Number.isFinite(delayMs) || delayMs < 0) throw new TypeError(`fw/jobs: delayMs must be a number from 0, not ${delayMs} (enqueueing ${name})`);
    if (options.runAt !== undefined && Number.isNaN(options.runAt.getTime())) throw new TypeError(`fw/jobs: runAt is an invalid Date (enqueueing ${name})`);
    await ensureJobsTable(this.database);
    const requestId = currentRequestId();
    const traceparent = tracer()?.traceparent();
    const origin = requestId === undefined && traceparent === undefined ? undefined : { ...(requestId === undefined ? {} : { requestId }), ...(traceparent === undefined ? {} : { traceparent }) };
    const job = { name, payload: JSON.stringify(validation.data), maxAttempts, runAt: options.runAt, delayMs, unique: options.unique, origin };
    const enqueued = await insertJob(options.tx ?? this.database, job);
    // A job due now, enqueued alone, is started here at once; one in a transaction is seen once it commits (the next poll).
    if (options.tx === undefined && options.runAt === undefined && delayMs === 0) this.#worker?.wake();
    return enqueued;
  }

  /**
   * Gets ready on the database (`DbApp` does it before the server listens): makes the tables,
   * reads each recurring job's cron text (a bad one throws, naming the job's file) and writes
   * its next due time.
   */
  async prepare(context?: Partial<BackgroundContext>): Promise<void> {
    if (this.#worker !== undefined) return;
    const database = this.#options.database ?? context?.database ?? processDatabase();
    this.#database = database;
    const log = this.#options.log ?? context?.log ?? ((line: string) => process.stderr.write(`${line}\n`));
    const made = [...this.#specs.values()].flatMap(({ spec, settings }) => {
      if (settings.cron === undefined) return [];
      const empty = spec.validate({});
      if (!empty.success) {
        throw new TypeError(`fw/jobs: ${spec.source} runs on a schedule (options.cron), so it runs with the payload {}, which does not fit its type: ${payloadProblems(empty).join("; ")}. Make every field optional, or take \`Record<string, never>\`.`);
      }
      return [recurring({ name: spec.name, source: spec.source, cron: settings.cron, maxAttempts: settings.maxAttempts })];
    });
    const schedules = await Promise.all(made);
    await ensureJobsTable(database);
    await registerSchedules(database, schedules);
    registerJobGauges(database);
    const concurrency = this.#options.concurrency ?? concurrencyFrom(process.env) ?? 10;
    this.#worker = new JobWorker({
      database,
      jobs: this.#specs,
      recurring: schedules,
      concurrency,
      pollMs: this.#options.pollMs ?? 1000,
      leaseMs: this.#options.leaseMs ?? 30_000,
      log,
      logRuns: context?.dev === true,
    });
  }

  /** Starts this process's worker (`DbApp` does it once the server listens), preparing first if needed. */
  async start(context?: Partial<BackgroundContext>): Promise<void> {
    if (this.#worker === undefined) await this.prepare(context);
    this.#worker?.start();
  }

  /**
   * Stops claiming, lets the running jobs finish within `graceMs`, puts back those that did not
   * (they run again at once elsewhere, or at the next start). Queued jobs stay queued.
   */
  async stop(graceMs = 10_000): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.stop(graceMs);
  }

  /** The dev page (`/fw/jobs`): its module is loaded only when `dev` serves it. */
  async devRoutes(): Promise<readonly HttpRoute[]> {
    const { jobsPageRoutes } = await import("./dev-page.js");
    return jobsPageRoutes(this.database);
  }
}

const STATES: readonly JobState[] = ["queued", "running", "failed", "dead"];

/**
 * The queue as metrics read it (fw/metrics, when configured): jobs per state and the age of the
 * oldest in each, read from the database at a scrape (one statement for both gauges). Every
 * process reads the same table, so `--workers` processes' values are the same: `max`, not a sum.
 */
function registerJobGauges(database: Database): void {
  let reading: { at: number; stats: ReturnType<typeof jobStats> } | undefined;
  const stats = (): ReturnType<typeof jobStats> => {
    const now = Date.now();
    if (reading === undefined || now - reading.at > 1000) reading = { at: now, stats: jobStats(database) };
    return reading.stats;
  };
  const per = async (pick: (row: Awaited<ReturnType<typeof jobStats>>[number]) => number) => {
    const rows = await stats();
    return STATES.map((state) => {
      const row = rows.find((r) => r.state === state);
      return { labels: { state }, value: row === undefined ? 0 : pick(row) };
    });
  };
  addGaugeSource({ name: "fw_jobs", help: "fw/jobs' jobs in each state (queued, running, failed: waiting for a retry, dead).", labelNames: ["state"], aggregate: "max", collect: () => per((row) => row.count) });
  addGaugeSource({
    name: "fw_jobs_oldest_age_seconds",
    help: "Seconds since the oldest job in each state was enqueued (0 when there is none).",
    labelNames: ["state"],
    aggregate: "max",
    collect: () => per((row) => row.oldestSeconds),
  });
}

/** The app's jobs: a `JobQueue` with each job reachable by its name (`jobs.SendWelcome.enqueue(…)`). */
export type Jobs<T extends Record<string, AnyJobSpec>> = JobQueue & { readonly [K in keyof T]: Job<PayloadOf<T[K]>> };

type PayloadOf<S> = S extends JobSpec<infer P, infer _Stores> ? P : never;

/**
 * What the generated `src/.fw/jobs.ts` calls with every job the build found: the queue, with
 * one `Job` per name. Names are the files' (upper-case first), so they never clash with the
 * queue's own members (lower-case).
 */
export function defineJobs<T extends Record<string, AnyJobSpec>>(specs: T, options: JobsOptions = {}): Jobs<T> {
  const queue = new JobQueue(Object.values(specs), options);
  for (const [key, spec] of Object.entries(specs)) {
    const job: Job<unknown> = { name: spec.name, enqueue: (payload, enqueueOptions) => queue.enqueue(spec.name, payload, enqueueOptions) };
    Object.defineProperty(queue, key, { value: job, enumerable: true });
  }
  return queue as Jobs<T>;
}
