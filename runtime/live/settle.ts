/** How long a page's own code may run on the socket unless its `handlerTimeoutMs` says otherwise. */
export const DEFAULT_LIVE_HANDLER_TIMEOUT_MS = 30_000;

/**
 * `work`, or a rejection once it has run longer than `ms` (the page's `handlerTimeoutMs`): a
 * handler that never settles must not hold the socket (the runtime hands the next message over
 * only after this one), so the page says so and goes on; what the work answers later is dropped.
 */
export function settled<T>(work: T | Promise<T>, ms: number, what: string): Promise<T> {
  if (!(work instanceof Promise)) return Promise.resolve(work);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms (the page's handlerTimeoutMs); its result will be dropped`)), ms);
  });
  work.catch(() => undefined); // a late failure is dropped with its result
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
