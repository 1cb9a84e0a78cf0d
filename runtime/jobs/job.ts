import type { Queryable } from "../db/database.js";
import type { Validation } from "../resource/model.js";

/** What a running job is told besides its payload. */
export interface JobContext {
  /** The job's row id in `fw_jobs`. */
  readonly id: number;
  /** The job's name (its file under `src/jobs/`, without the extension: `SendWelcome`). */
  readonly name: string;
  /** This try's number, from 1. */
  readonly attempt: number;
  /** How many tries the job gets before it is dead. */
  readonly maxAttempts: number;
  /**
   * Aborted when the job ran past its `timeoutMs`, or when the process stops and the job did
   * not finish within the grace: pass it to `fetch` and the like, and stop when it fires (the
   * job is retried; what it does after that is not waited for).
   */
  readonly signal: AbortSignal;
  /**
   * The id of the request that enqueued the job, if a request did (and of the request that
   * enqueued the job that enqueued this one, and so on): fw's log lines about the job carry it,
   * and so do the app's `log` lines written while the job runs.
   */
  readonly requestId: string | undefined;
}

/** What a job file's `options` export may say (all optional). */
export interface JobOptions {
  /** Tries before the job is dead (its first run included). Default 20. */
  readonly maxAttempts?: number;
  /** The wait before the second try; each later wait doubles it. Default 2 s. */
  readonly backoffMs?: number;
  /** The longest wait between two tries. Default 1 hour. */
  readonly maxBackoffMs?: number;
  /** A try still running after this is aborted (`signal`) and counts as failed. Default 5 minutes. */
  readonly timeoutMs?: number;
  /**
   * Runs the job on a schedule in cron syntax, UTC (`"0 3 * * *"`: every day at 03:00;
   * `"*\/5 * * * *"`: every five minutes; six fields for seconds). Each due time runs once
   * across every process on the database, with the payload `{}`: a recurring job's payload
   * type must accept an empty object.
   */
  readonly cron?: string;
}

/** How a job is enqueued (all optional). */
export interface EnqueueOptions {
  /** Not before this time. Default: now. */
  readonly runAt?: Date;
  /** Not before this many milliseconds from now (instead of `runAt`). */
  readonly delayMs?: number;
  /**
   * A key that makes the job unique: while a job of the same name with the same key is queued,
   * running or failed (waiting for a retry), enqueueing it again adds nothing and answers the
   * job already there (`duplicate: true`). A dead job no longer counts.
   */
  readonly unique?: string;
  /** Overrides the job's `maxAttempts` for this one. */
  readonly maxAttempts?: number;
  /**
   * The transaction to enqueue in (the `tx` of fw/db's `db.transaction(async (tx) => …)`): the
   * job exists only if the transaction commits, and no worker sees it before.
   */
  readonly tx?: Queryable;
}

/** What `enqueue` answers. */
export interface Enqueued {
  /** The job's row id. */
  readonly id: number;
  /** True when a unique job with the same key was already waiting: that one is `id`, nothing was added. */
  readonly duplicate: boolean;
}

/**
 * What the build writes for one job file (the generated `src/.fw/jobs.ts`). `S` is the stores
 * its `run` asks for in a third parameter (`{ posts: AllRows<Post> }`), handed by `stores`.
 */
export interface JobSpec<P, S = undefined> {
  readonly name: string;
  /** The job file as messages show it (`src/jobs/SendWelcome.ts`). */
  readonly source: string;
  readonly run: (payload: P, job: JobContext, stores: S) => Promise<void> | void;
  /**
   * The model stores `run` asks for (issue 43), read when it runs: every row of each (a job runs
   * for nobody signed in), the stores the app's routes use (references, live topics and all).
   */
  readonly stores?: () => S;
  /** typia's validator of the payload type, read from `run`'s first parameter. */
  readonly validate: (input: unknown) => Validation<P>;
  readonly options?: JobOptions;
}

/**
 * Any job's spec, whatever its payload: `any` because `JobSpec<P>` is invariant in P (the payload
 * goes into `run` and comes out of `validate`), and a list of the app's jobs holds each with its own.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyJobSpec = JobSpec<any, any>;

/** The defaults of `JobOptions`. */
export const DEFAULT_MAX_ATTEMPTS = 20;
export const DEFAULT_BACKOFF_MS = 2_000;
export const DEFAULT_MAX_BACKOFF_MS = 60 * 60_000;
export const DEFAULT_TIMEOUT_MS = 5 * 60_000;

/**
 * A payload that does not fit its job's type, refused at enqueue (nothing is stored): the job's
 * name, its file and each path that is wrong. A bug of the caller, like a wrong argument.
 */
export class InvalidJobPayload extends TypeError {
  override readonly name = "InvalidJobPayload";
  constructor(
    readonly job: string,
    readonly problems: readonly string[],
    source: string,
  ) {
    super(`fw/jobs: the payload of the job ${job} (${source}) does not fit its type: ${problems.join("; ")}. Nothing was enqueued.`);
  }
}

/** typia's errors as sentences: `$input.to: expected string, got 42`. */
export function payloadProblems(validation: Validation<unknown>): string[] {
  if (validation.success) return [];
  return validation.errors.slice(0, 5).map((error) => `${error.path}: expected ${error.expected}, got ${shownValue(error.value)}`);
}

function shownValue(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** The checked options of a job: a bad one is named with its job's file. */
export interface JobSettings {
  readonly maxAttempts: number;
  readonly backoffMs: number;
  readonly maxBackoffMs: number;
  readonly timeoutMs: number;
  readonly cron: string | undefined;
}

export function jobSettings(spec: JobSpec<unknown, unknown>): JobSettings {
  const options = spec.options ?? {};
  const whole = (name: keyof JobOptions, value: unknown, fallback: number, least: number): number => {
    if (value === undefined) return fallback;
    if (typeof value !== "number" || !Number.isInteger(value) || value < least) {
      throw new TypeError(`fw/jobs: ${spec.source}: options.${name} must be a whole number of at least ${least}, not ${JSON.stringify(value)}.`);
    }
    return value;
  };
  return {
    maxAttempts: whole("maxAttempts", options.maxAttempts, DEFAULT_MAX_ATTEMPTS, 1),
    backoffMs: whole("backoffMs", options.backoffMs, DEFAULT_BACKOFF_MS, 0),
    maxBackoffMs: whole("maxBackoffMs", options.maxBackoffMs, DEFAULT_MAX_BACKOFF_MS, 0),
    timeoutMs: whole("timeoutMs", options.timeoutMs, DEFAULT_TIMEOUT_MS, 1),
    cron: options.cron,
  };
}

/**
 * The wait before try `attempt + 1` after try `attempt` failed: `backoffMs` doubled per try,
 * at most `maxBackoffMs`, less up to a tenth at random so jobs that failed together (a mail
 * server down) do not all come back in the same instant.
 */
export function backoffMs(settings: JobSettings, attempt: number): number {
  const full = Math.min(settings.backoffMs * 2 ** Math.min(attempt - 1, 40), settings.maxBackoffMs);
  return Math.round(full - full * 0.1 * Math.random());
}
