/**
 * fw/files' own jobs (issue 40), run by fw/jobs in every serving process beside the app's (fw/db's
 * `addProcessBackground`: `DbApp` starts them, the app wires nothing):
 * - `fw.files.delete`: the files rows no longer hold (a row deleted, a file replaced or removed),
 *   enqueued once the write is done; each deleted (with its variants) only if no row holds it by
 *   then; retried with fw/jobs' backoff while the storage fails.
 * - `fw.files.sweep`: hourly, the files no row ever took (an upload whose form was never saved,
 *   a day old), and any a lost delete job left behind.
 */
import type { Background, BackgroundContext } from "../db/background.js";
import type { Database, Queryable } from "../db/database.js";
import { checkIdentifier } from "../db/identifier.js";
import { JobQueue } from "../jobs/jobs.js";
import type { JobSpec } from "../jobs/job.js";
import { insertJob } from "../jobs/queue-sql.js";
import { ensureJobsTable } from "../jobs/table.js";
import type { Validation } from "../resource/model.js";
import { defaultVariants } from "../resource/image-variants.js";
import { FilesTable, type FileOwner } from "./files-table.js";
import type { Storage } from "./storage.js";

export const DELETE_JOB = "fw.files.delete";
export const SWEEP_JOB = "fw.files.sweep";

/** Files the sweep takes per table and column in one run (the next run takes the rest). */
const SWEEP_BATCH = 500;

interface DeletePayload {
  readonly keys: readonly string[];
}

/** The keys under which a file's variants are kept beside it (`<key>.thumb`). */
export function variantKeys(key: string): string[] {
  return Object.keys(defaultVariants).map((variant) => `${key}.${variant}`);
}

/**
 * The file jobs of one storage: a `Background` fw/db's `DbApp` prepares on the app's database,
 * starts once the server listens and stops with it.
 */
export class FileJobs implements Background {
  #database: Database | undefined;
  readonly #queue: JobQueue;

  constructor(private readonly storage: () => Storage) {
    this.#queue = new JobQueue([this.deleteSpec(), this.sweepSpec()]);
  }

  async prepare(context: BackgroundContext): Promise<void> {
    this.#database = context.database;
    await this.#queue.prepare(context);
  }

  start(): Promise<void> {
    return this.#queue.start();
  }

  stop(graceMs: number): Promise<void> {
    return this.#queue.stop(graceMs);
  }

  /** Enqueues the deletion of files rows no longer hold, on `db` (the app's database). */
  static async release(db: Database, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await ensureJobsTable(db);
    await FileJobs.releaseIn(db, keys);
  }

  /**
   * Enqueues the deletion of files in `tx` (the jobs table exists already): the job is there
   * once `tx` commits, and never was when it rolls back (an account deletion refused).
   */
  static async releaseIn(tx: Queryable, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await insertJob(tx, { name: DELETE_JOB, payload: JSON.stringify({ keys }), maxAttempts: 25, delayMs: 0, runAt: undefined, unique: undefined });
  }

  private get database(): Database {
    if (this.#database === undefined) throw new Error("fw/files: the file jobs ran before DbApp prepared them on the app's database.");
    return this.#database;
  }

  /** Deletes one file and its variants when no row holds it (a file not recorded is left alone: fw cannot tell who holds it). */
  private async deleteUnheld(files: FilesTable, key: string, owner: FileOwner | undefined): Promise<void> {
    if (owner === undefined) return;
    checkIdentifier(owner.table, "the table of a stored file");
    checkIdentifier(owner.column, "the column of a stored file");
    if (await files.held(owner, key)) return;
    const storage = this.storage();
    for (const variant of variantKeys(key)) await storage.delete(variant);
    await storage.delete(key);
    await files.forget(key);
  }

  private deleteSpec(): JobSpec<DeletePayload> {
    return {
      name: DELETE_JOB,
      source: "fw/files (deleting files no row holds)",
      validate: validateDelete,
      options: { maxAttempts: 25 },
      run: async ({ keys }) => {
        const files = new FilesTable(this.database as Queryable);
        const owners = await files.owners(keys);
        for (const key of keys) await this.deleteUnheld(files, key, owners.get(key));
      },
    };
  }

  private sweepSpec(): JobSpec<Record<string, never>> {
    return {
      name: SWEEP_JOB,
      source: "fw/files (sweeping files no row took)",
      validate: (input) => (typeof input === "object" && input !== null ? { success: true, data: {} } : { success: false, errors: [{ path: "$input", expected: "{}", value: input }] }),
      options: { cron: "17 * * * *", maxAttempts: 3 },
      run: async () => {
        const files = new FilesTable(this.database as Queryable);
        for (const owner of await files.ownersRecorded()) {
          checkIdentifier(owner.table, "the table of a stored file");
          checkIdentifier(owner.column, "the column of a stored file");
          for (const key of await files.unheld(owner, SWEEP_BATCH)) await this.deleteUnheld(files, key, owner);
        }
      },
    };
  }
}

/** The delete job's payload: `{ keys: string[] }` of storage keys. */
function validateDelete(input: unknown): Validation<DeletePayload> {
  const keys = (input as { keys?: unknown } | null)?.keys;
  if (Array.isArray(keys) && keys.every((key) => typeof key === "string" && /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/.test(key))) return { success: true, data: { keys } };
  return { success: false, errors: [{ path: "$input.keys", expected: "Array<string> (storage keys)", value: keys }] };
}
