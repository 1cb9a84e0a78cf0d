/**
 * fw/auth's `AccountData` on fw/db (issue 41: a user's own data), one per users table: which
 * model rows keep an account from being deleted, and "Download my data" (`ExportRecords`, made
 * by fw/jobs' `fw.account.export`, which finds this through `accountDataFor`).
 */
import type { AccountData, MadeExport } from "../auth/account-data.js";
import type { Database } from "./database.js";
import { ExportRecords, exportRunner } from "./account-exports.js";
import { UserRows } from "./user-rows.js";

const byUsersTable = new Map<string, SqlAccountData>();

export class SqlAccountData implements AccountData {
  readonly rows: UserRows;
  readonly records: ExportRecords;
  readonly #handlers: ((made: MadeExport) => Promise<void>)[] = [];

  constructor(
    readonly db: Database,
    readonly users: string,
  ) {
    this.rows = new UserRows(db, users);
    this.records = new ExportRecords(db, users);
    byUsersTable.set(users, this);
  }

  holding(id: number): Promise<readonly string[]> {
    return this.rows.holding(id);
  }

  exports(): ExportRecords | undefined {
    return exportRunner() === undefined ? undefined : this.records;
  }

  onExportReady(handler: (made: MadeExport) => Promise<void>): void {
    this.#handlers.push(handler);
  }

  /** Tells the handlers (fw/auth: the link's mail) that an export is made; a handler's failure is the job's. */
  async exportReady(made: MadeExport): Promise<void> {
    for (const handler of this.#handlers) await handler(made);
  }
}

/** The account data of users table `users` in this process (the job making an export finds it so). */
export function accountDataFor(users: string): SqlAccountData | undefined {
  return byUsersTable.get(users);
}

/** Every users table's account data made in this process. */
export function allAccountData(): SqlAccountData[] {
  return [...byUsersTable.values()];
}
