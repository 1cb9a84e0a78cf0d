import cluster, { type Worker } from "node:cluster";
import type { Console } from "./console.js";
import { IN_WORKER_ENV } from "./workers-flag.js";
import { Reload } from "./reload.js";
import type { MetricsSettings } from "../observe/metrics-settings.js";
import type { PrimaryMetrics } from "../metrics/primary.js";

export interface PrimaryOptions {
  /** How many serving processes. */
  readonly count: number;
  /** The program arguments each worker is started with (`--workers` taken out). */
  readonly args: readonly string[];
  readonly console: Console;
  /** Metrics, when configured: the primary adds up its workers' and serves `FW_METRICS_PORT` (fw/metrics, loaded then only). */
  readonly metrics?: MetricsSettings | undefined;
}

/** What a worker tells its primary once it listens. */
interface Listening {
  readonly fw: "listening";
  readonly url: string;
  readonly routes: number;
}

/** A worker restarted sooner than this after the previous restart waits this long first (a crash loop). */
const RESTART_PAUSE_MS = 1_000;

/**
 * The primary of `--workers N` (node:cluster): it serves nothing itself. It starts one worker,
 * and once that one listens (so a boot problem, such as a missing FW_SECRET or pending
 * migrations, is reported once) the others; all share the one port (the primary accepts and
 * hands connections out round-robin). It prints one banner for all of them, starts a new worker
 * when one dies, and on SIGTERM or SIGINT tells every worker to stop gracefully and resolves with
 * 0 once all have exited. A worker that exits before it listened stops them all (exit code 1):
 * restarting a boot failure would only repeat it.
 *
 * SIGHUP reloads (reload.ts): N new workers start on the build as it is on disk now; once every
 * one of them is ready, the old ones drain. A new worker that fails to boot ends the reload, and
 * the old ones serve on.
 */
export async function runPrimary(options: PrimaryOptions): Promise<number> {
  let metrics: PrimaryMetrics | undefined;
  const serving = new Set<Worker>();
  if (options.metrics !== undefined) {
    const { primaryMetrics } = await import("../metrics/primary.js");
    metrics = await primaryMetrics(options.metrics, () => [...serving]);
    options.console.out(`fw: metrics of every worker on ${metrics.listener?.url ?? "each worker's /fw/metrics"}${metrics.listener === undefined ? "" : "/metrics"}`);
  }
  try {
    return await superviseWorkers(options, serving, metrics);
  } finally {
    await metrics?.close();
  }
}

function superviseWorkers(options: PrimaryOptions, serving: Set<Worker>, metrics: PrimaryMetrics | undefined): Promise<number> {
  const { count, console } = options;
  cluster.setupPrimary({ args: [...options.args] });
  const alive = new Set<Worker>();
  let stopping = false;
  let exitCode = 0;
  let announced = false;
  let lastRestart = 0;
  const reload = new Reload(count, console);

  return new Promise<number>((resolve) => {
    const fork = (next = false): Worker => {
      const worker = cluster.fork({ [IN_WORKER_ENV]: "1" });
      alive.add(worker);
      if (next) reload.started(worker);
      worker.on("error", () => undefined); // an IPC write to a worker that just exited (EPIPE)
      worker.on("message", (message: unknown) => {
        metrics?.message(worker, message);
        if (!isListening(message)) return;
        serving.add(worker);
        if (reload.ready(worker)) return;
        if (!announced && serving.size === 1) for (let i = 1; i < count; i++) fork();
        if (!announced && serving.size === count) {
          announced = true;
          console.out(`fw: serving ${message.routes} routes on ${message.url} (${count} worker processes, primary pid ${process.pid})`);
        } else if (announced) {
          console.out(`fw: worker pid ${worker.process.pid} serving`);
        }
      });
      worker.on("exit", (code, signal) => exited(worker, code, signal));
      return worker;
    };

    const exited = (worker: Worker, code: number | null, signal: string | null): void => {
      const how = signal === null ? `with code ${code}` : `on ${signal}`;
      alive.delete(worker);
      const listened = serving.delete(worker);
      if (stopping) {
        if (alive.size === 0) finish();
        return;
      }
      // A drained worker (a reload's old one, or a failed reload's new one) leaves as asked.
      if (reload.exited(worker, how)) return;
      if (!listened) {
        console.err(`fw: a worker (pid ${worker.process.pid}) exited ${how} before it served: stopping every worker.`);
        exitCode = 1;
        stop();
        return;
      }
      console.err(`fw: worker pid ${worker.process.pid} exited ${how}; starting another`);
      const now = Date.now();
      const pause = now - lastRestart < RESTART_PAUSE_MS ? RESTART_PAUSE_MS : 0;
      lastRestart = now + pause;
      setTimeout(() => stopping || fork(), pause);
    };

    const stop = (): void => {
      if (stopping) {
        // A second signal: stop now (what a second signal does to one process).
        for (const worker of alive) worker.process.kill("SIGKILL");
        return;
      }
      stopping = true;
      if (alive.size === 0) return finish();
      console.out(`fw: stopping ${alive.size} worker processes: finishing in-flight requests`);
      for (const worker of alive) {
        // A worker signalled along with the primary (Ctrl-C, a process-group kill) may have let
        // go of its channel already: it is stopping on its own, so a failed send is no matter.
        if (worker.isConnected()) worker.send({ fw: "stop" }, undefined, () => undefined);
        else worker.process.kill("SIGTERM");
      }
    };

    const finish = (): void => {
      process.off("SIGTERM", stop).off("SIGINT", stop).off("SIGHUP", hangUp);
      resolve(exitCode);
    };

    const hangUp = (): void => {
      if (stopping || !announced) {
        console.err(`fw: SIGHUP ignored: the workers are ${stopping ? "stopping" : "still starting"}`);
        return;
      }
      reload.begin([...alive], () => fork(true), () => fork());
    };

    process.on("SIGTERM", stop).on("SIGINT", stop).on("SIGHUP", hangUp);
    fork();
  });
}

function isListening(message: unknown): message is Listening {
  return typeof message === "object" && message !== null && (message as { fw?: unknown }).fw === "listening";
}
