import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Database } from "../db/database.js";
import { backoffMs, payloadProblems, type JobSettings, type JobSpec } from "./job.js";
import { claimJobs, extendLeases, failJob, finishJobs, releaseJobs, rescueJobs, type Claimed } from "./queue-sql.js";
import { enqueueDue, type Recurring } from "./schedules.js";
import { inRequestContext } from "../log/request-context.js";
import { traced, tracer } from "../observe/tracing.js";

export interface WorkerOptions {
  readonly database: Database;
  /** The jobs this process runs, by name, with their checked settings. */
  readonly jobs: ReadonlyMap<string, { readonly spec: JobSpec<unknown, unknown>; readonly settings: JobSettings }>;
  readonly recurring: readonly Recurring[];
  /** Jobs run at once by this process. */
  readonly concurrency: number;
  /** How often an idle worker looks for due jobs. */
  readonly pollMs: number;
  /** How long a claimed job is this process's without a heartbeat; a third of it between heartbeats. */
  readonly leaseMs: number;
  readonly log: (line: string) => void;
  /** Logs each job that succeeded too (in `dev`: the terminal shows that a job ran); failures are logged always. */
  readonly logRuns?: boolean;
}

/** A job being run: its promise settles when the try is over (succeeded, failed, timed out). */
interface Running {
  readonly job: Claimed;
  readonly abort: AbortController;
  readonly done: Promise<void>;
}

/** Why a job still running past the stop's grace is aborted: stop() puts it back, it is no failure. */
const CUT_OFF = new Error("the process is stopping");

/** The most characters of an error kept on a failed job. */
const ERROR_CHARS = 4000;

/**
 * One process's worker: claims due jobs (at most `concurrency` at a time), runs them, records
 * each outcome, keeps the lease of its running jobs alive, takes back jobs whose lease ran out,
 * and enqueues due recurring jobs. It never throws: a database that went away is logged once
 * and asked again at the next poll.
 */
