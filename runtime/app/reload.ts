import type { Worker } from "node:cluster";
import type { Console } from "./console.js";

/** How long a reload's new workers have to become ready before the reload is given up. */
export const RELOAD_READY_MS = 60_000;

/**
 * A reload of `--workers N` (SIGHUP to the primary): N new workers start on the build as it is on
 * disk now, beside the running ones; once every new one is ready (it has checked the migrations
 * and listens: the state `/fw/health` answers `ok` in), the old ones are told to drain: they stop
 * accepting, finish their in-flight requests, let their idle keep-alive connections end on their
 * own and exit. The primary's round-robin hands connections only to workers that listen, so no
 * connection is refused and no request dropped. A new worker that exits before it is ready (a
 * broken build, pending migrations), or new workers not ready within a minute, end the reload:
 * the new ones are stopped and the old ones serve on.
 */
export class Reload {
  /** The workers being replaced, still alive. */
  readonly #old = new Set<Worker>();
  /** The new workers, until they are all ready. */
  readonly #next = new Set<Worker>();
  readonly #ready = new Set<Worker>();
  /** Told to drain, their exit expected: a reload's old workers (`old`), a failed reload's new ones (`failed`). */
  readonly #draining = new Map<Worker, "old" | "failed">();
  /** Old workers that died during the reload: put back if it fails. */
  #lost = 0;
  #timer: NodeJS.Timeout | undefined;
  #replace: (() => unknown) | undefined;

  constructor(
    private readonly count: number,
    private readonly console: Console,
  ) {}

  /** Starts a reload: `forkNext` starts one new worker (and calls `started`), `replace` a plain one. */
  begin(alive: readonly Worker[], forkNext: () => unknown, replace: () => unknown): void {
    if (this.#next.size > 0) {
      this.console.err("fw: SIGHUP ignored: a reload is already under way");
      return;
    }
    this.#old.clear();
    for (const worker of alive) if (!this.#draining.has(worker)) this.#old.add(worker);
    this.#lost = 0;
    this.#replace = replace;
    this.console.out(`fw: reloading: starting ${this.count} worker processes on the current build; the ${this.#old.size} running serve until they are ready`);
    for (let i = 0; i < this.count; i++) forkNext();
    this.#timer = setTimeout(() => this.#fail(`the new workers were not ready within ${RELOAD_READY_MS / 1000} s`), RELOAD_READY_MS);
    this.#timer.unref();
  }

  started(worker: Worker): void {
    this.#next.add(worker);
  }

  /** A worker is ready; true when it is one of the reload's (the primary prints nothing for it). */
  ready(worker: Worker): boolean {
    if (!this.#next.has(worker)) return false;
    this.#ready.add(worker);
    if (this.#ready.size === this.count) this.#switch();
    return true;
  }

  /** A worker exited; true when the reload expected or handled it (the primary does nothing more). */
  exited(worker: Worker, how: string): boolean {
    const drained = this.#draining.get(worker);
    if (drained !== undefined) {
      this.#draining.delete(worker);
      const oldLeft = [...this.#draining.values()].includes("old");
      if (drained === "old" && !oldLeft) this.console.out("fw: reload done: the old worker processes finished their requests and exited");
      return true;
    }
    if (this.#next.has(worker)) {
      this.#fail(`a new worker (pid ${worker.process.pid}) exited ${how} before it was ready`);
      return true;
    }
    if (this.#old.delete(worker)) {
      this.console.err(`fw: worker pid ${worker.process.pid} exited ${how} during a reload; the new workers take its place`);
      this.#lost++;
      return true;
    }
    return false;
  }

  #switch(): void {
    clearTimeout(this.#timer);
    const pids = [...this.#next].map((worker) => worker.process.pid).join(", ");
    const old = [...this.#old];
    this.#next.clear();
    this.#ready.clear();
    this.#old.clear();
    this.console.out(`fw: reloaded: ${this.count} new worker processes serving (pids ${pids}); draining the ${old.length} old ones`);
    for (const worker of old) this.#drain(worker, "old");
    if (old.length === 0) this.console.out("fw: reload done");
  }

  #fail(why: string): void {
    clearTimeout(this.#timer);
    const next = [...this.#next];
    this.#next.clear();
    this.#ready.clear();
    this.#old.clear();
    this.console.err(`fw: reload failed: ${why}; the running worker processes serve on. Fix the build, then send SIGHUP again.`);
    for (const worker of next) this.#drain(worker, "failed");
    for (; this.#lost > 0; this.#lost--) this.#replace?.();
  }

  #drain(worker: Worker, why: "old" | "failed"): void {
    this.#draining.set(worker, why);
    if (worker.isConnected()) worker.send({ fw: "stop", drain: true }, undefined, () => undefined);
    else worker.process.kill("SIGTERM");
  }
}
