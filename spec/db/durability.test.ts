import fs, { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openDatabase, type Database } from "../../runtime/db/index.js";

// Issue 28 item 4: PGlite starts PostgreSQL with fsync off (-F), and on Node its file system
// does not pass fsync on to the disk even with fsync on. An app's database is durable unless
// told otherwise: every commit reaches the disk (an fsync of the host) before it is reported
// done. `durable: false` (what DbApp uses for `dev`) is PGlite's own default.
const dir = mkdtempSync(join(tmpdir(), "fw-durable-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function setting(db: Database, name: string): Promise<unknown> {
  return (await db.query(`SELECT current_setting($1) AS v`, [name])).rows[0]?.["v"];
}

/** The host fsyncs `work` causes (fsyncSync is what the embedded engine's file system calls). */
async function syncsDuring(work: () => Promise<void>): Promise<number> {
  const spy = vi.spyOn(fs, "fsyncSync");
  try {
    await work();
    return spy.mock.calls.length;
  } finally {
    spy.mockRestore();
  }
}

describe("issue 28: the embedded database's writes are durable unless told otherwise", () => {
  beforeAll(async () => {
    // The first open of a directory runs initdb: done once, here.
    const db = await openDatabase({ directory: dir, env: {}, durable: false });
    await db.script("CREATE TABLE entries (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, text text NOT NULL)");
    await db.close();
  }, 120_000);

  it("by default: fsync on, the WAL synced with fsync, and each commit reaches the disk before it resolves", async () => {
    const db = await openDatabase({ directory: dir, env: {} });
    try {
      expect(await setting(db, "fsync")).toBe("on");
      expect(await setting(db, "wal_sync_method")).toBe("fsync");
      const syncs = await syncsDuring(async () => {
        for (let i = 0; i < 5; i++) await db.query("INSERT INTO entries (text) VALUES ($1)", [`kept ${i}`]);
      });
      expect(syncs).toBeGreaterThanOrEqual(5);
    } finally {
      await db.close();
    }
    const again = await openDatabase({ directory: dir, env: {}, durable: false });
    expect((await again.query("SELECT count(*)::int AS n FROM entries")).rows[0]?.["n"]).toBe(5);
    await again.close();
  }, 60_000);

  it("durable: false (dev, tests) keeps PGlite's fsync off: no sync per write", async () => {
    const db = await openDatabase({ directory: dir, env: {}, durable: false });
    try {
      expect(await setting(db, "fsync")).toBe("off");
      const syncs = await syncsDuring(async () => {
        for (let i = 0; i < 5; i++) await db.query("INSERT INTO entries (text) VALUES ($1)", [`fast ${i}`]);
      });
      expect(syncs).toBe(0);
    } finally {
      await db.close();
    }
  }, 60_000);
});
