import type { Database } from "fw/db";

/** A guestbook entry, as the `guestbook` table keeps it (example/db/migrations). */
export interface Entry {
  readonly id: number;
  readonly name: string;
  readonly message: string;
}

/**
 * The longest name and message an entry keeps (README: every text field has a maximum). The
 * form renders them as `maxlength` and Create refuses longer ones with a 422; `add` refuses
 * them too, and so does the table (varchar), so no other caller can store a megabyte.
 */
export const LIMITS = { name: 100, message: 2_000 } as const;

/**
 * A text's length in characters (code points): what the limits count, as the API's
 * `tags.MaxLength` (as fw compiles typia's tags), its OpenAPI document and the table's `varchar`
 * count them. An emoji is one character, where JavaScript's `length` says 2.
 */
export function characters(text: string): number {
  return [...text].length;
}

/** The first `limit` characters of `text` (never half an emoji). */
export function cut(text: string, limit: number): string {
  return [...text].slice(0, limit).join("");
}

/** The entries the guestbook keeps: each night the job src/jobs/TrimGuestbook.ts deletes older ones (a flood of spam does not grow the table for ever). */
export const KEPT_ENTRIES = 1_000;

/**
 * The example's hand-written guestbook, on the app's database: plain SQL through fw/db, with
 * the values always passed as parameters ($1, $2), never pasted into the statement.
 */
export class Guestbook {
  constructor(private readonly db: Database) {}

  /** Every entry, oldest first. */
  async list(): Promise<readonly Entry[]> {
    return (await this.db.query<Row>(`SELECT "id", "name", "message" FROM "guestbook" ORDER BY "id"`)).rows.map(entryOf);
  }

  /** The entry with this key; undefined for any other number, one no key can be (`1.5`, 2^63) included, which is never sent. */
  async find(id: number): Promise<Entry | undefined> {
    if (!Number.isSafeInteger(id) || id < 1) return undefined;
    const { rows } = await this.db.query<Row>(`SELECT "id", "name", "message" FROM "guestbook" WHERE "id" = $1`, [id]);
    return rows[0] === undefined ? undefined : entryOf(rows[0]);
  }

  async add(name: string, message: string): Promise<Entry> {
    if (characters(name) > LIMITS.name || characters(message) > LIMITS.message) {
      throw new RangeError(`A guestbook entry takes a name of at most ${LIMITS.name} characters and a message of at most ${LIMITS.message}.`);
    }
    const { rows } = await this.db.query<Row>(`INSERT INTO "guestbook" ("name", "message") VALUES ($1, $2) RETURNING "id", "name", "message"`, [name, message]);
    return entryOf(rows[0]!);
  }

  /** Deletes one entry; false when there was none. */
  async remove(id: number): Promise<boolean> {
    if (!Number.isSafeInteger(id) || id < 1) return false;
    const { rowCount } = await this.db.query(`DELETE FROM "guestbook" WHERE "id" = $1`, [id]);
    return rowCount > 0;
  }

  /** Deletes all but the newest `kept` entries (the highest keys); answers how many went. */
  async trim(kept: number): Promise<number> {
    const { rowCount } = await this.db.query(`DELETE FROM "guestbook" WHERE "id" <= (SELECT "id" FROM "guestbook" ORDER BY "id" DESC OFFSET $1 LIMIT 1)`, [kept]);
    return rowCount;
  }
}

type Row = { id: string | number; name: string; message: string };

/** `bigint` identity columns arrive as text from the driver: the key is a number here. */
function entryOf(row: Row): Entry {
  return { id: Number(row.id), name: row.name, message: row.message };
}
