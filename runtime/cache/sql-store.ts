import type { Database, Queryable } from "../db/database.js";
import type { CacheStore } from "./store.js";

/** The cache's table (`fw_` names are fw's), made on first use like fw/jobs' `fw_jobs`. */
export const CACHE_TABLE = "fw_cache";

/**
 * UNLOGGED: PostgreSQL writes no WAL for it, so a write costs about what a read does, and the
 * table is emptied after a crash (a cache may lose its entries; it must never slow the app's own
 * writes). Not replicated to standbys either: each reads its own primary's. The tags have a GIN
 * index (invalidating a tag is one indexed DELETE), expiry a b-tree (the sweep).
 */
export const CACHE_TABLE_SQL =
  `CREATE UNLOGGED TABLE IF NOT EXISTS ${CACHE_TABLE} (\n` +
  `  key text PRIMARY KEY,\n` +
  `  value text NOT NULL,\n` +
  `  tags text[] NOT NULL DEFAULT '{}',\n` +
  `  expires_at timestamptz NOT NULL\n` +
  `);\n` +
  `CREATE INDEX IF NOT EXISTS ${CACHE_TABLE}_tags ON ${CACHE_TABLE} USING gin (tags);\n` +
  `CREATE INDEX IF NOT EXISTS ${CACHE_TABLE}_expires ON ${CACHE_TABLE} (expires_at);\n`;

/** Two processes making the table at once take turns (an advisory lock of its own). */
const LOCK_KEY = 0x66776361; // "fwca"

const made = new WeakMap<Queryable, Promise<void>>();

function ensureTable(db: Database): Promise<void> {
  let making = made.get(db);
  if (making === undefined) {
    making = db
      .transaction(async (tx) => {
        await tx.query(`SELECT pg_advisory_xact_lock(${LOCK_KEY})`);
        await tx.script(CACHE_TABLE_SQL);
      })
      .catch((error: unknown) => {
        made.delete(db);
        throw error;
      });
    made.set(db, making);
  }
  return making;
}

/** SQLSTATE 42P01: the table is gone (`db reset` dropped it): made again on the next use. */
function isMissingTable(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "42P01";
}

/** A text[] as the driver hands it: an array (pg, PGlite), or its literal `{a,b}` from one that does not parse arrays. */
function tagsOf(value: string[] | string): string[] {
  if (Array.isArray(value)) return value;
  const inner = value.replace(/^\{|\}$/g, "");
  return inner === "" ? [] : inner.split(",").map((tag) => tag.replace(/^"|"$/g, ""));
}

/**
 * The cache in the app's database (PostgreSQL or the embedded PGlite): shared by every process of
 * the app, as Rails' Solid Cache keeps it, so there is one thing to run. One statement per get,
 * set, delete or invalidation.
 */
export class SqlCacheStore implements CacheStore {
  constructor(private readonly database: () => Database) {}

  async get(key: string): Promise<{ readonly text: string; readonly tags: readonly string[] } | undefined> {
    const result = await this.#query<{ value: string; tags: string[] | string }>(`SELECT value, tags FROM ${CACHE_TABLE} WHERE key = $1 AND expires_at > now()`, [key]);
    const row = result.rows[0];
    return row === undefined ? undefined : { text: row.value, tags: tagsOf(row.tags) };
  }

  async set(key: string, text: string, expiresAt: number, tags: readonly string[]): Promise<void> {
    await this.#query(
      `INSERT INTO ${CACHE_TABLE} (key, value, tags, expires_at) VALUES ($1, $2, $3::text[], to_timestamp($4::double precision / 1000)) ` +
        `ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, tags = EXCLUDED.tags, expires_at = EXCLUDED.expires_at`,
      [key, text, [...tags], expiresAt],
    );
  }

  async delete(keys: readonly string[]): Promise<void> {
    if (keys.length > 0) await this.#query(`DELETE FROM ${CACHE_TABLE} WHERE key = ANY($1::text[])`, [[...keys]]);
  }

  async invalidate(tags: readonly string[]): Promise<void> {
    if (tags.length > 0) await this.#query(`DELETE FROM ${CACHE_TABLE} WHERE tags && $1::text[]`, [[...tags]]);
  }

  async sweep(): Promise<void> {
    await this.#query(`DELETE FROM ${CACHE_TABLE} WHERE expires_at <= now()`);
  }

  async #query<R extends Record<string, unknown>>(sql: string, params: readonly unknown[] = []): Promise<{ rows: R[] }> {
    const db = this.database();
    await ensureTable(db);
    try {
      return await db.query<R>(sql, params);
    } catch (error) {
      if (!isMissingTable(error)) throw error;
      made.delete(db);
      await ensureTable(db);
      return db.query<R>(sql, params);
    }
  }
}