export class JobWorker {
  readonly id = `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
  readonly #options: WorkerOptions;
  readonly #names: readonly string[];
  readonly #running = new Map<number, Running>();
  /** Succeeded jobs not yet deleted: deleted together, one statement per batch. */
  #finished: number[] = [];
  #flushing: Promise<void> | undefined;
  #stopping = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #woken = false;
  #heartbeat: NodeJS.Timeout | undefined;
  #lastRescue = 0;
  #lastSchedule = 0;
  #failing = false;

  constructor(options: WorkerOptions) {
    this.#options = options;
    this.#names = [...options.jobs.keys()];
  }

  /** Starts the loop and the heartbeat. */
  start(): void {
    if (this.#loop !== undefined || this.#names.length === 0) return;
    this.#heartbeat = setInterval(() => void this.#beat(), Math.max(1, Math.floor(this.#options.leaseMs / 3)));
    this.#heartbeat.unref();
    this.#loop = this.#run();
  }

  /** Looks for due jobs now (a job was enqueued in this process). */
  wake(): void {
    this.#woken = true;
    this.#wake?.();
  }

  /** How many jobs this process is running now. */
  get busy(): number {
    return this.#running.size;
  }

  /**
   * Stops claiming; waits up to `graceMs` for the running jobs to finish, then aborts the rest
   * and puts them back in the queue (the next process runs them at once). Jobs not yet claimed
   * stay queued.
   */
  async stop(graceMs: number): Promise<void> {
    this.#stopping = true;
    this.#wake?.();
    await this.#loop;
    const left = [...this.#running.values()];
    if (left.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((done) => (timer = setTimeout(done, graceMs)));
      await Promise.race([Promise.all(left.map((run) => run.done)), grace]);
      clearTimeout(timer);
    }
    clearInterval(this.#heartbeat);
    const cut = [...this.#running.values()];
    for (const run of cut) run.abort.abort(CUT_OFF);
    await this.#flush();
    if (cut.length > 0) {
      await this.#quietly("put back the jobs still running", () => releaseJobs(this.#options.database, this.id, cut.map((run) => run.job.id)));
      this.#options.log(`fw/jobs: ${cut.length} job(s) did not finish within ${graceMs} ms of the stop: put back in the queue (${cut.map((run) => `${run.job.name} #${run.job.id}`).join(", ")})`);
    }
  }

  async #run(): Promise<void> {
    const { concurrency, pollMs } = this.#options;
    while (!this.#stopping) {
      this.#woken = false;
      await this.#housekeeping();
      const free = concurrency - this.#running.size;
      let full = false;
      if (free > 0 && !this.#stopping) {
        const claimed = await this.#quietly("claim jobs", () => claimJobs(this.#options.database, this.id, this.#names, free, this.#options.leaseMs));
        for (const job of claimed ?? []) this.#start(job);
        full = claimed !== undefined && claimed.length === free;
      }
      if (this.#stopping) break;
      // All slots taken: wait for one to free. Fewer due than asked: wait for the poll (or a wake).
      if (full || this.#running.size >= concurrency) await this.#sleep(undefined);
      else if (!this.#woken) await this.#sleep(pollMs);
    }
  }

  /** Waits for a wake (a slot freed, a job enqueued here, stop) or `ms`. */
  #sleep(ms: number | undefined): Promise<void> {
    return new Promise((done) => {
      const timer = ms === undefined ? undefined : setTimeout(finish, ms);
      function finish(): void {
        clearTimeout(timer);
        done();
      }
      this.#wake = () => {
        this.#wake = undefined;
        finish();
      };
    });
  }

  /** Now and then: take back expired leases, enqueue due recurring jobs. */
  async #housekeeping(): Promise<void> {
    const now = Date.now();
    if (now - this.#lastRescue >= this.#options.leaseMs / 2) {
      this.#lastRescue = now;
      const rescued = await this.#quietly("take back expired jobs", () => rescueJobs(this.#options.database));
      if (rescued !== undefined && rescued > 0) this.#options.log(`fw/jobs: took back ${rescued} job(s) whose process stopped while running them; they run again`);
    }
    if (this.#options.recurring.length > 0 && now - this.#lastSchedule >= Math.min(this.#options.pollMs, 1000)) {
      this.#lastSchedule = now;
      await this.#quietly("enqueue recurring jobs", () => enqueueDue(this.#options.database, this.#options.recurring));
    }
  }

  #start(job: Claimed): void {
    const abort = new AbortController();
    // The job runs as part of the request that enqueued it: its log lines (fw's and the app's)
    // carry that request's id, and the jobs it enqueues keep it.
    const requestId = job.origin?.requestId;
    // Traced, each try is a trace of its own linked to the request that enqueued it.
    const run = (): Promise<void> =>
      traced(`job ${job.name}`, { kind: "consumer", root: true, link: job.origin?.traceparent, attributes: { "fw.job.name": job.name, "fw.job.id": job.id, "fw.job.attempt": job.attempts, "fw.request_id": requestId } }, () => this.#attempt(job, abort));
    const attempt = requestId === undefined ? run() : inRequestContext({ id: requestId }, run);
    const done = attempt.finally(() => {
      this.#running.delete(job.id);
      this.#wake?.();
    });
    this.#running.set(job.id, { job, abort, done });
  }

  /** One try of `job`, and its outcome recorded. */
  async #attempt(job: Claimed, abort: AbortController): Promise<void> {
    const entry = this.#options.jobs.get(job.name);
    if (entry === undefined) return; // never claimed: the claim names only this process's jobs
    const { spec, settings } = entry;
    const validation = spec.validate(job.payload);
    if (!validation.success) {
      // A stored payload that no longer fits the type (the type changed since) will not fit on a retry either.
      const error = `the stored payload does not fit the job's type (${spec.source}): ${payloadProblems(validation).join("; ")}`;
      return this.#failed(job, settings, error, true);
    }
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new Error(`timed out after ${settings.timeoutMs} ms (the job's timeoutMs)`);
        abort.abort(error);
        reject(error);
      }, settings.timeoutMs);
    });
    const aborted = new Promise<never>((_, reject) => abort.signal.addEventListener("abort", () => reject(abort.signal.reason), { once: true }));
    const started = performance.now();
    try {
      const context = { id: job.id, name: job.name, attempt: job.attempts, maxAttempts: job.maxAttempts, signal: abort.signal, requestId: job.origin?.requestId };
      await Promise.race([Promise.resolve().then(() => spec.run(validation.data, context, spec.stores?.())), timedOut, aborted]);
    } catch (error) {
      if (abort.signal.reason === CUT_OFF) return; // stop() puts it back in the queue
      tracer()?.failed(error, undefined); // the job's span, when traced
      return this.#failed(job, settings, describe(error), false);
    } finally {
      clearTimeout(timer);
    }
    if (this.#options.logRuns === true) {
      const tries = job.attempts > 1 ? ` (try ${job.attempts} of ${job.maxAttempts})` : "";
      this.#options.log(`fw/jobs: ${job.name} #${job.id} ran in ${Math.round(performance.now() - started)} ms${tries}`);
    }
    this.#finished.push(job.id);
    void this.#flush();
  }

  async #failed(job: Claimed, settings: JobSettings, error: string, dead: boolean): Promise<void> {
    const failure = { error: error.slice(0, ERROR_CHARS), retryInMs: backoffMs(settings, job.attempts), dead };
    const state = await this.#quietly("record a failed job", () => failJob(this.#options.database, this.id, job.id, failure));
    const first = error.split("\n")[0] ?? "";
    if (state === "dead") this.#options.log(`fw/jobs: ${job.name} #${job.id}${fromRequest(job)} is dead after ${job.attempts} tr${job.attempts === 1 ? "y" : "ies"}: ${first}`);
    else if (state === "failed") this.#options.log(`fw/jobs: ${job.name} #${job.id}${fromRequest(job)} failed (try ${job.attempts} of ${job.maxAttempts}), tried again in ${Math.round(failure.retryInMs / 100) / 10} s: ${first}`);
  }

  /** Deletes the succeeded jobs, one statement for all that finished meanwhile. */
  #flush(): Promise<void> {
    if (this.#flushing !== undefined) return this.#flushing.then(() => (this.#finished.length > 0 ? this.#flush() : undefined));
    if (this.#finished.length === 0) return Promise.resolve();
    const ids = this.#finished;
    this.#finished = [];
    this.#flushing = this.#quietly("record finished jobs", () => finishJobs(this.#options.database, this.id, ids)).then(() => {
      this.#flushing = undefined;
    });
    return this.#flushing;
  }

  async #beat(): Promise<void> {
    if (this.#running.size === 0) return;
    await this.#quietly("extend the running jobs' lease", () => extendLeases(this.#options.database, this.id, this.#options.leaseMs));
  }

  /** Runs a statement of the worker's own; a failure is logged once until one succeeds again. */
  async #quietly<T>(what: string, work: () => Promise<T>): Promise<T | undefined> {
    try {
      const result = await work();
      if (this.#failing) this.#options.log(`fw/jobs: the database answers again`);
      this.#failing = false;
      return result;
    } catch (error) {
      if (!this.#failing) this.#options.log(`fw/jobs: could not ${what} (${error instanceof Error ? error.message : String(error)}); trying again`);
      this.#failing = true;
      return undefined;
    }
  }
}

/** ` (request …)` after a job enqueued by a request, so its lines are found by the request's id in any format. */
function fromRequest(job: Claimed): string {
  const id = job.origin?.requestId;
  return id === undefined ? "" : ` (request ${id})`;
}

/** An error as kept on the job: its stack (name and message first), else its text. */
function describe(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  return `thrown: ${typeof error === "string" ? error : (JSON.stringify(error) ?? String(error))}`;
}
