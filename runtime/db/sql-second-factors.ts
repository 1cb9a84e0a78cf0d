import type { SecondFactorRecord, SecondFactorStore } from "../auth/second-factor-store.js";
import type { Queryable, Row } from "./database.js";
import { FirstUseTable } from "./first-use-table.js";
import { quoteIdentifier as q } from "./identifier.js";

/** The table fw/auth's second factors are kept in (`fw_` names are fw's), created on first use. */
export const SECOND_FACTORS_TABLE = "fw_second_factors";

/**
 * The table's DDL, made on first use outside the app's migrations (as `fw_api_tokens`): one row
 * per user with a second factor, going with the user (ON DELETE CASCADE). The TOTP secret is kept
 * as the authenticator app holds it (codes are computed from it); recovery codes only as SHA-256.
 */
export function secondFactorsTableSql(usersTable: string): string {
  return (
    `CREATE TABLE IF NOT EXISTS ${SECOND_FACTORS_TABLE} (\n` +
    `  user_id bigint PRIMARY KEY REFERENCES ${q(usersTable)} ("id") ON DELETE CASCADE,\n` +
    `  secret text NOT NULL,\n` +
    `  enabled boolean NOT NULL,\n` +
    `  last_step bigint NOT NULL,\n` +
    `  recovery text[] NOT NULL\n` +
    `);\n`
  );
}

const table = new FirstUseTable();

/** fw/auth's `SecondFactorStore` in the database: every process sees a code used by another, and refuses it. */
export class SqlSecondFactors implements SecondFactorStore {
  constructor(
    private readonly db: Queryable,
    private readonly usersTable: string,
  ) {}

  async get(userId: number): Promise<SecondFactorRecord | undefined> {
    const [row] = await this.run(`SELECT user_id, secret, enabled, last_step, recovery FROM ${SECOND_FACTORS_TABLE} WHERE user_id = $1`, [userId]);
    return row === undefined ? undefined : recordOf(row);
  }

  /** One statement: a row waiting replaces one waiting; an enabled one stays (nothing written). */
  async begin(userId: number, secret: string): Promise<boolean> {
    const rows = await this.run(
      `INSERT INTO ${SECOND_FACTORS_TABLE} (user_id, secret, enabled, last_step, recovery) VALUES ($1, $2, false, 0, '{}') ` +
        `ON CONFLICT (user_id) DO UPDATE SET secret = EXCLUDED.secret, last_step = 0, recovery = '{}' WHERE ${SECOND_FACTORS_TABLE}.enabled = false RETURNING 1 AS begun`,
      [userId, secret],
    );
    return rows.length === 1;
  }

  async enable(userId: number, step: number, recoveryHashes: readonly string[]): Promise<boolean> {
    const rows = await this.run(`UPDATE ${SECOND_FACTORS_TABLE} SET enabled = true, last_step = $2, recovery = $3 WHERE user_id = $1 AND enabled = false RETURNING 1 AS enabled`, [userId, step, [...recoveryHashes]]);
    return rows.length === 1;
  }

  async disable(userId: number): Promise<boolean> {
    return (await this.run(`DELETE FROM ${SECOND_FACTORS_TABLE} WHERE user_id = $1 RETURNING 1 AS gone`, [userId])).length === 1;
  }

  /** One statement: of two uses of one code (one time step), the row is updated once. */
  async useStep(userId: number, step: number): Promise<boolean> {
    return (await this.run(`UPDATE ${SECOND_FACTORS_TABLE} SET last_step = $2 WHERE user_id = $1 AND enabled AND last_step < $2 RETURNING 1 AS used`, [userId, step])).length === 1;
  }

  /** One statement: the hash leaves the array once. */
  async useRecoveryCode(userId: number, hash: string): Promise<boolean> {
    const rows = await this.run(`UPDATE ${SECOND_FACTORS_TABLE} SET recovery = array_remove(recovery, $2) WHERE user_id = $1 AND enabled AND $2 = ANY(recovery) RETURNING 1 AS used`, [userId, hash]);
    return rows.length === 1;
  }

  private run(sql: string, params: readonly unknown[]): Promise<Row[]> {
    return table.query(this.db, secondFactorsTableSql(this.usersTable), sql, params);
  }
}

function recordOf(row: Row): SecondFactorRecord {
  const recovery = row["recovery"];
  return {
    userId: Number(row["user_id"]),
    secret: String(row["secret"]),
    enabled: row["enabled"] === true,
    lastStep: Number(row["last_step"]),
    recoveryHashes: Array.isArray(recovery) ? recovery.map(String) : [],
  };
}
