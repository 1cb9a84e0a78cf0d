import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../runtime/db/index.js";

let dir = "";
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "fw-pglite-engine-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

// Issue 30 item 1: the embedded engine's memory (fw's settings).
describe("issue 30: the embedded engine's settings", () => {
  it("PostgreSQL starts with shared_buffers at 16MB", async () => {
    const db = await openDatabase({ directory: join(dir, "db"), env: {} });
    try {
      // PGlite's default is PostgreSQL's 128MB, all of it resident from the start.
      expect((await db.query<{ shared_buffers: string }>("SHOW shared_buffers")).rows[0]?.shared_buffers).toBe("16MB");
    } finally {
      await db.close();
    }
  }, 120_000);
});
