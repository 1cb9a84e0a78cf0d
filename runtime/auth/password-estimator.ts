import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/** What the estimator says of one password: its score (0–4) and, below 3, why and what to do. */
export interface Estimate {
  readonly score: number;
  readonly warning: string | null;
  readonly suggestions: readonly string[];
}

/** How long the estimator's thread waits for another check before it ends (its memory goes with it). */
export const ESTIMATOR_IDLE_MS = 60_000;

/**
 * The packages the thread loads: zxcvbn-ts, its English and common dictionaries and keyboard
 * graphs. Resolved by name, outside the import graph: fw bundle lists them as the bundle's
 * externals from its own copy of this list (runtime/dev/bundle.ts, RESOLVED_BY_NAME): change both.
 */
const PACKAGES = ["@zxcvbn-ts/core", "@zxcvbn-ts/language-common", "@zxcvbn-ts/language-en"] as const;

/**
 * The thread's program, given as text (`eval`) so that it runs from the sources in tests and
 * from any bundle alike, with no file of its own to find. It loads the packages named by
 * absolute path (`workerData`), builds the estimator once, and answers each `{ id, password,
 * inputs }` with `{ id, score, warning, suggestions }`, or `{ id, error }`.
 */
const PROGRAM = `
const { parentPort, workerData } = require("node:worker_threads");
let estimator;
const ready = () => (estimator ??= Promise.resolve().then(() => {
  const [core, common, en] = workerData.modules.map((path) => require(path));
  const factory = new core.ZxcvbnFactory({ translations: en.translations, graphs: common.adjacencyGraphs, dictionary: { ...common.dictionary, ...en.dictionary } });
  return (password, inputs) => factory.check(password, inputs);
}));
ready().catch(() => undefined);
parentPort.on("message", ({ id, password, inputs }) => {
  ready().then(
    (check) => {
      const { score, feedback } = check(password, inputs);
      parentPort.postMessage({ id, score, warning: feedback.warning ?? null, suggestions: feedback.suggestions });
    },
    (error) => parentPort.postMessage({ id, error: String(error && error.message ? error.message : error) }),
  );
});
`;

interface Pending {
  readonly resolve: (estimate: Estimate) => void;
  readonly reject: (error: Error) => void;
}

type Answer = { readonly id: number; readonly error: string } | ({ readonly id: number } & Estimate);

/**
 * zxcvbn-ts on a worker thread of its own. Building its dictionaries takes about half a second
 * and a check tens of milliseconds, all synchronous: on the event loop, every request waited
 * for them (bench/password-check-stall.mjs). The thread starts on the first check (an app that
 * takes no new password never pays its memory, about 90 MB), answers checks in turn, and ends
 * after `idleMs` without one; the next check starts it again, off the loop as well. A thread
 * that fails (its packages missing, a crash) rejects the checks it held, naming the estimator,
 * and the next check starts afresh. It holds the process open only while a check waits.
 */
export class PasswordEstimator {
  readonly #idleMs: number;
  readonly #modules: readonly string[] | undefined;
  #worker: Worker | undefined;
  readonly #pending = new Map<number, Pending>();
  #next = 0;
  #idle: NodeJS.Timeout | undefined;

  constructor(options: { readonly idleMs?: number; readonly modules?: readonly string[] } = {}) {
    this.#idleMs = options.idleMs ?? ESTIMATOR_IDLE_MS;
    this.#modules = options.modules;
  }

  /** The running thread's id; undefined while none runs. */
  get threadId(): number | undefined {
    return this.#worker?.threadId;
  }

  /** The estimate of `password`, with `inputs` (the email, its local part) counted as guessable words. */
  estimate(password: string, inputs: readonly string[]): Promise<Estimate> {
    let worker: Worker;
    try {
      worker = this.#running();
    } catch (error) {
      return Promise.reject(failure(error instanceof Error ? error.message : String(error)));
    }
    const id = this.#next++;
    clearTimeout(this.#idle);
    worker.ref();
    return new Promise<Estimate>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.postMessage({ id, password, inputs: [...inputs] });
    });
  }

  /** Ends the thread now (checks it held are rejected). */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#stopped(worker, "it was closed");
    await worker?.terminate();
  }

  #running(): Worker {
    if (this.#worker !== undefined) return this.#worker;
    const worker = new Worker(PROGRAM, { eval: true, workerData: { modules: this.#modules ?? modulePaths() } });
    worker.on("message", (answer: Answer) => this.#answered(worker, answer));
    worker.on("error", (error: Error) => this.#stopped(worker, error.message));
    worker.on("exit", (code) => this.#stopped(worker, `its thread exited (code ${code})`));
    this.#worker = worker;
    return worker;
  }

  #answered(worker: Worker, answer: Answer): void {
    const pending = this.#pending.get(answer.id);
    this.#pending.delete(answer.id);
    if ("error" in answer) {
      // It could not load: this thread is no use, and the next check starts another.
      this.#stopped(worker, answer.error);
      void worker.terminate();
      pending?.reject(failure(answer.error));
    } else {
      pending?.resolve({ score: answer.score, warning: answer.warning, suggestions: answer.suggestions });
    }
    if (this.#pending.size === 0 && this.#worker === worker) this.#rest(worker);
  }

  /** No check waits: the thread no longer holds the process open, and ends if none comes within idleMs. */
  #rest(worker: Worker): void {
    worker.unref();
    this.#idle = setTimeout(() => {
      if (this.#worker !== worker || this.#pending.size > 0) return;
      this.#worker = undefined;
      void worker.terminate();
    }, this.#idleMs);
    this.#idle.unref();
  }

  /** The thread `worker` is done with (an error, an exit, a close): the checks it held are rejected. */
  #stopped(worker: Worker | undefined, why: string): void {
    if (worker === undefined || this.#worker !== worker) return;
    this.#worker = undefined;
    clearTimeout(this.#idle);
    const held = [...this.#pending.values()];
    this.#pending.clear();
    for (const pending of held) pending.reject(failure(why));
  }
}

function failure(why: string): Error {
  return new Error(`fw/auth: the password strength estimator (zxcvbn-ts) failed: ${why}`);
}

/** The packages' entry files, resolved from here (where fw's own imports resolve, in a bundle too). */
function modulePaths(): string[] {
  const require = createRequire(import.meta.url);
  return PACKAGES.map((name) => require.resolve(name));
}
