/**
 * A counting semaphore: at most `size` tasks run at once, the others wait in arrival order.
 * fw/files runs every decoding image task through one, so the memory that decoding takes is
 * bounded by the number of slots, not by the number of uploads arriving together.
 */
export class Slots {
  #size: number;
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(size: number) {
    this.#size = checkedSize(size);
  }

  /** How many tasks may run at once. */
  get size(): number {
    return this.#size;
  }

  /** Changes how many tasks may run at once; waiting tasks start at once if slots opened. */
  resize(size: number): void {
    this.#size = checkedSize(size);
    this.#wake();
  }

  /** Runs `task` when a slot is free, and frees the slot when it settles, however it settles. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running >= this.#size) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#running += 1;
    try {
      return await task();
    } finally {
      this.#running -= 1;
      this.#wake();
    }
  }

  #wake(): void {
    while (this.#running < this.#size) {
      const next = this.#waiting.shift();
      if (next === undefined) return;
      // The slot passes to the waiter now, so no task arriving meanwhile can take it first.
      this.#running += 1;
      next();
    }
  }
}

function checkedSize(size: number): number {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`An image concurrency must be a whole number of at least 1; got ${size}.`);
  return size;
}
