/**
 * "Download my data" in the database (issue 41): one row per export of a user's data, in
 * `fw_<users>_exports` (made on first use, like fw's other tables, and gone with its user: ON
 * DELETE CASCADE). A request makes a row and enqueues the job that makes the export (fw/jobs
 * registers the runner: fw/db never imports it); the job fills in the JSON (`content`) or the
 * zip kept by fw/files (`archive`, a stored file like a model's), and the user gets a link that
 * works once, for `EXPORT_TTL_MS`. An expired or downloaded export's row goes, and its archive
 * with it (fw/files deletes the file once no row holds it).
 */
import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import type { AccountExports, ExportAsked, ExportDownload, ExportState } from "../auth/account-data.js";
import type { Database, Queryable, Row } from "./database.js";
import { checkIdentifier, quoteIdentifier as q } from "./identifier.js";
import { fileKeeper } from "./stored-files.js";

/** How long a made export, and the link mailed for it, lasts: 7 days. */
export const EXPORT_TTL_MS = 7 * 24 * 60 * 60_000;
/** One export an hour per user: a request within the hour after one was made is told when, and makes none. */
export const EXPORT_INTERVAL_MS = 60 * 60_000;
/** An export not made after a day (its job gave up) no longer holds a new request back, and is swept. */
export const EXPORT_GIVE_UP_MS = 24 * 60 * 60_000;

/** What the job that makes an export is given. */
export interface ExportJobPayload {
  /** The users table whose user the export is of. */
  readonly users: string;
  readonly id: string;
}

/** What fw/jobs lends fw/db to make exports: enqueuing the job, in the request's transaction. */
export interface ExportRunner {
  prepare(db: Database): Promise<void>;
  enqueue(tx: Queryable, payload: ExportJobPayload): Promise<void>;
}

let runner: ExportRunner | undefined;

/** Registers the job runner that makes exports (fw/jobs' `accountJobs`, written into the generated route module). */
export function setExportRunner(registered: ExportRunner): void {
  runner ??= registered;
}

export function exportRunner(): ExportRunner | undefined {
  return runner;
}

/** An export's row, as the job that makes it reads it. */
export interface PendingExport {
  readonly id: string;
  readonly userId: number;
  readonly page: string;
  readonly made: boolean;
}

/** What a made export holds: the JSON itself, or the stored zip's key (fw/files). */
export type ExportContent = { readonly json: string } | { readonly archive: { readonly key: string; readonly name: string; readonly type: string; readonly size: number; readonly checksum: string } };

const ID = /^[A-Za-z0-9_-]{22}$/;

/** The exports table of the users table `users`: `fw_users_exports`. */
export function exportsTable(users: string): string {
  const name = `fw_${users}_exports`;
  checkIdentifier(name, "exports table name (fw_ + the users table's name + _exports)");
  return name;
}

const made = new WeakMap<Queryable, Map<string, Promise<void>>>();

export class ExportRecords implements AccountExports {
  readonly table: string;
  private readonly t: string;

  constructor(
    private readonly db: Database,
    private readonly users: string,
    private readonly now: () => number = Date.now,
  ) {
    this.table = exportsTable(users);
    this.t = q(this.table);
  }

  /** Makes the table once per database and process (again after a `db reset` dropped it). */
  ready(): Promise<void> {
    let tables = made.get(this.db);
    if (tables === undefined) made.set(this.db, (tables = new Map()));
    let making = tables.get(this.table);
    if (making === undefined) {
      making = this.db.script(this.ddl()).catch((error: unknown) => {
        const code = (error as { code?: unknown }).code;
        if (code === "23505" || code === "42P07" || code === "42710") return; // two processes making it at once
        tables?.delete(this.table);
        throw error;
      });
      tables.set(this.table, making);
    }
    return making;
  }

