/**
 * `fw_files`: every file fw stored for a model's file field, with the table and column that may
 * hold it (issue 40). What lets fw delete a file no row holds: one a row dropped (a job,
 * promptly) and one no row ever took (an upload whose form was never saved: the sweep, a day
 * later). A failed form's upload is kept for the re-shown form by a token here, used once.
 * Made on first use (`CREATE … IF NOT EXISTS`), outside the app's migrations, as fw's other tables.
 */
import { randomBytes } from "node:crypto";
import type { Queryable } from "../db/database.js";
import { quoteIdentifier } from "../db/identifier.js";
import type { StoredFile } from "../resource/file-types.js";

export const FILES_TABLE = "fw_files";

export const FILES_TABLE_SQL =
  `CREATE TABLE IF NOT EXISTS ${FILES_TABLE} (\n` +
  `  key text PRIMARY KEY,\n` +
  `  owner_table text NOT NULL,\n` +
  `  owner_column text NOT NULL,\n` +
  `  info jsonb NOT NULL,\n` +
  `  keep_token text UNIQUE,\n` +
  `  kept_at timestamptz,\n` +
  `  created_at timestamptz NOT NULL DEFAULT now()\n` +
  `);\n` +
  `CREATE INDEX IF NOT EXISTS ${FILES_TABLE}_age ON ${FILES_TABLE} (owner_table, owner_column, created_at);\n`;

/** How long a failed form keeps its upload for the re-shown form (its `_kept.<field>` token). */
export const KEEP_MS = 60 * 60 * 1000;

/** How old a file no row holds must be before the sweep deletes it (longer than any form is kept). */
export const SWEEP_AGE_MS = 24 * 60 * 60 * 1000;

/** Where a file may be held: a model's table and the jsonb column of its file field. */
export interface FileOwner {
  readonly table: string;
  readonly column: string;
}

const made = new WeakMap<Queryable, Promise<void>>();

/** The file records of one database. */
export class FilesTable {
  constructor(private readonly db: Queryable) {}

  /** Records a file just stored for `owner` (no row holds it yet). */
  async record(owner: FileOwner, file: StoredFile): Promise<void> {
    await this.run(`INSERT INTO ${FILES_TABLE} (key, owner_table, owner_column, info) VALUES ($1, $2, $3, $4::jsonb) ON CONFLICT (key) DO NOTHING`, [
      file.key,
      owner.table,
      owner.column,
      JSON.stringify(infoOf(file)),
    ]);
  }

  /** A fresh token that brings `file` back once, for a re-shown form (`KEEP_MS`). */
  async keep(file: StoredFile): Promise<string> {
    const token = randomBytes(18).toString("base64url");
    await this.run(`UPDATE ${FILES_TABLE} SET keep_token = $1, kept_at = now() WHERE key = $2`, [token, file.key]);
    return token;
  }

  /**
   * The file a form's token keeps, taken (the token works once: two submissions of one form
   * cannot give one file to two rows), if it is `owner`'s and not older than `KEEP_MS`.
   */
  async claim(owner: FileOwner, token: string): Promise<StoredFile | undefined> {
    if (!/^[A-Za-z0-9_-]{24}$/.test(token)) return undefined;
    const [row] = await this.run(
      `UPDATE ${FILES_TABLE} SET keep_token = NULL WHERE keep_token = $1 AND owner_table = $2 AND owner_column = $3 AND kept_at > now() - make_interval(secs => $4) RETURNING key, info`,
      [token, owner.table, owner.column, KEEP_MS / 1000],
    );
    return row === undefined ? undefined : fileOf(String(row["key"]), row["info"]);
  }

  /** Where each of `keys` may be held, for those recorded (a file stored before fw_files existed has no record). */
  async owners(keys: readonly string[]): Promise<Map<string, FileOwner>> {
    const rows = await this.run(`SELECT key, owner_table, owner_column FROM ${FILES_TABLE} WHERE key = ANY($1::text[])`, [keys]);
    return new Map(rows.map((row) => [String(row["key"]), { table: String(row["owner_table"]), column: String(row["owner_column"]) }]));
  }

  /** Whether a row of `owner`'s table holds the file `key` in `owner`'s column. */
  async held(owner: FileOwner, key: string): Promise<boolean> {
    const rows = await this.run(`SELECT 1 AS held FROM ${quoteIdentifier(owner.table)} WHERE ${quoteIdentifier(owner.column)} ->> 'key' = $1 LIMIT 1`, [key]);
    return rows.length > 0;
  }

  /** Forgets the record of a deleted file. */
  async forget(key: string): Promise<void> {
    await this.run(`DELETE FROM ${FILES_TABLE} WHERE key = $1`, [key]);
  }

  /** Every table and column files were recorded for. */
  async ownersRecorded(): Promise<FileOwner[]> {
    const rows = await this.run(`SELECT DISTINCT owner_table, owner_column FROM ${FILES_TABLE}`, []);
    return rows.map((row) => ({ table: String(row["owner_table"]), column: String(row["owner_column"]) }));
  }

  /**
   * Up to `limit` files of `owner` no row holds, recorded longer ago than `SWEEP_AGE_MS` and not
   * kept for a form now: one query (an anti-join with the owner's table).
   */
  async unheld(owner: FileOwner, limit: number): Promise<string[]> {
    const rows = await this.run(
      `SELECT f.key FROM ${FILES_TABLE} f WHERE f.owner_table = $1 AND f.owner_column = $2 AND f.created_at < now() - make_interval(secs => $3) ` +
        `AND (f.keep_token IS NULL OR f.kept_at < now() - make_interval(secs => $4)) ` +
        `AND NOT EXISTS (SELECT 1 FROM ${quoteIdentifier(owner.table)} t WHERE t.${quoteIdentifier(owner.column)} ->> 'key' = f.key) LIMIT $5`,
      [owner.table, owner.column, SWEEP_AGE_MS / 1000, KEEP_MS / 1000, limit],
    );
    return rows.map((row) => String(row["key"]));
  }

  private async run(sql: string, params: readonly unknown[]): Promise<Record<string, unknown>[]> {
    await ensureTable(this.db);
    try {
      return (await this.db.query<Record<string, unknown>>(sql, params)).rows;
    } catch (error) {
      if ((error as { code?: unknown }).code !== "42P01" || !sql.includes(FILES_TABLE)) throw error; // undefined_table: `db reset` dropped it
      made.delete(this.db);
      await ensureTable(this.db);
      return (await this.db.query<Record<string, unknown>>(sql, params)).rows;
    }
  }
}

/** What a record keeps of a file besides its key: what the row would hold. */
function infoOf(file: StoredFile): Record<string, unknown> {
  const { key: _key, ...info } = file as StoredFile & Record<string, unknown>;
  delete info["url"];
  return info;
}

function fileOf(key: string, info: unknown): StoredFile {
  const data = (typeof info === "string" ? JSON.parse(info) : info) as Record<string, unknown>;
  return { ...data, key } as StoredFile;
}

function ensureTable(db: Queryable): Promise<void> {
  let making = made.get(db);
  if (making === undefined) {
    making = db.script(FILES_TABLE_SQL).catch((error: unknown) => {
      // Two processes making it at once: one wins, the other's IF NOT EXISTS can still collide.
      const code = (error as { code?: unknown }).code;
      if (code === "23505" || code === "42P07" || code === "42710") return;
      made.delete(db);
      throw error;
    });
    made.set(db, making);
  }
  return making;
}
