import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "../../runtime/db/index.js";
import { JobQueue, JOBS_TABLE, type AnyJobSpec } from "../../runtime/jobs/index.js";
import { ensureJobsTable } from "../../runtime/jobs/table.js";
import { noPostgresNotice, postgresBin, startCluster, type PostgresCluster } from "../support/postgres.js";
import { bootNode } from "../support/process.js";
import { numbered, spec, until } from "./support.js";

// The worker app runs from dist/: `npm run build` first (as for every test that boots an app).
const APP = resolve("spec/fixtures/jobs-worker/main.mjs");
const SECRET = "a-secret-for-the-jobs-worker-test-0123456789";

type Run = {
  n: number;
  pid: number;
  attempt: number;
};

const bin = postgresBin();
if (bin === undefined) noPostgresNotice();

describe.skipIf(bin === undefined)("issue 32: fw/jobs in several processes on one PostgreSQL database (DbApp, as served)", () => {
  let cluster: PostgresCluster | undefined;
  let db: Database;
  /** The test's own handle on the queue: it enqueues, the app processes run. */
  let queue: JobQueue;
  const cwd = mkdtempSync(join(tmpdir(), "fw-jobs-processes-"));

  beforeAll(async () => {
    cluster = await startCluster(bin as string);
    db = await openDatabase({ url: cluster.url, log: () => undefined });
    await db.script("CREATE TABLE job_runs (n integer NOT NULL, pid integer NOT NULL, attempt integer NOT NULL); CREATE TABLE job_releases (n integer PRIMARY KEY);");
    await ensureJobsTable(db);
    const noop = (name: string): AnyJobSpec => spec<{ n: number }>(name, () => undefined, numbered);
    queue = new JobQueue([noop("Record"), noop("Block")], { database: db });
  }, 120_000);
  afterAll(async () => {
    await db?.close();
    await cluster?.destroy();
    rmSync(cwd, { recursive: true, force: true });
  });
  /** Every app process a test started: a failed test must not leave one claiming the next test's jobs. */
  const started: ReturnType<typeof bootNode>[] = [];
  afterEach(async () => {
    for (const app of started.splice(0)) {
      if (app.child.exitCode === null && app.child.signalCode === null) app.child.kill("SIGKILL");
      await app.exited;
    }
  });
  beforeEach(async () => {
    await db.script(`DELETE FROM ${JOBS_TABLE}; DELETE FROM job_runs; DELETE FROM job_releases;`);
  });

  const boot = (env: Record<string, string> = {}, args: readonly string[] = []) => {
    const app = bootNode(APP, args, { DATABASE_URL: (cluster as PostgresCluster).url, FW_SECRET: SECRET, FW_ALLOWED_HOSTS: "127.0.0.1", ...env }, cwd);
    app.url.catch(() => undefined); // a test that kills the process before its banner does not wait for it
    started.push(app);
    return app;
  };
  const runs = async (): Promise<Run[]> => (await db.query<Run>("SELECT n, pid, attempt FROM job_runs ORDER BY n, attempt")).rows;
  const left = async (): Promise<{ n: number; state: string; attempts: number }[]> =>
    (await db.query<{ n: number; state: string; attempts: number }>(`SELECT (payload->>'n')::int AS n, state, attempts FROM ${JOBS_TABLE} ORDER BY id`)).rows;

  it("two processes run 300 jobs, each exactly once", async () => {
    for (let n = 0; n < 300; n++) await queue.enqueue("Record", { n });
    // One after the other: fw/db's migration ledger is made by the first boot (two at once race
    // on CREATE TABLE IF NOT EXISTS fw_migrations, a fw/db matter outside fw/jobs).
    const a = boot();
    await a.url;
    const b = boot();
    await b.url;
    await until(async () => (await left()).length === 0);
    a.child.kill("SIGTERM");
    b.child.kill("SIGTERM");
    expect(await Promise.all([a.exited, b.exited])).toEqual([0, 0]);
    const done = await runs();
    expect(done.map((run) => run.n)).toEqual([...Array(300).keys()]);
    expect(done.every((run) => run.attempt === 1)).toBe(true);
  });

  it("a SIGTERM as soon as the banner says it serves (its jobs still starting) is a graceful stop: exit 0", async () => {
    // The banner is printed by the server's boot; DbApp starts its jobs after it. A stop in
    // between used to find no handler yet and end the process with Node's default (exit null).
    for (let round = 0; round < 3; round++) {
      const app = boot();
      await app.url;
      app.child.kill("SIGTERM");
      expect(await app.exited).toBe(0);
    }
  });

  it("a job whose process is killed (kill -9) mid-job runs again in another process", async () => {
    await queue.enqueue("Block", { n: 1 });
    const a = boot({ LEASE_MS: "1000" });
    await until(async () => (await runs()).length === 1);
    a.child.kill("SIGKILL");
    await a.exited;
    await db.query("INSERT INTO job_releases (n) VALUES (1)");
    const b = boot({ LEASE_MS: "1000" });
    await until(async () => (await left()).length === 0);
    b.child.kill("SIGTERM");
    expect(await b.exited).toBe(0);
    expect(await runs()).toEqual([
      { n: 1, pid: a.child.pid, attempt: 1 },
      { n: 1, pid: b.child.pid, attempt: 2 },
    ]);
  });

  it("SIGTERM: the running job finishes (within the grace), the queued ones stay queued", async () => {
    await queue.enqueue("Block", { n: 2 });
    const app = boot({ CONCURRENCY: "1", GRACE_MS: "120000" });
    await until(async () => (await runs()).length === 1);
    await queue.enqueue("Record", { n: 3 });
    await queue.enqueue("Record", { n: 4 });
    app.child.kill("SIGTERM");
    // Still draining: the job is running, so the process waits for it.
    await until(() => app.output().out.includes("fw: stopping"));
    await db.query("INSERT INTO job_releases (n) VALUES (2)");
    expect(await app.exited).toBe(0);
    expect(await runs()).toEqual([{ n: 2, pid: app.child.pid, attempt: 1 }]);
    expect(await left()).toEqual([
      { n: 3, state: "queued", attempts: 0 },
      { n: 4, state: "queued", attempts: 0 },
    ]);
  });

  it("SIGTERM: a job still running after the grace is put back in the queue (its try not counted) and the process exits", async () => {
    await queue.enqueue("Block", { n: 5 });
    const app = boot({ GRACE_MS: "300" });
    await until(async () => (await runs()).length === 1);
    app.child.kill("SIGTERM");
    expect(await app.exited).toBe(0);
    expect(app.output().err).toMatch(/1 job\(s\) did not finish within 300 ms of the stop: put back in the queue \(Block #\d+\)/);
    expect(await left()).toEqual([{ n: 5, state: "queued", attempts: 0 }]);
  });

  it("`--workers 2`: each worker process runs jobs (one job each when each runs one at a time), and SIGTERM stops both", async () => {
    await queue.enqueue("Block", { n: 6 });
    await queue.enqueue("Block", { n: 7 });
    const primary = boot({ CONCURRENCY: "1" }, ["--workers", "2"]);
    await primary.url;
    // Each process holds one Block job and takes no second: both jobs run, in two processes.
    await until(async () => (await runs()).length === 2);
    const pids = new Set((await runs()).map((run) => run.pid));
    expect(pids.size).toBe(2);
    expect(pids.has(primary.child.pid as number)).toBe(false);
    await db.query("INSERT INTO job_releases (n) VALUES (6), (7)");
    await until(async () => (await left()).length === 0);
    primary.child.kill("SIGTERM");
    expect(await primary.exited).toBe(0);
  });
});