  private ddl(): string {
    return (
      `CREATE TABLE IF NOT EXISTS ${this.t} (\n` +
      `  "id" text PRIMARY KEY,\n` +
      `  "user_id" bigint NOT NULL REFERENCES ${q(this.users)} ("id") ON DELETE CASCADE,\n` +
      `  "page" text NOT NULL,\n` +
      `  "requested_ms" bigint NOT NULL,\n` +
      `  "ready_ms" bigint,\n` +
      `  "expires_ms" bigint,\n` +
      `  "size" bigint,\n` +
      `  "content" text,\n` +
      `  "archive" jsonb\n` +
      `);\n` +
      `CREATE INDEX IF NOT EXISTS ${q(`${this.table}_user`)} ON ${this.t} ("user_id", "requested_ms");\n`
    );
  }

  async request(userId: number, page: string): Promise<ExportAsked> {
    const jobs = runner;
    if (jobs === undefined) throw new Error("fw/db: no job runner makes exports here: fw/jobs' accountJobs() registers one (the generated route module calls it).");
    await this.ready();
    await jobs.prepare(this.db);
    const now = this.now();
    return this.db.transaction(async (tx) => {
      // Locks the user's row: two requests of one user count one after the other.
      await tx.query(`SELECT "id" FROM ${q(this.users)} WHERE "id" = $1 FOR UPDATE`, [userId]);
      const [latest] = (await tx.query(`SELECT "requested_ms", "ready_ms", "expires_ms" FROM ${this.t} WHERE "user_id" = $1 ORDER BY "requested_ms" DESC LIMIT 1`, [userId])).rows;
      if (latest !== undefined && latest["ready_ms"] === null && Number(latest["requested_ms"]) > now - EXPORT_GIVE_UP_MS) return { state: "pending", requestedAt: Number(latest["requested_ms"]) } as const;
      if (latest !== undefined && latest["ready_ms"] !== null && Number(latest["ready_ms"]) > now - EXPORT_INTERVAL_MS && Number(latest["expires_ms"]) > now) {
        return { state: "recent", readyAt: Number(latest["ready_ms"]), expiresAt: Number(latest["expires_ms"]) } as const;
      }
      const id = randomBytes(16).toString("base64url");
      await tx.query(`INSERT INTO ${this.t} ("id", "user_id", "page", "requested_ms") VALUES ($1, $2, $3, $4)`, [id, userId, `${page}/${id}`, now]);
      await jobs.enqueue(tx, { users: this.users, id });
      return { state: "queued" } as const;
    });
  }

  async latest(userId: number): Promise<ExportState | undefined> {
    await this.ready();
    const { rows } = await this.db.query(`SELECT "id", "requested_ms", "ready_ms", "expires_ms", "size" FROM ${this.t} WHERE "user_id" = $1 AND ("expires_ms" IS NULL OR "expires_ms" > $2) ORDER BY "requested_ms" DESC LIMIT 1`, [
      userId,
      this.now(),
    ]);
    return rows[0] === undefined ? undefined : stateOf(rows[0]);
  }

  async find(id: string, userId: number): Promise<ExportState | undefined> {
    const row = await this.madeRow(id, userId);
    return row === undefined ? undefined : stateOf(row);
  }

  async open(id: string, userId: number): Promise<ExportDownload | undefined> {
    const row = await this.madeRow(id, userId);
    if (row === undefined) return undefined;
    const day = new Date(Number(row["ready_ms"])).toISOString().slice(0, 10);
    if (typeof row["content"] === "string") {
      const bytes = Buffer.from(row["content"]);
      return { name: `my-data-${day}.json`, type: "application/json", size: bytes.length, open: async () => Readable.from([bytes]) };
    }
    const archive = (typeof row["archive"] === "string" ? JSON.parse(row["archive"]) : row["archive"]) as { key?: unknown; size?: unknown } | null;
    const keeper = fileKeeper();
    if (archive === null || typeof archive.key !== "string" || keeper === undefined) return undefined;
    const bytes = await keeper.open(archive.key);
    if (bytes === undefined) return undefined;
    return { name: `my-data-${day}.zip`, type: "application/zip", size: bytes.size, open: async () => bytes.stream };
  }

