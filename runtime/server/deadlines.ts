import { performance } from "node:perf_hooks";

/** One promise dispatch waits for: when it is due, how to fail it then, and what it is (for the error). */
interface Entry<W> {
  readonly at: number;
  readonly fail: (error: Error) => void;
  readonly what: W;
  previous: Entry<W> | undefined;
  next: Entry<W> | undefined;
  /** Removed: settled in time, or failed at its deadline. */
  done: boolean;
}

/**
 * The deadlines of the promises dispatch waits for (`handlerTimeoutMs`), on one timer. A request
 * in flight holds a small entry in a list, not a Node `Timeout` of its own (a dozen fields and
 * an async id) with its closure: what every page holds across its statements' waits
 * (bench/FINDINGS.md 42). Every deadline is `ms` after it was set, so the list is in deadline
 * order: the timer is armed for the head; when it fires the heads that are due fail, and it is
 * armed again for the next. The timer is cleared once nothing waits, so, as before, a pending
 * handler keeps the process up and none does once all have settled.
 */
export class Deadlines<W> {
  private head: Entry<W> | undefined = undefined;
  private tail: Entry<W> | undefined = undefined;
  private timer: NodeJS.Timeout | undefined = undefined;

  constructor(
    private readonly ms: number,
    /** The error a promise about `what` fails with when it is late. */
    private readonly late: (what: W, ms: number) => Error,
  ) {}

  /**
   * `answer`'s outcome when it settles within `ms`; else a rejection with `late(what)`, and
   * whatever `answer` settles with later is dropped.
   */
  within<T>(answer: Promise<T>, what: W): Promise<T> {
    // One context for the two reactions (the entry and the promise's functions), not one for
    // `within`'s own variables and another for an executor's: held while the answer waits.
    let resolve!: (value: T) => void;
    let reject!: (error: unknown) => void;
    const promise = new Promise<T>((yes, no) => {
      resolve = yes;
      reject = no;
    });
    const entry = this.add(reject, what);
    answer.then(
      (value) => {
        this.remove(entry);
        resolve(value);
      },
      (error: unknown) => {
        this.remove(entry);
        reject(error);
      },
    );
    return promise;
  }

  private add(fail: (error: Error) => void, what: W): Entry<W> {
    const entry: Entry<W> = { at: performance.now() + this.ms, fail, what, previous: this.tail, next: undefined, done: false };
    if (this.tail === undefined) this.head = entry;
    else this.tail.next = entry;
    this.tail = entry;
    if (this.timer === undefined) this.arm(this.ms);
    return entry;
  }

  private remove(entry: Entry<W>): void {
    if (entry.done) return;
    entry.done = true;
    if (entry.previous === undefined) this.head = entry.next;
    else entry.previous.next = entry.next;
    if (entry.next === undefined) this.tail = entry.previous;
    else entry.next.previous = entry.previous;
    entry.previous = entry.next = undefined;
    if (this.head === undefined && this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.due(), ms);
  }

  /** The timer fired: every entry whose deadline has passed fails; the timer waits for the next. */
  private due(): void {
    this.timer = undefined;
    const now = performance.now();
    let entry = this.head;
    while (entry !== undefined && entry.at <= now) {
      this.remove(entry);
      entry.fail(this.late(entry.what, this.ms));
      entry = this.head;
    }
    if (entry !== undefined && this.timer === undefined) this.arm(Math.max(1, Math.ceil(entry.at - now)));
  }
}
