import type { Queryable, Row } from "./database.js";

/**
 * One of fw's own tables made on first use (its DDL says `IF NOT EXISTS`), once per database:
 * every statement of its store runs through `query`, which makes the table before the first one
 * and again when `db reset` dropped it (undefined_table). Two processes making it at once: one
 * wins, and the other's collision (a unique violation in the catalog, or "already exists") is
 * taken as made.
 */
export class FirstUseTable {
  readonly #made = new WeakMap<Queryable, Promise<void>>();

  async query(db: Queryable, ddl: string, sql: string, params: readonly unknown[]): Promise<Row[]> {
    await this.ensure(db, ddl);
    try {
      return (await db.query(sql, params)).rows;
    } catch (error) {
      if ((error as { code?: unknown }).code !== "42P01") throw error; // undefined_table: `db reset` dropped it
      this.#made.delete(db);
      await this.ensure(db, ddl);
      return (await db.query(sql, params)).rows;
    }
  }

  private ensure(db: Queryable, ddl: string): Promise<void> {
    let making = this.#made.get(db);
    if (making === undefined) {
      making = db.script(ddl).catch((error: unknown) => {
        const code = (error as { code?: unknown }).code;
        if (code === "23505" || code === "42P07" || code === "42710") return;
        this.#made.delete(db);
        throw error;
      });
      this.#made.set(db, making);
    }
    return making;
  }
}
