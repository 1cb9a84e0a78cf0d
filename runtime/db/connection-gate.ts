/** What a statement waiting for a pooled connection is told when none frees in time (pg-pool's own words, read by faults.ts). */
export const WAITED_TOO_LONG = "timeout exceeded when trying to connect";

interface Waiter {
  readonly go: () => void;
  readonly timedOut: (error: Error) => void;
  readonly since: number;
}

/**
 * The pool's connections handed out in turn: at most `max` users at once, the others waiting in
 * order, each at most `waitMs` (then `timedOut` with pg-pool's "timeout exceeded when trying to
 * connect", the 503 of faults.ts). pg-pool bounds the wait itself when given
 * `connectionTimeoutMillis`, but with a timer per statement it hands out, idle connections or not:
 * a `setTimeout`, an `unref` and a `clearTimeout` each, which under fifty requests in flight cost
 * the posts' Index a fifth of its CPU (bench/FINDINGS.md 34). Here one timer serves the whole line:
 * armed for the oldest waiter's limit, it fails those past theirs and re-arms for the next; one
 * leaving hands its place straight to the next in line.
 */
export class ConnectionGate {
  #active = 0;
  readonly #waiting: Waiter[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly max: number,
    private readonly waitMs: number,
  ) {}

  /** Runs `go` now when a place is free, else once one is; `timedOut` instead when none frees within `waitMs`. Every `go` is followed by one `leave`. */
  enter(go: () => void, timedOut: (error: Error) => void): void {
    if (this.#active < this.max) {
      this.#active++;
      go();
      return;
    }
    this.#waiting.push({ go, timedOut, since: performance.now() });
    if (this.#timer === undefined) this.#arm();
  }

  /** A user is done: its place goes to the oldest waiter, if any. */
  leave(): void {
    const next = this.#waiting.shift();
    if (next === undefined) this.#active--;
    else next.go();
  }

  /** Statements waiting for a place (the pool gauge's "waiting"). */
  get waiting(): number {
    return this.#waiting.length;
  }

  #arm(): void {
    const oldest = this.#waiting[0];
    if (oldest === undefined) return;
    this.#timer = setTimeout(() => this.#expire(), Math.max(0, oldest.since + this.waitMs - performance.now()));
    // A line of waiters keeps nothing alive: their statements' own sockets do.
    this.#timer.unref();
  }

  #expire(): void {
    this.#timer = undefined;
    const now = performance.now();
    for (let oldest = this.#waiting[0]; oldest !== undefined && now - oldest.since >= this.waitMs; oldest = this.#waiting[0]) {
      this.#waiting.shift();
      oldest.timedOut(new Error(WAITED_TOO_LONG));
    }
    this.#arm();
  }
}
