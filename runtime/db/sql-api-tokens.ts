import type { ApiTokenRecord, ApiTokenStore } from "../auth/api-token-store.js";
import type { Queryable, Row } from "./database.js";
import { FirstUseTable } from "./first-use-table.js";
import { quoteIdentifier as q } from "./identifier.js";

/** The table fw/auth's per-user API tokens are kept in (`fw_` names are fw's), created on first use. */
export const API_TOKENS_TABLE = "fw_api_tokens";

/**
 * The table's DDL, made on first use (`CREATE TABLE IF NOT EXISTS`) outside the app's
 * migrations, as `fw_auth_tokens` is. No token is kept: its selector (the key) and the SHA-256
 * of its verifier. Its rows go with their user (a foreign key to the app's users table, ON
 * DELETE CASCADE). Scopes are one text of names separated by spaces (a name holds none).
 */
export function apiTokensTableSql(usersTable: string): string {
  return (
    `CREATE TABLE IF NOT EXISTS ${API_TOKENS_TABLE} (\n` +
    `  selector text PRIMARY KEY,\n` +
    `  verifier_hash text NOT NULL,\n` +
    `  user_id bigint NOT NULL REFERENCES ${q(usersTable)} ("id") ON DELETE CASCADE,\n` +
    `  name text NOT NULL,\n` +
    `  scopes text NOT NULL,\n` +
    `  created_ms bigint NOT NULL,\n` +
    `  expires_ms bigint NOT NULL,\n` +
    `  last_used_ms bigint\n` +
    `);\n` +
    `CREATE INDEX IF NOT EXISTS ${API_TOKENS_TABLE}_user ON ${API_TOKENS_TABLE} (user_id);\n`
  );
}

const COLUMNS = "selector, verifier_hash, user_id, name, scopes, created_ms, expires_ms, last_used_ms";

const table = new FirstUseTable();

/**
 * fw/auth's `ApiTokenStore` in the database: a token made in one process works in every other,
 * and a revoked one stops in all of them at once (each call asks the table, one statement).
 */
export class SqlApiTokens implements ApiTokenStore {
  constructor(
    private readonly db: Queryable,
    private readonly usersTable: string,
  ) {}

  /** One statement: inserted only while the user holds fewer than `max`. */
  async create(record: ApiTokenRecord, max: number): Promise<boolean> {
    const rows = await this.run(
      `INSERT INTO ${API_TOKENS_TABLE} (${COLUMNS}) SELECT $1, $2, $3, $4, $5, $6, $7, NULL ` +
        `WHERE (SELECT count(*) FROM ${API_TOKENS_TABLE} WHERE user_id = $3) < $8 RETURNING 1 AS made`,
      [record.selector, record.verifierHash, record.userId, record.name, record.scopes.join(" "), Math.trunc(record.createdAt), Math.trunc(record.expiresAt), max],
    );
    return rows.length === 1;
  }

  /**
   * One statement: the row, and (when the verifier hash is the row's and its last use is a
   * minute old or more) its last use set to now, in a data-modifying WITH. The row answered is
   * the one from before the write (a snapshot), which is all a call needs.
   */
  async use(selector: string, verifierHash: string, now: number, staleBefore: number): Promise<ApiTokenRecord | undefined> {
    const [row] = await this.run(
      `WITH touched AS (UPDATE ${API_TOKENS_TABLE} SET last_used_ms = $3 WHERE selector = $1 AND verifier_hash = $2 ` +
        `AND (last_used_ms IS NULL OR last_used_ms <= $4) RETURNING 1) ` +
        `SELECT ${COLUMNS} FROM ${API_TOKENS_TABLE} WHERE selector = $1`,
      [selector, verifierHash, Math.trunc(now), Math.trunc(staleBefore)],
    );
    return row === undefined ? undefined : recordOf(row);
  }

  async list(userId: number): Promise<readonly ApiTokenRecord[]> {
    return (await this.run(`SELECT ${COLUMNS} FROM ${API_TOKENS_TABLE} WHERE user_id = $1 ORDER BY created_ms DESC, selector`, [userId])).map(recordOf);
  }

  async revoke(userId: number, selector: string): Promise<boolean> {
    return (await this.run(`DELETE FROM ${API_TOKENS_TABLE} WHERE user_id = $1 AND selector = $2 RETURNING 1 AS gone`, [userId, selector])).length === 1;
  }

  async revokeAll(userId: number): Promise<number> {
    return (await this.run(`DELETE FROM ${API_TOKENS_TABLE} WHERE user_id = $1 RETURNING 1 AS gone`, [userId])).length;
  }

  async purgeExpired(now: number): Promise<number> {
    return (await this.run(`DELETE FROM ${API_TOKENS_TABLE} WHERE expires_ms <= $1 RETURNING 1 AS gone`, [Math.trunc(now)])).length;
  }

  private run(sql: string, params: readonly unknown[]): Promise<Row[]> {
    return table.query(this.db, apiTokensTableSql(this.usersTable), sql, params);
  }
}

function recordOf(row: Row): ApiTokenRecord {
  const lastUsed = row["last_used_ms"];
  return {
    selector: String(row["selector"]),
    verifierHash: String(row["verifier_hash"]),
    userId: Number(row["user_id"]),
    name: String(row["name"]),
    scopes: String(row["scopes"]).split(" ").filter((scope) => scope !== ""),
    createdAt: Number(row["created_ms"]),
    expiresAt: Number(row["expires_ms"]),
    lastUsedAt: lastUsed === null || lastUsed === undefined ? undefined : Number(lastUsed),
  };
}
