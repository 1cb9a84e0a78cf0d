/**
 * fw's own jobs for a user's own data (issue 41), run by fw/jobs in every serving process beside
 * the app's (registered with fw/db's `addProcessBackground`, as fw/files' are):
 * - `fw.account.export`: makes one "Download my data" export (account-export.ts) and has fw/auth
 *   mail its link; retried with backoff while the database, the storage or the mail fails.
 * - `fw.account.exports.sweep`: hourly, deletes the expired exports (and their archives).
 * The generated route module calls `accountJobs()` when a model's table names users; the jobs
 * run only in an app whose users store made account data (`SqlUsers.accountData()`, which
 * `formSignIn` asks for), and do nothing in one without.
 */
import { setExportRunner, type ExportJobPayload } from "../db/account-exports.js";
import { addProcessBackground, type Background, type BackgroundContext } from "../db/background.js";
import { accountDataFor, allAccountData } from "../db/sql-account-data.js";
import type { Validation } from "../resource/model.js";
import { makeExport } from "./account-export.js";
import { JobQueue } from "./jobs.js";
import { insertJob } from "./queue-sql.js";
import { ensureJobsTable } from "./table.js";

export const EXPORT_JOB = "fw.account.export";
export const EXPORT_SWEEP_JOB = "fw.account.exports.sweep";

/** Tries of one export: the storage or the mail server may be down for a while. */
const EXPORT_ATTEMPTS = 8;

class AccountJobs implements Background {
  #active = false;
  readonly #queue = new JobQueue([
    {
      name: EXPORT_JOB,
      source: "fw/jobs (making a user's data export)",
      validate: validateExport,
      // A large account's files take a while to zip: an hour before a try counts as stuck.
      options: { maxAttempts: EXPORT_ATTEMPTS, timeoutMs: 60 * 60_000 },
      run: async ({ users, id }: ExportJobPayload) => {
        const data = accountDataFor(users);
        if (data === undefined) throw new Error(`fw/jobs: this process has no account data for the users table ${users} (SqlUsers.accountData()), so it cannot make export ${id}.`);
        await makeExport(data, id);
      },
    },
    {
      name: EXPORT_SWEEP_JOB,
      source: "fw/jobs (deleting expired data exports)",
      validate: (input: unknown) => (typeof input === "object" && input !== null ? { success: true, data: {} } : { success: false, errors: [{ path: "$input", expected: "{}", value: input }] }),
      options: { cron: "41 * * * *", maxAttempts: 3 },
      run: async () => {
        for (const data of allAccountData()) await data.records.sweep();
      },
    },
  ]);

  async prepare(context: BackgroundContext): Promise<void> {
    // No users store made account data (no account pages, or in-memory users): nothing to run.
    if (allAccountData().length === 0) return;
    this.#active = true;
    await this.#queue.prepare(context);
  }

  start(): Promise<void> {
    return this.#active ? this.#queue.start() : Promise.resolve();
  }

  stop(graceMs: number): Promise<void> {
    return this.#active ? this.#queue.stop(graceMs) : Promise.resolve();
  }
}

let registered = false;

/**
 * Registers fw's account jobs with the process (once): `DbApp` runs them beside the app's, and
 * fw/db enqueues an export's job through them. What the generated route module calls.
 */
export function accountJobs(): void {
  if (registered) return;
  registered = true;
  addProcessBackground(new AccountJobs());
  setExportRunner({
    prepare: (db) => ensureJobsTable(db),
    enqueue: async (tx, payload) => {
      await insertJob(tx, { name: EXPORT_JOB, payload: JSON.stringify(payload), maxAttempts: EXPORT_ATTEMPTS, delayMs: 0, runAt: undefined, unique: undefined });
    },
  });
}

function validateExport(input: unknown): Validation<ExportJobPayload> {
  const value = input as { users?: unknown; id?: unknown } | null;
  if (typeof value?.users === "string" && /^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(value.users) && typeof value.id === "string" && /^[A-Za-z0-9_-]{22}$/.test(value.id)) {
    return { success: true, data: { users: value.users, id: value.id } };
  }
  return { success: false, errors: [{ path: "$input", expected: "{ users: string; id: string } (an export)", value: input }] };
}
