import type { Connection, Database, QueryResult, Queryable, Row } from "./database.js";

/**
 * A database known at once and opened on first use: the app's database (open.ts), made before
 * the route table's stores and opened at boot, and the test app's database as a test reaches it
 * (fw/testing). A subclass says how to open it; this keeps the one open in flight, tries a
 * failed open again on the next call, and hands every statement to what it opened.
 */
export abstract class LazyDatabase implements Database {
  #opened: Promise<Database> | undefined;
  /** The database `#opened` resolved to, while it stays open: statements go to it without another `await`. */
  #ready: Database | undefined;

  constructor(
    readonly engine: Database["engine"],
    readonly description: string,
  ) {}

  /** Opens the database itself; called once, and again only after a failed open. */
  protected abstract openNow(): Promise<Database>;

  /** Opens the database once; a failed open is tried again on the next call. */
  open(): Promise<Database> {
    if (this.#opened === undefined) {
      const opening: Promise<Database> = this.openNow().then(
        (database) => {
          if (this.#opened === opening) this.#ready = database;
          return database;
        },
        (error: unknown) => {
          if (this.#opened === opening) this.#opened = undefined;
          throw error;
        },
      );
      this.#opened = opening;
    }
    return this.#opened;
  }

  /** Not `async`: once open, a statement costs no promise of this layer (every page's statements come through here). */
  query<R extends Row = Row>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
    const ready = this.#ready;
    return ready !== undefined ? ready.query<R>(sql, params) : this.open().then((database) => database.query<R>(sql, params));
  }

  async script(sql: string): Promise<void> {
    return (await this.open()).script(sql);
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return (await this.open()).transaction(work);
  }

  async withConnection<T>(work: (connection: Connection) => Promise<T>): Promise<T> {
    return (await this.open()).withConnection(work);
  }

  /** Closes what was opened, if anything was (an open that fails meanwhile leaves nothing to close). */
  async close(): Promise<void> {
    const opened = this.#opened;
    this.#opened = undefined;
    this.#ready = undefined;
    if (opened !== undefined) await (await opened.catch(() => undefined))?.close();
  }
}
