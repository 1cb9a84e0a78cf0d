import type { Pool, PoolClient } from "pg";
import { loadDriver } from "./driver.js";
import type { Connection, Database, QueryResult, Queryable, Row } from "./database.js";
import { CannotOpenDatabase } from "./open-error.js";
import { dataProblem, failure, guarded, isConnectionError, Outage, withValues } from "./faults.js";
import { INT8, parseInt8, TEXT_TYPES } from "./values.js";
import { statementStarted, watched } from "../observe/statements.js";
import { addGaugeSource } from "../observe/gauges.js";
import { RESULT_TYPE_CHANGED, STATEMENT_NAME_BUDGET, StatementNames } from "./statement-names.js";

export interface PostgresOptions {
  /** A `postgres://` URL (`DATABASE_URL`). */
  readonly url: string;
  /** Connections in the pool. Default 10. */
  readonly max?: number;
  /** Where outage notices go. Default: stderr. */
  readonly log?: (line: string) => void;
  /**
   * Each connection prepares a statement once and runs it by name from then on (statement-names.ts).
   * Default true; false sends every statement unnamed (`FW_PG_PREPARE=off`), for a pooler that
   * cannot keep a session's prepared statements.
   */
  readonly prepare?: boolean;
}

/** Raised at boot when the server named by `DATABASE_URL` cannot be reached. */
export class DatabaseUnreachable extends CannotOpenDatabase {
  constructor(redacted: string, cause: unknown) {
    super(
      `fw/db: cannot connect to the PostgreSQL database named by DATABASE_URL (${redacted}): ${cause instanceof Error ? cause.message || cause.name : String(cause)}. ` +
        "Check that the server is running and that DATABASE_URL is right, or unset DATABASE_URL to use the embedded database.",
      { cause },
    );
    this.name = "DatabaseUnreachable";
  }
}

/**
 * The PostgreSQL engine: a pool of connections (pg), checked once at open. A connection lost
 * later turns the statement's failure into a 503 (`ServiceUnavailable`); the pool drops broken
 * connections and opens new ones, so requests succeed again once the server is back.
 */
export async function openPostgres(options: PostgresOptions): Promise<Database> {
  const redacted = redactUrl(options.url);
  const pg = (await loadDriver("pg", () => import("pg"))).default;
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.max ?? 10,
    connectionTimeoutMillis: 5_000,
    // pg types getTypeParser as a set of overloads keyed by type ids; one function covering them
    // all cannot be written against them, hence the cast.
    types: { getTypeParser: ((oid: number, format?: "text" | "binary") => typeParser(pg.types.getTypeParser, oid, format)) as never },
  });
  const log = options.log ?? ((line: string) => console.error(line));
  const outage = new Outage(`PostgreSQL at ${redacted}`, log);
  // An idle connection that dies (the server restarts) is reported here; without a listener
  // Node would end the process. The pool has already dropped it.
  pool.on("error", (error) => outage.failed(error));
  try {
    await pool.query("SELECT 1");
  } catch (cause) {
    await pool.end().catch(() => undefined);
    throw new DatabaseUnreachable(redacted, cause);
  }
  addGaugeSource({
    name: "fw_db_pool_connections",
    help: "Connections of fw/db's PostgreSQL pool: all open ones (total), those free (idle), and statements waiting for one (waiting).",
    labelNames: ["state"],
    aggregate: "sum",
    collect: () => [
      { labels: { state: "total" }, value: pool.totalCount },
      { labels: { state: "idle" }, value: pool.idleCount },
      { labels: { state: "waiting" }, value: pool.waitingCount },
    ],
  });
  return new PostgresDatabase(pool, outage, `PostgreSQL at ${redacted}`, new StatementNames(options.prepare === false ? 0 : STATEMENT_NAME_BUDGET));
}

function typeParser(fallback: (oid: number, format?: "text" | "binary") => unknown, oid: number, format?: "text" | "binary"): unknown {
  if (format !== "binary" && oid === INT8) return parseInt8;
  if (format !== "binary" && TEXT_TYPES.includes(oid)) return (text: string) => text;
  return fallback(oid, format);
}

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const user = parsed.username === "" ? "" : `${decodeURIComponent(parsed.username)}@`;
    return `${parsed.protocol}//${user}${parsed.host}${parsed.pathname}`;
  } catch {
    return "an unreadable URL";
  }
}

class PostgresDatabase implements Database {
  readonly engine = "postgres" as const;

  constructor(
    private readonly pool: Pool,
    private readonly outage: Outage,
    readonly description: string,
    private readonly names: StatementNames,
  ) {}

