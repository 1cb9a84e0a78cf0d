/** One piece of listener work: `open`, one `message`, or `close`. */
export type Job = () => void | Promise<void>;

/** What the inbox pauses when too much waits: the socket's reading. */
export interface Flow {
  pause(): void;
  resume(): void;
}

/**
 * Runs a connection's listener calls one at a time, in arrival order: a job starts only after
 * the previous one returned and its promise settled (spec 2.19: the runtime demands the next
 * message itself). When `limit` jobs wait, reading is paused until half of them are done, so
 * a client that sends faster than the listener works holds at most about `limit` messages in
 * memory. A job that throws stops the inbox: waiting jobs are dropped and `failed` is told;
 * the final job (`end`) still runs, after the current one.
 */
export class Inbox {
  readonly #waiting: Job[] = [];
  #last: Job | undefined;
  #ended = false;
  #stopped = false;
  #running = false;
  #paused = false;

  constructor(
    private readonly flow: Flow,
    private readonly limit: number,
    private readonly failed: (cause: unknown) => void,
  ) {}

  /** True while reading is paused because the queue is full. */
  get paused(): boolean {
    return this.#paused;
  }

  /** Queues a job; ignored once the inbox has ended or stopped. */
  push(job: Job): void {
    if (this.#ended || this.#stopped) return;
    this.#waiting.push(job);
    if (this.#waiting.length >= this.limit && !this.#paused) {
      this.#paused = true;
      this.flow.pause();
    }
    this.#kick();
  }

  /** Takes no more jobs; `last` runs once, after every job still queued. */
  end(last: Job): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#last = last;
    this.#kick();
  }

  #kick(): void {
    if (!this.#running) void this.#run();
  }

  async #run(): Promise<void> {
    this.#running = true;
    for (let job = this.#next(); job !== undefined; job = this.#next()) {
      try {
        await job();
      } catch (cause) {
        this.#stop();
        this.failed(cause);
      }
    }
    this.#running = false;
  }

  #next(): Job | undefined {
    const job = this.#waiting.shift();
    if (job !== undefined) {
      if (this.#paused && this.#waiting.length <= this.limit / 2) {
        this.#paused = false;
        this.flow.resume();
      }
      return job;
    }
    const last = this.#last;
    this.#last = undefined;
    return last;
  }

  #stop(): void {
    this.#stopped = true;
    this.#waiting.length = 0;
  }
}
