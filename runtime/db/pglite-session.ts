import type { QueryResult, Row } from "./database.js";
import { RESULT_TYPE_CHANGED } from "./statement-names.js";
import { bindMessage, closeStatement, describeStatement, EXECUTE, parseMessage, readResponse, simpleQuery, SYNC, type WireField, type WireResponse } from "./pglite-wire.js";

/** The slice of a PGlite instance the session drives: its raw protocol entry and its type codecs. */
export interface PgliteWire {
  execProtocolRawStream(message: Uint8Array, options: { syncToFs?: boolean; onRawData: (bytes: Uint8Array) => void }): Promise<void>;
  /** Text to value by type OID (PGlite's, with fw's: dates stay text). */
  readonly parsers: Readonly<Record<number | string, (text: string, type?: number) => unknown>>;
  /** Value to text by type OID. */
  readonly serializers: Readonly<Record<number | string, (value: never) => string>>;
}

/** Makes the error a statement failed with, from the ErrorResponse's fields (PGlite's own DatabaseError). */
export type ErrorFactory = (fields: Readonly<Record<string, string>>, sql: string) => Error;

/** A statement prepared once and executed by name from then on. */
interface Prepared {
  readonly name: string;
  readonly params: readonly number[];
  /** undefined: the statement returns no rows. */
  readonly fields: readonly WireField[] | undefined;
}

/** Statements kept prepared at once; the least recently used is closed beyond it. */
const MAX_PREPARED = 200;
/** The commands whose tag counts the rows they wrote (as PGlite counts `affectedRows`). */
const WRITES: ReadonlySet<string> = new Set(["INSERT", "UPDATE", "DELETE", "COPY", "MERGE"]);

/**
 * fw's driver for the embedded engine (issue 30 item 5). PGlite's `query` makes six calls into
 * the engine per statement (Parse, Describe, Bind, Describe, Execute, Sync, each answer parsed
 * into message objects), and PostgreSQL parses and plans the statement every time: about
 * 220 µs of CPU for a read by key, measured on the bench's Show query. Here a statement is
 * prepared once under a name (Parse and Describe in one exchange, its parameter types and
 * columns kept), then each execution is one exchange (Bind, Execute, Sync) read in one pass:
 * about 30 µs. Values are converted with PGlite's own codecs by type OID, so rows read the same.
 *
 * The session does not order its callers: `PgliteDatabase` does (one statement or transaction
 * at a time). Each exchange runs to its Sync inside the engine before the next starts.
 *
 * A prepared statement keeps its plan while the tables it reads change (PostgreSQL plans it
 * again), but not its result's columns: a statement whose result changed fails with 0A000
 * once, and is prepared again (and, outside a transaction, run again at once). Scripts, how fw
 * changes tables (migrations, the drift page, `db reset`), make every statement prepared again.
 */
export class PgliteSession {
  private readonly prepared = new Map<string, Promise<Prepared>>();
  private counter = 0;
  /** Statements evicted from the cache, closed with the next exchange. */
  private toClose: string[] = [];
  /** Whether the engine is outside any transaction (its last ReadyForQuery said I). */
  private idle = true;

  constructor(
    private readonly pglite: PgliteWire,
    private readonly errorOf: ErrorFactory,
  ) {}

  /** One statement with parameters. */
  async query<R extends Row>(sql: string, params: readonly unknown[], retried = false): Promise<QueryResult<R>> {
    const statement = await this.statement(sql);
    const response = await this.exchange([bindMessage(statement.name, this.texts(statement, params)), EXECUTE, SYNC]);
    if (response.error !== undefined) {
      if (response.error["C"] !== RESULT_TYPE_CHANGED || retried) throw this.errorOf(response.error, sql);
      // The result's columns changed since it was prepared: prepared again; run again unless
      // that failure aborted a transaction.
      this.forget(sql, statement.name);
      if (!this.idle) throw this.errorOf(response.error, sql);
      return this.query<R>(sql, params, true);
    }
    return this.result<R>(statement.fields ?? [], response);
  }

