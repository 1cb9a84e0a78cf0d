/**
 * Paces the hand-out of shared re-reads (`SharedViews`) over the event loop: each socket given
 * a state renders it, diffs it and writes it to its peer in the microtasks that follow, and a
 * few hundred of those in one go (a publish reaching many views of many pages at once) would
 * hold the process for as long while requests wait. One queue for the whole process: at most
 * `HAND_OUT_SLICE` sockets are given a state per turn of the event loop, whatever view or page
 * they belong to, so a request waits for one slice at most.
 */

/** The sockets given a state between two turns of the event loop. */
export const HAND_OUT_SLICE = 8;

const waiting: (() => void)[] = [];
let next = 0;
let draining = false;

/** Calls `give(item)` for each item, in order, paced as above; resolves once the last was given. */
export function handOut<T>(items: readonly T[], give: (item: T) => void): Promise<void> {
  if (items.length === 0) return Promise.resolve();
  return new Promise((done) => {
    items.forEach((item, i) => {
      waiting.push(i < items.length - 1 ? () => give(item) : () => {
        try {
          give(item);
        } finally {
          done();
        }
      });
    });
    if (!draining) {
      draining = true;
      drain();
    }
  });
}

function drain(): void {
  for (let given = 0; given < HAND_OUT_SLICE && next < waiting.length; given++) {
    const job = waiting[next++] as () => void;
    try {
      job();
    } catch {
      // A socket's `reread` only queues its own work, which catches its own failures.
    }
  }
  if (next < waiting.length) {
    setImmediate(drain);
    return;
  }
  waiting.length = 0;
  next = 0;
  draining = false;
}
