// Issue 40 item 7: the lifecycle of stored files, on a real PGlite database and a real disk
// storage: fw.files.delete deletes a file (and its variants) a row no longer holds, and leaves
// one a row holds; fw.files.sweep deletes uploads no row took once they are a day old (and not
// kept for a form), and nothing younger. The jobs run through fw/jobs' own worker, as in an app.
import { createHash } from "node:crypto";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../runtime/db/index.js";
import { openDatabase } from "../../runtime/db/index.js";
import { DiskStorage, FILES_TABLE, newStorageKey, SWEEP_JOB } from "../../runtime/files/index.js";
import { FileJobs } from "../../runtime/files/file-jobs.js";
import { FilesTable } from "../../runtime/files/files-table.js";
import type { StoredFile } from "../../runtime/resource/file-types.js";
import { removeFolder, tempFolder } from "./support.js";

let folder: string;
let db: Database;
let storage: DiskStorage;
let jobs: FileJobs;
const owner = { table: "posts", column: "cover" };

beforeAll(async () => {
  folder = tempFolder("fw-file-jobs-");
  db = await openDatabase({ directory: join(folder, "db"), env: {}, durable: false });
  await db.script(`CREATE TABLE posts (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, cover jsonb)`);
  storage = new DiskStorage(join(folder, "files"));
  jobs = new FileJobs(() => storage);
  await jobs.prepare({ database: db, dev: false, log: () => undefined });
  await jobs.start();
}, 120_000);

afterAll(async () => {
  await jobs?.stop(1000);
  await db?.close();
  removeFolder(folder);
});

/** Stores some bytes as an upload of posts.cover, recorded in fw_files, with a variant beside it. */
async function stored(text: string): Promise<StoredFile> {
  const key = newStorageKey();
  const bytes = Buffer.from(text);
  const info = { type: "text/plain", size: bytes.length, checksum: createHash("sha256").update(bytes).digest("hex") };
  await storage.put(key, { stream: Readable.from([bytes]) }, info);
  await storage.put(`${key}.thumb`, { stream: Readable.from([bytes]) }, info);
  const file = { key, name: `${text}.txt`, ...info };
  await new FilesTable(db).record(owner, file);
  return file;
}

async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`waited 15 s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("fw/files' jobs (PGlite, disk)", () => {
  it("fw.files.delete deletes a released file and its variants when no row holds it, and keeps one a row still holds", async () => {
    const gone = await stored("gone");
    const held = await stored("held");
    await db.query("INSERT INTO posts (cover) VALUES ($1::jsonb)", [JSON.stringify(held)]);
    await FileJobs.release(db, [gone.key, held.key]);
    await eventually("the released file to be deleted", async () => !(await storage.exists(gone.key)) && !(await storage.exists(`${gone.key}.thumb`)));
    expect((await db.query(`SELECT 1 FROM ${FILES_TABLE} WHERE key = $1`, [gone.key])).rows).toEqual([]);
    expect(await storage.exists(held.key)).toBe(true);
  });

  it("fw.files.sweep deletes day-old uploads no row took, and keeps younger ones, held ones and those kept for a form", async () => {
    const orphan = await stored("orphan");
    const young = await stored("young");
    const held = await stored("held-old");
    const kept = await stored("kept-old");
    await db.query("INSERT INTO posts (cover) VALUES ($1::jsonb)", [JSON.stringify(held)]);
    await new FilesTable(db).keep(kept);
    await db.query(`UPDATE ${FILES_TABLE} SET created_at = now() - interval '2 days' WHERE key = ANY($1::text[])`, [[orphan.key, held.key, kept.key]]);
    // Make the hourly schedule due now, as the clock would.
    await db.query("UPDATE fw_job_schedules SET next_at = now() - interval '1 second' WHERE name = $1", [SWEEP_JOB]);
    await eventually("the sweep to delete the orphan", async () => !(await storage.exists(orphan.key)));
    for (const file of [young, held, kept]) expect(await storage.exists(file.key), file.name).toBe(true);
  });

  it("a kept upload is taken once, by its own table and column, and not after its hour", async () => {
    const files = new FilesTable(db);
    const file = await stored("form");
    const token = await files.keep(file);
    expect(await files.claim({ table: "posts", column: "other" }, token)).toBeUndefined();
    expect((await files.claim(owner, token))?.key).toBe(file.key);
    expect(await files.claim(owner, token)).toBeUndefined();
    const late = await files.keep(file);
    await db.query(`UPDATE ${FILES_TABLE} SET kept_at = now() - interval '2 hours' WHERE key = $1`, [file.key]);
    expect(await files.claim(owner, late)).toBeUndefined();
    expect(await files.claim(owner, "not a token")).toBeUndefined();
  });
});
