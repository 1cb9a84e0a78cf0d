import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, setProcessDatabase, type Database } from "../../runtime/db/index.js";
import { SqlAccountTokens } from "../../runtime/db/sql-account-tokens.js";
import type { Job, JobQueue } from "../../runtime/jobs/index.js";
import { until } from "./support.js";

// Issue 32, item 5: the example's recurring job, src/jobs/TrimGuestbook.ts (the guestbook keeps
// its newest 1,000 entries), as `npm run build` built it: its cron registered by the example's
// own generated jobs module, and a run through the worker trims the table. The example's built
// module (`npm run build` first); its `fw/db` and `fw/jobs` are fw's sources here (vitest's
// aliases), the same modules this test imports.
const built = (path: string): string => pathToFileURL(resolve(path)).href;

describe("issue 32: the example's nightly TrimGuestbook job", () => {
  type Queue = JobQueue & { readonly TrimGuestbook: Job<Record<string, never>>; readonly PurgeExpiredLinks: Job<Record<string, never>> };
  const dir = mkdtempSync(join(tmpdir(), "fw-example-jobs-"));
  let db: Database;
  let jobs: Queue;

  beforeAll(async () => {
    db = await openDatabase({ directory: dir, env: {}, durable: false });
    for (const migration of ["0001_create_users.sql", "0002_create_posts_notes_guestbook.sql"]) await db.script(readFileSync(join("example/db/migrations", migration), "utf8"));
    setProcessDatabase(db); // the example's guestbook uses processDatabase(), which DbApp sets
    jobs = ((await import(built("example/dist/.fw/jobs.js"))) as { jobs: Queue }).jobs;
  }, 120_000);
  afterAll(async () => {
    await jobs?.stop(0);
    await db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("is found by the build, registers its schedule (03:00 UTC) on prepare, and a run keeps the newest 1,000 entries", async () => {
    // Beside it: DeliverMail (the example's mail goes through a job) and the nightly PurgeExpiredLinks.
    expect(jobs.names).toEqual(["DeliverMail", "PurgeExpiredLinks", "TrimGuestbook"]);
    await jobs.prepare({ database: db, dev: false, log: (line) => process.stderr.write(`${line}\n`) });
    const [schedule] = (await db.query<{ name: string; cron: string; next_at: Date | string }>("SELECT name, cron, next_at FROM fw_job_schedules WHERE name = 'TrimGuestbook'")).rows;
    expect(schedule?.name).toBe("TrimGuestbook");
    expect(schedule?.cron).toBe("0 3 * * *");
    expect(new Date(schedule?.next_at as string).toISOString()).toMatch(/T03:00:00\.000Z$/);

    await db.query("INSERT INTO guestbook (name, message) SELECT 'Spam', 'Buy now ' || n FROM generate_series(1, 1005) AS n");
    await jobs.start();
    await jobs.TrimGuestbook.enqueue({});
    const left = async () => (await db.query<{ count: string | number; first: string | number }>("SELECT count(*) AS count, min(id) AS first FROM guestbook")).rows[0];
    await until(async () => Number((await left())?.count) === 1000);
    expect(Number((await left())?.first)).toBe(6);
  });

  it("PurgeExpiredLinks (04:00 UTC) deletes the emailed links that expired, and keeps the others", async () => {
    const [schedule] = (await db.query<{ cron: string }>("SELECT cron FROM fw_job_schedules WHERE name = 'PurgeExpiredLinks'")).rows;
    expect(schedule?.cron).toBe("0 4 * * *");
    const tokens = new SqlAccountTokens(db);
    const now = Date.now();
    for (const [selector, expiresAt] of [["expired-sign-up", now - 1], ["still-good", now + 3_600_000]] as const) {
      await tokens.save({ selector, verifierHash: "h", purpose: "confirm-signup", userId: 0, email: `${selector}@example.com`, data: "", epoch: "", expiresAt });
    }
    await jobs.PurgeExpiredLinks.enqueue({});
    await until(async () => (await tokens.find("expired-sign-up")) === undefined);
    expect((await tokens.find("still-good"))?.email).toBe("still-good@example.com");
  });
});
