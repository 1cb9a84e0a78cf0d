import type { Audited, AuditEntry, AuditLog, AuditQuery, AuditRecord, AuditValue, Join } from "../admin/audit-log.js";
import type { Page } from "../resource/query.js";
import type { Database, Queryable, Row } from "./database.js";
import { joinedTransaction, type Joined } from "./joined.js";

/** The table fw/admin's audit log is kept in (`fw_` names are fw's), made on first use. */
export const AUDIT_TABLE = "fw_audit";

/**
 * The table's DDL, made on first use (`CREATE TABLE IF NOT EXISTS`) outside the app's
 * migrations, as fw's other tables are. No foreign key to the users table: a record outlives
 * the admin who made it (their email then is kept beside their key). Indexed for the back
 * office's filters: by model (and row), by admin, newest first.
 */
export const AUDIT_TABLE_SQL =
  `CREATE TABLE IF NOT EXISTS ${AUDIT_TABLE} (\n` +
  `  "id" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,\n` +
  `  "at" timestamptz NOT NULL DEFAULT now(),\n` +
  `  "actor_id" bigint NOT NULL,\n` +
  `  "actor_email" text NOT NULL,\n` +
  `  "action" text NOT NULL,\n` +
  `  "model" text NOT NULL,\n` +
  `  "row_key" text NOT NULL,\n` +
  `  "before" jsonb,\n` +
  `  "after" jsonb\n` +
  `);\n` +
  `CREATE INDEX IF NOT EXISTS ${AUDIT_TABLE}_model ON ${AUDIT_TABLE} ("model", "row_key", "id");\n` +
  `CREATE INDEX IF NOT EXISTS ${AUDIT_TABLE}_actor ON ${AUDIT_TABLE} ("actor_id", "id");\n`;

const made = new WeakMap<Queryable, Promise<void>>();

/**
 * fw/admin's audit log in the app's database: each admin write and its record in one
 * transaction (the stores of this database join it: fw/db's `SqlStore`, `SqlScopedStore` and
 * `SqlUsers`), so a change is never kept without its record, nor a record without its change.
 * A store of another kind (rows kept in memory) is written in the transaction's time, not in it.
 */
export class SqlAuditLog implements AuditLog {
  constructor(private readonly db: Database) {}

  async write<T>(work: (join: Join) => Promise<Audited<T>>): Promise<T> {
    await this.ready();
    return joinedTransaction(this.db, async (joined) => {
      const done = await work((store) => joining(store, joined));
      if (done.record !== undefined) await insert(joined.tx, done.record);
      if (done.after !== undefined) joined.afterCommit(done.after);
      return done.result;
    });
  }

  async list(query: AuditQuery): Promise<Page<AuditEntry>> {
    await this.ready();
    const params: unknown[] = [];
    const where: string[] = [];
    const add = (condition: string, value: unknown): void => {
      params.push(value);
      where.push(condition.replace("?", `$${params.length}`));
    };
    if (query.model !== undefined) add(`"model" = ?`, query.model);
    if (query.key !== undefined) add(`"row_key" = ?`, query.key);
    if (query.actor !== undefined) add(`"actor_id" = ?`, query.actor);
    const clause = where.length === 0 ? "" : ` WHERE ${where.join(" AND ")}`;
    const counted = countCap(query);
    params.push(counted ?? null);
    const cap = params.length;
    const total = await this.db.query(`SELECT count(*) AS n FROM (SELECT 1 FROM ${AUDIT_TABLE}${clause} LIMIT $${cap}) AS fw_counted`, params);
    params.pop();
    params.push(Math.max(0, Math.trunc(query.limit)), Math.max(0, Math.trunc(query.offset)));
    const { rows } = await this.db.query(
      `SELECT "id", "at", "actor_id", "actor_email", "action", "model", "row_key", "before", "after" FROM ${AUDIT_TABLE}${clause} ORDER BY "id" DESC LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    );
    return { rows: rows.map(entryOf), total: Number(total.rows[0]?.["n"] ?? 0) };
  }

  /** Makes the table once per process (again after a `db reset` dropped it). */
  private ready(): Promise<void> {
    let making = made.get(this.db);
    if (making === undefined) {
      making = this.db.script(AUDIT_TABLE_SQL).catch((error: unknown) => {
        const code = (error as { code?: unknown }).code;
        if (code === "23505" || code === "42P07" || code === "42710") return; // two processes making it at once
        made.delete(this.db);
        throw error;
      });
      made.set(this.db, making);
    }
    return making;
  }
}

/** A store joined to the write's transaction when it is one of this database's (its `within`), else itself. */
async function joining<S extends object>(store: S, joined: Joined): Promise<S> {
  const within = (store as { within?: (joined: Joined) => unknown }).within;
  if (typeof within !== "function") return store;
  const bound = (await within.call(store, joined)) as S | undefined;
  return bound ?? store;
}

function insert(tx: Queryable, record: AuditRecord): Promise<unknown> {
  return tx.query(`INSERT INTO ${AUDIT_TABLE} ("actor_id", "actor_email", "action", "model", "row_key", "before", "after") VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
    record.actor.id,
    record.actor.email,
    record.action,
    record.model,
    record.key,
    record.before === undefined ? null : JSON.stringify(record.before),
    record.after === undefined ? null : JSON.stringify(record.after),
  ]);
}

function entryOf(row: Row): AuditEntry {
  const before = jsonOf(row["before"]);
  const after = jsonOf(row["after"]);
  return {
    id: Number(row["id"]),
    at: row["at"] instanceof Date ? row["at"] : new Date(String(row["at"]).replace(" ", "T").replace(/([+-]\d\d)$/, "$1:00")),
    actor: { id: Number(row["actor_id"]), email: String(row["actor_email"]) },
    action: String(row["action"]) as AuditEntry["action"],
    model: String(row["model"]),
    key: String(row["row_key"]),
    ...(before === undefined ? {} : { before }),
    ...(after === undefined ? {} : { after }),
  };
}

/** A jsonb column as the driver gives it (parsed, or as text). */
function jsonOf(value: unknown): { readonly [field: string]: AuditValue } | undefined {
  if (value === null || value === undefined) return undefined;
  const parsed: unknown = typeof value === "string" ? JSON.parse(value) : value;
  return typeof parsed === "object" && parsed !== null ? (parsed as { readonly [field: string]: AuditValue }) : undefined;
}

/** A query's `countUpTo` when it is one (a whole number from 1); none counts every entry. */
function countCap(query: Pick<AuditQuery, "countUpTo">): number | undefined {
  const cap = query.countUpTo;
  return cap !== undefined && Number.isSafeInteger(cap) && cap > 0 ? cap : undefined;
}
