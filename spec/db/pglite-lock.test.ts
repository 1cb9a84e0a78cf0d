import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CannotOpenDatabase, openDatabase } from "../../runtime/db/index.js";
import { lockDirectory, LOCK_FILE } from "../../runtime/db/pglite-lock.js";

let dir = "";
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "fw-lock-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("issue 20: one process at a time on an embedded database (PGlite has no lock of its own)", () => {
  it("a second open of the same directory is refused, naming the holder; after close it opens again", async () => {
    const db = await openDatabase({ directory: dir, env: {} });
    expect(readFileSync(join(dir, LOCK_FILE), "utf8")).toBe(String(process.pid));
    const second = openDatabase({ directory: dir, env: {} });
    await expect(second).rejects.toBeInstanceOf(CannotOpenDatabase);
    await expect(second).rejects.toThrow(`the embedded database in ${dir} is already open in this process: PGlite allows one process at a time`);
    await db.close();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    await (await openDatabase({ directory: dir, env: {} })).close();
  }, 120_000);

  it("a lock held by another live process is waited for, then refused naming its pid; a dead holder's lock is taken over", async () => {
    const holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
    try {
      writeFileSync(join(dir, LOCK_FILE), String(holder.pid));
      await expect(lockDirectory(dir, 300)).rejects.toThrow(`is already open in another process (pid ${holder.pid})`);
    } finally {
      holder.kill();
      await new Promise((done) => holder.on("close", done));
    }
    const release = await lockDirectory(dir, 300);
    expect(readFileSync(join(dir, LOCK_FILE), "utf8")).toBe(String(process.pid));
    release();
  });

  it("a lock released while another waits is taken by the waiter", async () => {
    const release = await lockDirectory(dir, 300);
    const holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
    writeFileSync(join(dir, LOCK_FILE), String(holder.pid));
    const waiting = lockDirectory(dir, 10_000);
    setTimeout(() => holder.kill(), 300);
    const second = await waiting;
    expect(readFileSync(join(dir, LOCK_FILE), "utf8")).toBe(String(process.pid));
    second();
    release();
  });
});
