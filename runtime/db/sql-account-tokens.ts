import type { AccountTokens, TokenPurpose, TokenRecord } from "../auth/account-tokens.js";
import type { Queryable } from "./database.js";
import { FirstUseTable } from "./first-use-table.js";

/** The table fw/auth's emailed tokens wait in (`fw_` names are fw's), created on first use. */
export const TOKENS_TABLE = "fw_auth_tokens";

/**
 * The table's DDL. Made on first use (`CREATE TABLE IF NOT EXISTS`), outside the app's
 * migrations, as `fw_attempts` is: fw's bookkeeping, its shape fw's to change. No token is
 * kept: its selector (the key) and the SHA-256 of its verifier. No foreign key to the users
 * table (its name is the app's): a deleted user's tokens name nobody and fail the user check.
 */
export const TOKENS_TABLE_SQL =
  `CREATE TABLE IF NOT EXISTS ${TOKENS_TABLE} (\n` +
  `  selector text PRIMARY KEY,\n` +
  `  verifier_hash text NOT NULL,\n` +
  `  purpose text NOT NULL,\n` +
  `  user_id bigint NOT NULL,\n` +
  `  email text NOT NULL,\n` +
  `  data text NOT NULL,\n` +
  `  epoch text NOT NULL,\n` +
  `  expires_ms bigint NOT NULL\n` +
  `);\n` +
  `CREATE INDEX IF NOT EXISTS ${TOKENS_TABLE}_expires ON ${TOKENS_TABLE} (expires_ms);\n`;

const table = new FirstUseTable();

/** fw/auth's `AccountTokens` in the database: every process sees a token sent by another, and uses it once. */
export class SqlAccountTokens implements AccountTokens {
  constructor(private readonly db: Queryable) {}

  async save(record: TokenRecord): Promise<void> {
    await this.run(
      `INSERT INTO ${TOKENS_TABLE} (selector, verifier_hash, purpose, user_id, email, data, epoch, expires_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [record.selector, record.verifierHash, record.purpose, record.userId, record.email, record.data, record.epoch, Math.trunc(record.expiresAt)],
    );
  }

  async find(selector: string): Promise<TokenRecord | undefined> {
    const [row] = await this.run(`SELECT selector, verifier_hash, purpose, user_id, email, data, epoch, expires_ms FROM ${TOKENS_TABLE} WHERE selector = $1`, [selector]);
    if (row === undefined) return undefined;
    return {
      selector: String(row["selector"]),
      verifierHash: String(row["verifier_hash"]),
      purpose: String(row["purpose"]) as TokenPurpose,
      userId: Number(row["user_id"]),
      email: String(row["email"]),
      data: String(row["data"]),
      epoch: String(row["epoch"]),
      expiresAt: Number(row["expires_ms"]),
    };
  }

  /** One statement: of two concurrent uses, the row is deleted (and counted) once. */
  async take(selector: string, verifierHash: string): Promise<boolean> {
    return (await this.run(`DELETE FROM ${TOKENS_TABLE} WHERE selector = $1 AND verifier_hash = $2 RETURNING 1 AS taken`, [selector, verifierHash])).length === 1;
  }

  async purgeExpired(now: number): Promise<number> {
    return (await this.run(`DELETE FROM ${TOKENS_TABLE} WHERE expires_ms <= $1 RETURNING 1 AS gone`, [Math.trunc(now)])).length;
  }

  private run(sql: string, params: readonly unknown[]): Promise<Record<string, unknown>[]> {
    return table.query(this.db, TOKENS_TABLE_SQL, sql, params);
  }
}