  /** A script of statements without parameters (the simple protocol); every statement is prepared again after it. */
  async script(sql: string): Promise<void> {
    const response = await this.exchange([simpleQuery(sql)]);
    if (response.error !== undefined) throw this.errorOf(response.error, sql);
    if (!/^\s*(BEGIN|COMMIT|ROLLBACK)\s*;?\s*$/i.test(sql)) this.forgetAll();
  }

  private statement(sql: string): Promise<Prepared> {
    const known = this.prepared.get(sql);
    if (known !== undefined) {
      // Most recently used last: a Map iterates in insertion order.
      this.prepared.delete(sql);
      this.prepared.set(sql, known);
      return known;
    }
    const name = `fw_${++this.counter}`;
    const preparing = this.prepare(name, sql);
    this.prepared.set(sql, preparing);
    preparing.catch(() => this.prepared.get(sql) === preparing && this.prepared.delete(sql));
    if (this.prepared.size > MAX_PREPARED) {
      const [oldest, evicted] = this.prepared.entries().next().value as [string, Promise<Prepared>];
      this.prepared.delete(oldest);
      evicted.then((statement) => this.toClose.push(statement.name)).catch(() => undefined);
    }
    return preparing;
  }

  private async prepare(name: string, sql: string): Promise<Prepared> {
    const response = await this.exchange([parseMessage(name, sql), describeStatement(name), SYNC]);
    if (response.error !== undefined) throw this.errorOf(response.error, sql);
    return { name, params: response.params ?? [], fields: response.noData ? undefined : (response.fields ?? []) };
  }

  private forget(sql: string, name: string): void {
    if (this.prepared.has(sql)) this.prepared.delete(sql);
    this.toClose.push(name);
  }

  private forgetAll(): void {
    for (const [sql, statement] of this.prepared) {
      this.prepared.delete(sql);
      statement.then((s) => this.toClose.push(s.name)).catch(() => undefined);
    }
  }

  /** The parameters as text, by the types the engine inferred (PGlite's serializers; NULL for null and undefined). */
  private texts(statement: Prepared, params: readonly unknown[]): (string | null)[] {
    return params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serialize = this.pglite.serializers[statement.params[i] ?? 0] as ((value: unknown) => string) | undefined;
      return serialize === undefined ? String(value) : serialize(value);
    });
  }

  private result<R extends Row>(fields: readonly WireField[], response: WireResponse): QueryResult<R> {
    const parsers = fields.map((field) => this.pglite.parsers[field.type]);
    const rows = response.rows.map((values) => {
      const row: Row = {};
      for (let i = 0; i < fields.length; i++) {
        const text = values[i] ?? null;
        const parse = parsers[i];
        row[(fields[i] as WireField).name] = text === null ? null : parse === undefined ? text : parse(text, (fields[i] as WireField).type);
      }
      return row as R;
    });
    let written = 0;
    for (const tag of response.tags) {
      const words = tag.split(" ");
      if (WRITES.has(words[0] as string)) written += Number.parseInt(words[words.length - 1] as string, 10);
    }
    return { rows, rowCount: written || rows.length };
  }

  /**
   * Sends `messages` as one exchange; resolves with the engine's whole answer. Statements
   * evicted from the cache are closed first, with a Sync of their own, when no transaction is
   * open (a Close cannot fail there, so no error of theirs is taken for the statement's).
   */
  private async exchange(messages: readonly Buffer[]): Promise<WireResponse> {
    const closes = this.idle && this.toClose.length > 0 ? [...this.toClose.map(closeStatement), SYNC] : [];
    if (closes.length > 0) this.toClose = [];
    const chunks: Buffer[] = [];
    // The engine hands out views of its own memory, reused by the next call: copied.
    await this.pglite.execProtocolRawStream(Buffer.concat([...closes, ...messages]), { syncToFs: false, onRawData: (bytes) => chunks.push(Buffer.from(bytes)) });
    const response = readResponse(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
    this.idle = response.status === "I";
    return response;
  }
}