  async remove(id: string): Promise<void> {
    if (!ID.test(id)) return;
    await this.ready();
    await this.released(await this.db.query(`DELETE FROM ${this.t} WHERE "id" = $1 RETURNING "archive" ->> 'key' AS "key"`, [id]));
  }

  /** Deletes the expired exports, and those whose job gave up; answers how many. */
  async sweep(): Promise<number> {
    await this.ready();
    const now = this.now();
    const gone = await this.db.query(`DELETE FROM ${this.t} WHERE "expires_ms" <= $1 OR ("ready_ms" IS NULL AND "requested_ms" <= $2) RETURNING "archive" ->> 'key' AS "key"`, [now, now - EXPORT_GIVE_UP_MS]);
    await this.released(gone);
    return gone.rowCount;
  }

  /** The export the job is to make; undefined when it is gone (swept, or its user deleted). */
  async pending(id: string): Promise<PendingExport | undefined> {
    if (!ID.test(id)) return undefined;
    await this.ready();
    const [row] = (await this.db.query(`SELECT "id", "user_id", "page", "ready_ms" FROM ${this.t} WHERE "id" = $1`, [id])).rows;
    return row === undefined ? undefined : { id, userId: Number(row["user_id"]), page: String(row["page"]), made: row["ready_ms"] !== null };
  }

  /** Records export `id` as made (it expires `EXPORT_TTL_MS` from now): false when its row is gone meanwhile. */
  async made(id: string, content: ExportContent, size: number): Promise<{ readonly expiresAt: number } | undefined> {
    const now = this.now();
    const expiresAt = now + EXPORT_TTL_MS;
    const [json, archive] = "json" in content ? [content.json, null] : [null, JSON.stringify(content.archive)];
    const { rowCount } = await this.db.query(`UPDATE ${this.t} SET "ready_ms" = $2, "expires_ms" = $3, "size" = $4, "content" = $5, "archive" = $6::jsonb WHERE "id" = $1`, [id, now, expiresAt, size, json, archive]);
    return rowCount === 1 ? { expiresAt } : undefined;
  }

  /** The archive keys of user `id`'s exports, read in the transaction that deletes the user. */
  async archivesOf(tx: Queryable, userId: number): Promise<string[]> {
    const { rows } = await tx.query(`SELECT "archive" ->> 'key' AS "key" FROM ${this.t} WHERE "user_id" = $1 AND "archive" IS NOT NULL`, [userId]);
    return rows.flatMap((row) => (typeof row["key"] === "string" ? [row["key"]] : []));
  }

  private async madeRow(id: string, userId: number): Promise<Row | undefined> {
    if (!ID.test(id)) return undefined;
    await this.ready();
    const { rows } = await this.db.query(`SELECT "id", "requested_ms", "ready_ms", "expires_ms", "size", "content", "archive" FROM ${this.t} WHERE "id" = $1 AND "user_id" = $2 AND "ready_ms" IS NOT NULL AND "expires_ms" > $3`, [
      id,
      userId,
      this.now(),
    ]);
    return rows[0];
  }

  /** The archives of deleted rows, for fw/files to delete. */
  private async released(gone: { readonly rows: readonly Row[] }): Promise<void> {
    const keys = gone.rows.flatMap((row) => (typeof row["key"] === "string" ? [row["key"]] : []));
    const keeper = fileKeeper();
    if (keys.length === 0 || keeper === undefined) return;
    await keeper.prepare(this.db);
    await keeper.release(this.db, keys);
  }
}

function stateOf(row: Row): ExportState {
  const number = (value: unknown): number | undefined => (value === null || value === undefined ? undefined : Number(value));
  const readyAt = number(row["ready_ms"]);
  const expiresAt = number(row["expires_ms"]);
  const size = number(row["size"]);
  return { id: String(row["id"]), requestedAt: Number(row["requested_ms"]), ...(readyAt === undefined ? {} : { readyAt }), ...(expiresAt === undefined ? {} : { expiresAt }), ...(size === undefined ? {} : { size }) };
}
