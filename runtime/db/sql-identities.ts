import type { IdentityRecord, IdentityStore } from "../auth/identity-store.js";
import type { Queryable, Row } from "./database.js";
import { FirstUseTable } from "./first-use-table.js";
import { quoteIdentifier as q } from "./identifier.js";

/** The table linked provider accounts are kept in (`fw_` names are fw's), created on first use. */
export const IDENTITIES_TABLE = "fw_identities";

/** The table's DDL, made on first use outside the app's migrations: one row per linked account, going with its user. */
export function identitiesTableSql(usersTable: string): string {
  return (
    `CREATE TABLE IF NOT EXISTS ${IDENTITIES_TABLE} (\n` +
    `  provider text NOT NULL,\n` +
    `  subject text NOT NULL,\n` +
    `  user_id bigint NOT NULL REFERENCES ${q(usersTable)} ("id") ON DELETE CASCADE,\n` +
    `  email text NOT NULL,\n` +
    `  PRIMARY KEY (provider, subject)\n` +
    `);\n` +
    `CREATE INDEX IF NOT EXISTS ${IDENTITIES_TABLE}_user ON ${IDENTITIES_TABLE} (user_id);\n`
  );
}

const table = new FirstUseTable();

/** fw/auth's `IdentityStore` in the database: the primary key lets one (provider, subject) name one user. */
export class SqlIdentities implements IdentityStore {
  constructor(
    private readonly db: Queryable,
    private readonly usersTable: string,
  ) {}

  async find(provider: string, subject: string): Promise<IdentityRecord | undefined> {
    const [row] = await this.run(`SELECT provider, subject, user_id, email FROM ${IDENTITIES_TABLE} WHERE provider = $1 AND subject = $2`, [provider, subject]);
    return row === undefined ? undefined : recordOf(row);
  }

  async list(userId: number): Promise<readonly IdentityRecord[]> {
    return (await this.run(`SELECT provider, subject, user_id, email FROM ${IDENTITIES_TABLE} WHERE user_id = $1 ORDER BY provider`, [userId])).map(recordOf);
  }

  async link(record: IdentityRecord): Promise<boolean> {
    const rows = await this.run(`INSERT INTO ${IDENTITIES_TABLE} (provider, subject, user_id, email) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING 1 AS linked`, [
      record.provider,
      record.subject,
      record.userId,
      record.email,
    ]);
    return rows.length === 1;
  }

  async unlink(userId: number, provider: string): Promise<boolean> {
    return (await this.run(`DELETE FROM ${IDENTITIES_TABLE} WHERE user_id = $1 AND provider = $2 RETURNING 1 AS gone`, [userId, provider])).length > 0;
  }

  private run(sql: string, params: readonly unknown[]): Promise<Row[]> {
    return table.query(this.db, identitiesTableSql(this.usersTable), sql, params);
  }
}

function recordOf(row: Row): IdentityRecord {
  return { provider: String(row["provider"]), subject: String(row["subject"]), userId: Number(row["user_id"]), email: String(row["email"]) };
}
