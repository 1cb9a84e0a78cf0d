import type { PasskeyRecord, PasskeyStore } from "../auth/passkey-store.js";
import type { Queryable, Row } from "./database.js";
import { FirstUseTable } from "./first-use-table.js";
import { quoteIdentifier as q } from "./identifier.js";

/** The table fw/auth's passkeys are kept in (`fw_` names are fw's), created on first use. */
export const PASSKEYS_TABLE = "fw_passkeys";

/** The table's DDL, made on first use outside the app's migrations: one row per passkey, going with its user. */
export function passkeysTableSql(usersTable: string): string {
  return (
    `CREATE TABLE IF NOT EXISTS ${PASSKEYS_TABLE} (\n` +
    `  id text PRIMARY KEY,\n` +
    `  user_id bigint NOT NULL REFERENCES ${q(usersTable)} ("id") ON DELETE CASCADE,\n` +
    `  public_key text NOT NULL,\n` +
    `  counter bigint NOT NULL,\n` +
    `  transports text NOT NULL,\n` +
    `  name text NOT NULL,\n` +
    `  created_ms bigint NOT NULL,\n` +
    `  last_used_ms bigint\n` +
    `);\n` +
    `CREATE INDEX IF NOT EXISTS ${PASSKEYS_TABLE}_user ON ${PASSKEYS_TABLE} (user_id);\n`
  );
}

const COLUMNS = "id, user_id, public_key, counter, transports, name, created_ms, last_used_ms";
const table = new FirstUseTable();

/** fw/auth's `PasskeyStore` in the database: a passkey removed in one process is refused by all at once. */
export class SqlPasskeys implements PasskeyStore {
  constructor(
    private readonly db: Queryable,
    private readonly usersTable: string,
  ) {}

  async add(record: PasskeyRecord): Promise<boolean> {
    const rows = await this.run(`INSERT INTO ${PASSKEYS_TABLE} (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, NULL) ON CONFLICT DO NOTHING RETURNING 1 AS added`, [
      record.id,
      record.userId,
      record.publicKey,
      record.counter,
      record.transports.join(" "),
      record.name,
      Math.trunc(record.createdAt),
    ]);
    return rows.length === 1;
  }

  async find(id: string): Promise<PasskeyRecord | undefined> {
    const [row] = await this.run(`SELECT ${COLUMNS} FROM ${PASSKEYS_TABLE} WHERE id = $1`, [id]);
    return row === undefined ? undefined : recordOf(row);
  }

  async list(userId: number): Promise<readonly PasskeyRecord[]> {
    return (await this.run(`SELECT ${COLUMNS} FROM ${PASSKEYS_TABLE} WHERE user_id = $1 ORDER BY created_ms, id`, [userId])).map(recordOf);
  }

  async remove(userId: number, id: string): Promise<boolean> {
    return (await this.run(`DELETE FROM ${PASSKEYS_TABLE} WHERE user_id = $1 AND id = $2 RETURNING 1 AS gone`, [userId, id])).length === 1;
  }

  /** One statement: the counter moves forward once (or stays 0 for an authenticator that keeps none). */
  async use(id: string, counter: number, now: number): Promise<boolean> {
    const rows = await this.run(`UPDATE ${PASSKEYS_TABLE} SET counter = $2, last_used_ms = $3 WHERE id = $1 AND (counter < $2 OR (counter = 0 AND $2 = 0)) RETURNING 1 AS used`, [id, counter, Math.trunc(now)]);
    return rows.length === 1;
  }

  private run(sql: string, params: readonly unknown[]): Promise<Row[]> {
    return table.query(this.db, passkeysTableSql(this.usersTable), sql, params);
  }
}

function recordOf(row: Row): PasskeyRecord {
  const lastUsed = row["last_used_ms"];
  return {
    id: String(row["id"]),
    userId: Number(row["user_id"]),
    publicKey: String(row["public_key"]),
    counter: Number(row["counter"]),
    transports: String(row["transports"]).split(" ").filter((t) => t !== ""),
    name: String(row["name"]),
    createdAt: Number(row["created_ms"]),
    lastUsedAt: lastUsed === null || lastUsed === undefined ? undefined : Number(lastUsed),
  };
}
