import { CannotOpenDatabase } from "./open-error.js";

/**
 * The names fw gives its SQL texts on a PostgreSQL server, so that each connection has the
 * server parse a statement once and then runs it by name (Bind, Execute) rather than sending,
 * parsing and planning its text on every execution, as pg does for an unnamed statement. The
 * embedded engine does the same in its own driver (pglite-session.ts). PostgreSQL still plans
 * a named statement's first executions for their values, and keeps a generic plan only when it
 * costs no more (its `plan_cache_mode`, left as the server sets it).
 *
 * Names are the pool's, not a connection's (pg tracks which of its connections has parsed
 * which name): a text keeps its name while the pool is open, and at most `budget` names are
 * ever given, so no connection holds more prepared statements than that; the texts that come
 * after run unnamed, as before. A text whose result changed under its statement (SQLSTATE
 * 0A000, a table altered by another process) and every text after a script (how fw changes
 * tables: migrations, the drift page, `db reset`) are named afresh: pg refuses one name for two
 * texts, and a connection's old statements stay on the server until it closes.
 */
export class StatementNames {
  private readonly names = new Map<string, string>();
  private given = 0;

  constructor(private readonly budget: number) {}

  /** The name to run `sql` under; undefined to run it unnamed (the budget is spent, or naming is off). */
  of(sql: string): string | undefined {
    const known = this.names.get(sql);
    if (known !== undefined || this.given >= this.budget) return known;
    const name = `fw_${++this.given}`;
    this.names.set(sql, name);
    return name;
  }

  /** `sql`'s result no longer matches its statement: the next execution prepares it under a new name. */
  renew(sql: string): void {
    this.names.delete(sql);
  }

  /** After a script: every text is prepared again under a new name. */
  renewAll(): void {
    this.names.clear();
  }
}

/** SQLSTATE of "cached plan must not change result type": a table changed under a prepared statement. */
export const RESULT_TYPE_CHANGED = "0A000";

/**
 * Names given per pool: PostgreSQL keeps each connection's prepared statements (their parse
 * trees, and a generic plan once chosen) until the connection closes, so this bounds the
 * server's memory per connection (Rails's default is 1,000 a connection; the embedded engine
 * keeps 200).
 */
export const STATEMENT_NAME_BUDGET = 500;

/** The environment variable that turns naming off (`off`): for a pooler that cannot keep a session's statements. */
export const PREPARE_ENV = "FW_PG_PREPARE";

/**
 * Whether `env` lets fw name its statements (unset, empty or `on`: yes; `off`: no, for a
 * connection pooler in transaction mode older than PgBouncer 1.21, which hands a session's
 * statements to another server connection). Another value is a `CannotOpenDatabase` naming
 * the variable and its values.
 */
export function preparesStatements(env: Readonly<Record<string, string | undefined>>): boolean {
  const value = env[PREPARE_ENV]?.trim() ?? "";
  if (value === "" || value === "on") return true;
  if (value === "off") return false;
  throw new CannotOpenDatabase(
    `fw/db: ${PREPARE_ENV}=${JSON.stringify(value)} is neither "on" nor "off": set it to "off" to send every statement unnamed ` +
      `(for a pooler in transaction mode that cannot keep prepared statements), or unset it (the default: each connection prepares a statement once).`,
  );
}
