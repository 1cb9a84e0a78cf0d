import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InvalidJobPayload, JobQueue, JOBS_TABLE, type AnyJobSpec } from "../../runtime/jobs/index.js";
import { claimJobs } from "../../runtime/jobs/queue-sql.js";
import { enqueueDue, recurring, registerSchedules } from "../../runtime/jobs/schedules.js";
import { ensureJobsTable } from "../../runtime/jobs/table.js";
import { onEveryEngine, type EngineHandle } from "../db/engines.js";
import { gate, numbered, spec, until } from "./support.js";

type Row = {
  id: string;
  name: string;
  state: string;
  attempts: number;
  last_error: string | null;
  unique_key: string | null;
};

onEveryEngine((engine: EngineHandle) => {
  const queues: JobQueue[] = [];
  /** A queue on the engine's database that polls often (no assertion depends on it). */
  const queue = (specs: readonly AnyJobSpec[], options: { concurrency?: number; leaseMs?: number } = {}): JobQueue => {
    const made = new JobQueue(specs, { database: engine.db(), pollMs: 20, log: () => undefined, ...options });
    queues.push(made);
    return made;
  };
  const rows = async (): Promise<Row[]> => (await engine.db().query<Row>(`SELECT id::text AS id, name, state, attempts, last_error, unique_key FROM ${JOBS_TABLE} ORDER BY id`)).rows;

  beforeEach(async () => {
    await ensureJobsTable(engine.db());
    await engine.db().script(`DELETE FROM ${JOBS_TABLE}; DELETE FROM fw_job_schedules;`);
  });
  afterEach(async () => {
    await Promise.all(queues.splice(0).map((q) => q.stop(0)));
  });

  describe(`issue 32: fw/jobs on ${engine.name}`, () => {
    it("runs an enqueued job once with its payload and deletes it when it succeeds", async () => {
      const ran: { n: number; attempt: number }[] = [];
      const jobs = queue([spec<{ n: number }>("Count", (payload, job) => void ran.push({ n: payload.n, attempt: job.attempt }), numbered)]);
      await jobs.start();
      const enqueued = await jobs.enqueue("Count", { n: 7 });
      expect(enqueued.duplicate).toBe(false);
      await until(async () => (await rows()).length === 0 && ran.length === 1);
      expect(ran).toEqual([{ n: 7, attempt: 1 }]);
    });

    it("in dev, says on the terminal that a job ran (with its try past the first); elsewhere only failures are logged", async () => {
      const lines: string[] = [];
      let tries = 0;
      const count = spec<{ n: number }>("Count", () => undefined, numbered);
      const flaky = spec<{ n: number }>("Flaky", () => {
        if (++tries === 1) throw new Error("not yet");
      }, numbered, { backoffMs: 5, maxBackoffMs: 5 });
      const dev = new JobQueue([count, flaky], { database: engine.db(), pollMs: 20 });
      queues.push(dev);
      await dev.start({ dev: true, log: (line) => void lines.push(line) });
      await dev.enqueue("Count", { n: 1 });
      await dev.enqueue("Flaky", { n: 2 });
      await until(async () => tries === 2 && (await rows()).length === 0); // a run's line is written before its row is deleted
      const shown = lines.map((line) => line.replace(/#\d+/, "#N").replace(/\d+ ms/, "T ms").replace(/again in [\d.]+ s/, "again in S s")).sort();
      expect(shown).toEqual(["fw/jobs: Count #N ran in T ms", "fw/jobs: Flaky #N failed (try 1 of 20), tried again in S s: Error: not yet", "fw/jobs: Flaky #N ran in T ms (try 2 of 20)"]);
      await dev.stop(0);

      const quiet: string[] = [];
      const production = new JobQueue([count], { database: engine.db(), pollMs: 20 });
      queues.push(production);
      await production.start({ dev: false, log: (line) => void quiet.push(line) });
      await production.enqueue("Count", { n: 3 });
      await until(async () => (await rows()).length === 0);
      await production.stop(0);
      expect(quiet).toEqual([]);
    });

    it("refuses a payload that does not fit the job's type at enqueue, naming the job, its file and the path; nothing is stored", async () => {
      const jobs = queue([spec<{ n: number }>("Count", () => undefined, numbered)]);
      const refused = jobs.enqueue("Count", { n: "seven" } as never);
      await expect(refused).rejects.toBeInstanceOf(InvalidJobPayload);
      await expect(refused).rejects.toThrow(/the job Count \(src\/jobs\/Count\.ts\) does not fit its type: \$input\.n: expected number, got "seven"/);
      await expect(jobs.enqueue("Nope", {})).rejects.toThrow(/no job named "Nope"/);
      expect(await rows()).toEqual([]);
    });

    it("retries a job that throws with backoff, then marks it dead with its error kept", async () => {
      let tries = 0;
      const failing = spec<{ n: number }>("Fails", () => {
        tries++;
        throw new Error(`mail server said no (${tries})`);
      }, numbered, { maxAttempts: 3, backoffMs: 5, maxBackoffMs: 20 });
      const jobs = queue([failing]);
      await jobs.start();
      await jobs.enqueue("Fails", { n: 1 });
      await until(async () => (await rows())[0]?.state === "dead");
      const [dead] = await rows();
      expect(tries).toBe(3);
      expect(dead).toMatchObject({ state: "dead", attempts: 3 });
      expect(dead?.last_error).toMatch(/^Error: mail server said no \(3\)\n\s+at /);
    });

    it("waits the doubled backoff between tries (a failed job is not due before its run_at)", async () => {
      const jobs = queue([spec<{ n: number }>("Later", () => Promise.reject(new Error("no")), numbered, { backoffMs: 3_600_000, maxAttempts: 5 })]);
      await jobs.start();
      await jobs.enqueue("Later", { n: 1 });
      await until(async () => (await rows())[0]?.state === "failed");
      const due = await engine.db().query<{ wait: number }>(`SELECT extract(epoch FROM run_at - now())::float8 AS wait FROM ${JOBS_TABLE}`);
      // The first retry waits backoffMs less up to a tenth (jitter): about an hour, not at once.
      expect(due.rows[0]?.wait).toBeGreaterThan(3000);
      expect(due.rows[0]?.wait).toBeLessThanOrEqual(3600);
      expect(await claimJobs(engine.db(), "someone", ["Later"], 10, 1000)).toEqual([]);
    });

    it("aborts a hung try after its timeout, retries it, then marks it dead saying it timed out", async () => {
      const signals: AbortSignal[] = [];
      const hangs = spec<{ n: number }>("Hangs", (_payload, job) => {
        signals.push(job.signal);
        return new Promise<void>(() => undefined);
      }, numbered, { timeoutMs: 30, maxAttempts: 2, backoffMs: 1 });
      const jobs = queue([hangs]);
      await jobs.start();
      await jobs.enqueue("Hangs", { n: 1 });
      await until(async () => (await rows())[0]?.state === "dead");
      expect(signals.length).toBe(2);
      expect(signals.every((signal) => signal.aborted)).toBe(true);
      expect((await rows())[0]?.last_error).toMatch(/timed out after 30 ms \(the job's timeoutMs\)/);
    });

    it("marks dead at once a stored payload that no longer fits the type (a retry could not fix it)", async () => {
      await engine.db().query(`INSERT INTO ${JOBS_TABLE} (name, payload, max_attempts) VALUES ('Count', '{"n":"old shape"}', 5)`);
      const ran: unknown[] = [];
      const jobs = queue([spec<{ n: number }>("Count", (payload) => void ran.push(payload), numbered)]);
      await jobs.start();
      await until(async () => (await rows())[0]?.state === "dead");
      expect(ran).toEqual([]);
      expect((await rows())[0]).toMatchObject({ attempts: 1 });
      expect((await rows())[0]?.last_error).toMatch(/stored payload does not fit the job's type \(src\/jobs\/Count\.ts\): \$input\.n/);
    });

    it("does not run a job before its runAt or delay", async () => {
      const ran: number[] = [];
      const jobs = queue([spec<{ n: number }>("Count", (payload) => void ran.push(payload.n), numbered)]);
      await jobs.enqueue("Count", { n: 1 }, { runAt: new Date(Date.now() + 3_600_000) });
      await jobs.enqueue("Count", { n: 2 }, { delayMs: 3_600_000 });
      await jobs.enqueue("Count", { n: 3 });
      await jobs.start();
      // The handler ran, and its row is gone (deleted after the run, in a statement of its own: a check at the run alone raced it).
      await until(async () => ran.length === 1 && (await rows()).length === 2);
      expect(ran).toEqual([3]);
      expect((await rows()).map((row) => row.state)).toEqual(["queued", "queued"]);
      // Due now: they run.
      await engine.db().query(`UPDATE ${JOBS_TABLE} SET run_at = now()`);
      await until(() => ran.length === 3);
      expect(ran.slice(1).sort()).toEqual([1, 2]);
    });

    it("adds a unique job once while it waits, and again once it is done", async () => {
      const release = gate();
      const ran: number[] = [];
      const jobs = queue([spec<{ n: number }>("Once", async (payload) => {
        ran.push(payload.n);
        await release.opened;
      }, numbered)]);
      const first = await jobs.enqueue("Once", { n: 1 }, { unique: "user:1" });
      const again = await jobs.enqueue("Once", { n: 2 }, { unique: "user:1" });
      const other = await jobs.enqueue("Once", { n: 3 }, { unique: "user:2" });
      expect(again).toEqual({ id: first.id, duplicate: true });
      expect(other.duplicate).toBe(false);
      await jobs.start();
      await until(() => ran.length === 2);
      // Running still counts.
      expect((await jobs.enqueue("Once", { n: 4 }, { unique: "user:1" })).duplicate).toBe(true);
      release.open();
      await until(async () => (await rows()).length === 0);
      expect((await jobs.enqueue("Once", { n: 5 }, { unique: "user:1" })).duplicate).toBe(false);
      expect(ran.sort()).toEqual([1, 3]);
    });

    it("enqueues inside a transaction: nothing if it rolls back, the job once it commits", async () => {
      const ran: number[] = [];
      const jobs = queue([spec<{ n: number }>("Count", (payload) => void ran.push(payload.n), numbered)]);
      await expect(
        engine.db().transaction(async (tx) => {
          await jobs.enqueue("Count", { n: 1 }, { tx });
          throw new Error("the request failed");
        }),
      ).rejects.toThrow(/the request failed/);
      expect(await rows()).toEqual([]);
      await engine.db().transaction(async (tx) => {
        await jobs.enqueue("Count", { n: 2 }, { tx });
      });
      await jobs.start();
      await until(() => ran.length === 1);
      expect(ran).toEqual([2]);
    });

    it("takes back a job whose lease ran out (its process was killed) and runs it again", async () => {
      const ran: number[] = [];
      const jobs = queue([spec<{ n: number }>("Count", (payload, job) => void ran.push(job.attempt), numbered)], { leaseMs: 200 });
      // A process claimed it and died: the row is running, its lease over.
      await engine.db().query(`INSERT INTO ${JOBS_TABLE} (name, payload, max_attempts, state, attempts, locked_by, locked_until) VALUES ('Count', '{"n":1}', 5, 'running', 1, 'dead-process', now() - interval '1 second')`);
      await jobs.start();
      await until(() => ran.length === 1);
      expect(ran).toEqual([2]);
    });

    it("two workers on one database run each job exactly once (FOR UPDATE SKIP LOCKED)", async () => {
      const runs = new Map<number, number>();
      const count = spec<{ n: number }>("Count", async (payload) => {
        runs.set(payload.n, (runs.get(payload.n) ?? 0) + 1);
        await new Promise((done) => setImmediate(done));
      }, numbered);
      const a = queue([count], { concurrency: 4 });
      const b = queue([count], { concurrency: 4 });
      for (let n = 0; n < 200; n++) await a.enqueue("Count", { n });
      await Promise.all([a.start(), b.start()]);
      await until(async () => (await rows()).length === 0 && runs.size === 200);
      expect([...runs.values()].every((times) => times === 1)).toBe(true);
    });

    it("stop: lets a running job finish within the grace; queued jobs stay queued", async () => {
      const release = gate();
      const started = gate();
      const ran: number[] = [];
      const jobs = queue([spec<{ n: number }>("Slow", async (payload) => {
        started.open();
        await release.opened;
        ran.push(payload.n);
      }, numbered)], { concurrency: 1 });
      await jobs.enqueue("Slow", { n: 1 });
      await jobs.start();
      await started.opened;
      await jobs.enqueue("Slow", { n: 2 });
      const stopping = jobs.stop(60_000);
      release.open();
      await stopping;
      expect(ran).toEqual([1]);
      expect((await rows()).map((row) => [row.state, row.attempts])).toEqual([["queued", 0]]);
    });

    it("stop: a job still running after the grace is aborted and put back, its try not counted", async () => {
      const started = gate();
      let signal: AbortSignal | undefined;
      const jobs = queue([spec<{ n: number }>("Stuck", (_payload, job) => {
        signal = job.signal;
        started.open();
        return new Promise<void>(() => undefined);
      }, numbered)]);
      await jobs.enqueue("Stuck", { n: 1 });
      await jobs.start();
      await started.opened;
      await jobs.stop(20);
      expect(signal?.aborted).toBe(true);
      expect(await rows()).toMatchObject([{ state: "queued", attempts: 0, last_error: null }]);
    });

    it("a recurring job's due time is enqueued once however many processes look at once", async () => {
      const schedule = await recurring({ name: "Nightly", source: "src/jobs/Nightly.ts", cron: "0 3 * * *", maxAttempts: 3 });
      await registerSchedules(engine.db(), [schedule]);
      await registerSchedules(engine.db(), [schedule]); // a second process booting: the time is kept
      const next = await engine.db().query<{ next_at: Date | string }>("SELECT next_at FROM fw_job_schedules");
      expect(new Date(next.rows[0]?.next_at as string).getUTCHours()).toBe(3);
      await engine.db().query("UPDATE fw_job_schedules SET next_at = now() - interval '1 minute'");
      const counts = await Promise.all([enqueueDue(engine.db(), [schedule]), enqueueDue(engine.db(), [schedule]), enqueueDue(engine.db(), [schedule])]);
      expect(counts.reduce((a, b) => a + b, 0)).toBe(1);
      expect(await rows()).toMatchObject([{ name: "Nightly", state: "queued", unique_key: expect.stringMatching(/^cron:/) }]);
      const moved = await engine.db().query<{ later: boolean }>("SELECT next_at > now() AS later FROM fw_job_schedules");
      expect(moved.rows[0]?.later).toBe(true);
    });

    it("a recurring job runs through the worker with the payload {}", async () => {
      const ran: unknown[] = [];
      const jobs = queue([spec<Record<string, never>>("Tick", (payload) => void ran.push(payload), () => [], { cron: "* * * * * *" })]);
      await jobs.start();
      await until(() => ran.length >= 1);
      expect(ran[0]).toEqual({});
    });

    it("refuses a cron text that is not a schedule, naming the job's file", async () => {
      const jobs = queue([spec("Bad", () => undefined, () => [], { cron: "every night" })]);
      await expect(jobs.start()).rejects.toThrow(/src\/jobs\/Bad\.ts: options\.cron "every night" is not a cron schedule/);
    });
  });
});

describe("issue 32: a job's options are checked when the queue is made", () => {
  it("names the file and the option", () => {
    expect(() => new JobQueue([spec("Bad", () => undefined, () => [], { maxAttempts: 0 })])).toThrow(/src\/jobs\/Bad\.ts: options\.maxAttempts must be a whole number of at least 1, not 0/);
    expect(() => new JobQueue([spec("Bad", () => undefined, () => [], { timeoutMs: 1.5 })])).toThrow(/options\.timeoutMs/);
  });
});

describe("issue 32: a recurring job's payload type must take {} (its runs have no payload)", () => {
  it("stops the start, naming the file", async () => {
    const jobs = new JobQueue([spec<{ n: number }>("Nightly", () => undefined, numbered, { cron: "0 3 * * *" })], { log: () => undefined });
    await expect(jobs.prepare()).rejects.toThrow(/src\/jobs\/Nightly\.ts runs on a schedule \(options\.cron\), so it runs with the payload \{\}, which does not fit its type: \$input\.n/);
  });
});