  /**
   * `guarded(withValues(pool.query))` written as one promise: every statement of every page
   * comes through here. The three nested functions cost some eight promises a statement
   * (bench/FINDINGS.md 20), an async function around pg's promise four; pg's callback form and
   * one promise of ours cost one (FINDINGS 26). The same outcomes: a data exception of the
   * values is the 400, a connection failure the 503, anything else as it is.
   */
  query<R extends Row = Row>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
    return new Promise((resolve, reject) => send(this.pool, this.outage, this.names, sql, params ?? NO_PARAMS, resolve as (result: QueryResult) => void, reject));
  }

  script(sql: string): Promise<void> {
    return guarded(this.outage, async () => {
      try {
        await this.pool.query(sql);
      } finally {
        this.names.renewAll();
      }
    });
  }

  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.withConnection((connection) => connection.transaction(work));
  }

  withConnection<T>(work: (connection: Connection) => Promise<T>): Promise<T> {
    return guarded(this.outage, async () => {
      const client = await this.pool.connect();
      // A connection that dies between two statements of ours emits "error" with no pool
      // listener attached while it is checked out: keep it, so it is not an uncaught crash.
      let broken: Error | undefined;
      const onError = (error: Error): void => {
        broken = error;
      };
      client.on("error", onError);
      try {
        return await work(new ClientConnection(client, this.names));
      } catch (error) {
        // A failed connection must not go back to the pool for the next request.
        if (isConnectionError(error)) broken = error as Error;
        throw error;
      } finally {
        client.removeListener("error", onError);
        client.release(broken ?? false);
      }
    });
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

class ClientConnection implements Connection {
  constructor(
    private readonly client: PoolClient,
    private readonly names: StatementNames,
  ) {}

  /**
   * A statement on this connection, named as the pool's are. Its result changed under its
   * statement (0A000): prepared afresh the next time, not run again here, since the failure may
   * have aborted a transaction around it.
   */
  async query<R extends Row = Row>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
    const name = this.names.of(sql);
    try {
      return resultOf<R>(await watched(sql, "postgres", () => withValues(params, () => this.client.query(name === undefined ? sql : { name, text: sql }, [...params]))));
    } catch (error) {
      if (name !== undefined && sqlState(error) === RESULT_TYPE_CHANGED) this.names.renew(sql);
      throw error;
    }
  }

  /** No parameters: pg sends it over the simple protocol, which runs several statements. */
  async script(sql: string): Promise<void> {
    try {
      await this.client.query(sql);
    } finally {
      this.names.renewAll();
    }
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    await this.client.query("BEGIN");
    let result: T;
    try {
      result = await work(this);
    } catch (error) {
      await this.client.query("ROLLBACK").catch(() => undefined);
      throw error;
    }
    await this.client.query("COMMIT");
    return result;
  }
}

const NO_PARAMS: readonly unknown[] = [];

/**
 * Sends one statement through the pool with pg's callback, settling `resolve` or `reject`: a
 * function of its own, so the callback a pending statement keeps alive closes over one context
 * (these values) rather than three (the method's parameters, its body's `end`, the promise's
 * executor): 40 % fewer slots held per statement waiting for the pool (bench/FINDINGS.md 37).
 * Named (statement-names.ts) unless the pool's names are spent or off.
 */
function send(
  pool: Pool,
  outage: Outage,
  names: StatementNames,
  sql: string,
  params: readonly unknown[],
  resolve: (result: QueryResult) => void,
  reject: (error: unknown) => void,
  renewed = false,
): void {
  // Metrics and traces watch statements when configured (observe/statements.ts); else nothing to call.
  const end = statementStarted(sql, "postgres");
  const name = names.of(sql);
  const done = (error: Error | undefined, result: { rows: unknown[]; rowCount: number | null }): void => {
    // Inside pg's own callback: nothing may throw out of here.
    try {
      end?.(error ?? undefined);
      if (error) {
        // A table changed under the statement (another process migrated it): prepared afresh and
        // run again once. Alone on its connection, outside any transaction, it changed nothing.
        if (name !== undefined && !renewed && sqlState(error) === RESULT_TYPE_CHANGED) {
          names.renew(sql);
          send(pool, outage, names, sql, params, resolve, reject, true);
          return;
        }
        reject(failure(outage, dataProblem(error, params) ?? error));
        return;
      }
      outage.succeeded();
      resolve(resultOf(result));
    } catch (thrown) {
      reject(thrown);
    }
  };
  if (name === undefined) pool.query(sql, [...params], done);
  else pool.query({ name, text: sql, values: [...params] }, done);
}

function sqlState(error: unknown): unknown {
  return typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
}

function resultOf<R extends Row>(result: { rows: unknown[]; rowCount: number | null }): QueryResult<R> {
  return { rows: result.rows as R[], rowCount: result.rowCount ?? result.rows.length };
}
