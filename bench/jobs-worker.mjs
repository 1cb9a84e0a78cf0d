// One measurement of the jobs part (bench/jobs.mjs), in a fresh process each, printing one JSON
// line: `node bench/jobs-worker.mjs <side> <measure> '<options as JSON>'`.
//
//   sides:    fw-pg (fw/jobs on PostgreSQL), fw-pglite (fw/jobs on PGlite in this process),
//             pgboss-work (pg-boss's own worker, `work()`), pgboss-fetch (pg-boss's fetch and
//             complete, driven by loops without a poll wait)
//   measures: throughput: `jobs` no-op jobs enqueued first (enqueue jobs/s, 50 in flight), then
//             the workers started: jobs claimed and run per second until all ran or
//             `windowMs` passed, `concurrency` in flight;
//             latency: `samples` jobs one after the other, each enqueued 20 ms + up to `gapMs` at random after the last started:
//             enqueue call → handler start, in ms (same process, one clock). `via: "other"`
//             enqueues through a second queue on its own connections, which cannot wake this
//             process's worker (as a job enqueued by another process).
//
// The no-op job's payload `{ n: number }` is checked by a hand-written validator (the build's
// typia validator does the same typeof test) on fw's side; pg-boss checks nothing.
import { rmSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "./lib/util.mjs";

const [side, measure, json] = process.argv.slice(2);
const options = JSON.parse(json ?? "{}");
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
/**
 * The pause after a latency sample's start, at random up to `options.gapMs` (after at least
 * 20 ms): the worker is back to waiting when the next job comes, at any point of its poll, as
 * between real requests (a fixed pause would meet a poll at the same phase every time).
 */
const IDLE_MS = () => 20 + Math.random() * (options.gapMs ?? 50);

const validate = (input) =>
  typeof input === "object" && input !== null && typeof input.n === "number"
    ? { success: true, data: input }
    : { success: false, errors: [{ path: "$input.n", expected: "number", value: input?.n }] };

/** Runs `count` async calls, `inFlight` at a time. */
async function pooled(count, inFlight, call) {
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) await call(next++);
    }),
  );
}

/** The handler's side: counts runs, resolves `all` once `jobs` ran, and hands out each start's time. */
function counter(jobs) {
  let ran = 0;
  let onAll;
  const all = new Promise((done) => (onAll = done));
  let onStart;
  return {
    all,
    get ran() {
      return ran;
    },
    nextStart: () => new Promise((done) => (onStart = done)),
    run: (n = 1) => {
      const now = performance.now();
      ran += n;
      onStart?.(now);
      onStart = undefined;
      if (ran >= jobs) onAll();
    },
  };
}

async function fwSide(pglite) {
  const db = await import(pathToFileURL(join(ROOT, "dist/runtime/db/index.js")).href);
  const { JobQueue } = await import(pathToFileURL(join(ROOT, "dist/runtime/jobs/index.js")).href);
  const dir = pglite ? mkdtempSync(join(tmpdir(), "fw-bench-jobs-")) : undefined;
  // PGlite as production opens it (durable: a commit is on disk when it returns).
  const database = pglite ? await db.openDatabase({ directory: dir, env: {} }) : await db.openDatabase({ url: options.url, log: () => undefined });
  const count = counter(measure === "throughput" ? options.jobs : Infinity);
  const spec = { name: "Noop", source: "bench/jobs-worker.mjs", validate, run: () => count.run() };
  const log = (line) => process.stderr.write(`${line}\n`);
  const queue = new JobQueue([spec], { database, concurrency: options.concurrency, log });
  await queue.prepare();
  await database.query("DELETE FROM fw_jobs");
  const result = {};
  if (measure === "throughput") {
    const t0 = performance.now();
    await pooled(options.jobs, 50, (n) => queue.enqueue("Noop", { n }));
    result.enqueuePerSecond = options.jobs / ((performance.now() - t0) / 1000);
    const t1 = performance.now();
    await queue.start();
    await Promise.race([count.all, sleep(options.windowMs)]);
    result.ran = count.ran;
    result.perSecond = count.ran / ((performance.now() - t1) / 1000);
    await queue.stop(5000);
  } else {
    // The other queue: the same job on connections of its own; enqueueing there never wakes this worker.
    const other = options.via === "other" ? new JobQueue([spec], { database: pglite ? database : await db.openDatabase({ url: options.url, log: () => undefined }), log }) : queue;
    await queue.start();
    result.ms = [];
    for (let n = 0; n < options.samples; n++) {
      const started = count.nextStart();
      const t0 = performance.now();
      await other.enqueue("Noop", { n });
      result.ms.push((await started) - t0);
      await sleep(IDLE_MS());
    }
    await queue.stop(5000);
    if (other !== queue && !pglite) await other.database.close();
  }
  await database.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  return result;
}

async function pgbossSide(fetchLoops) {
  const { default: PgBoss } = await import("pg-boss");
  const boss = new PgBoss({ connectionString: options.url, max: 10 });
  boss.on("error", (error) => process.stderr.write(`pg-boss: ${error.message}\n`));
  await boss.start();
  const name = "noop";
  // From empty, as fw's side (an earlier round's jobs, completed ones included, would slow its statements).
  await boss.clearStorage();
  await boss.createQueue(name);
  const count = counter(measure === "throughput" ? options.jobs : Infinity);
  let stopping = false;
  const workers = async () => {
    if (!fetchLoops) {
      // pg-boss's own worker at its shortest poll (0.5 s), one job per fetch, `concurrency` workers.
      for (let i = 0; i < options.concurrency; i++) await boss.work(name, { batchSize: 1, pollingIntervalSeconds: 0.5 }, async (jobs) => count.run(jobs.length));
      return;
    }
    // Its fetch and complete, `concurrency` loops each holding one job, no poll wait while jobs come.
    for (let i = 0; i < options.concurrency; i++) {
      void (async () => {
        while (!stopping) {
          const jobs = await boss.fetch(name, { batchSize: 1 });
          if (jobs.length === 0) {
            await sleep(10);
            continue;
          }
          count.run(jobs.length);
          await boss.complete(name, jobs.map((job) => job.id));
        }
      })();
    }
  };
  const result = {};
  if (measure === "throughput") {
    const t0 = performance.now();
    await pooled(options.jobs, 50, (n) => boss.send(name, { n }));
    result.enqueuePerSecond = options.jobs / ((performance.now() - t0) / 1000);
    const t1 = performance.now();
    await workers();
    await Promise.race([count.all, sleep(options.windowMs)]);
    result.ran = count.ran;
    result.perSecond = count.ran / ((performance.now() - t1) / 1000);
  } else {
    await workers();
    result.ms = [];
    for (let n = 0; n < options.samples; n++) {
      const started = count.nextStart();
      const t0 = performance.now();
      await boss.send(name, { n });
      result.ms.push((await started) - t0);
      await sleep(IDLE_MS());
    }
  }
  stopping = true;
  await boss.stop({ graceful: true, wait: true, timeout: 5000 });
  return result;
}

const result = side === "fw-pg" ? await fwSide(false) : side === "fw-pglite" ? await fwSide(true) : side === "pgboss-work" ? await pgbossSide(false) : side === "pgboss-fetch" ? await pgbossSide(true) : undefined;
if (result === undefined) throw new Error(`unknown side ${side}`);
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
