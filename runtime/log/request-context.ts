import { AsyncLocalStorage } from "node:async_hooks";

/** What code running for a request (or for a job a request enqueued) can ask: its request id. */
export interface RequestContext {
  readonly id: string;
}

/**
 * The request each piece of asynchronous work runs for, kept by an AsyncLocalStorage that is made
 * only once something needs it (fw/jobs, to carry the id into the jobs a request enqueues;
 * tracing carries its spans by promise hooks of its own, runtime/trace/context.ts): on Node 20 a storage in use makes every promise of the process pay for its
 * bookkeeping (about 0.2 µs each), so an app that needs none pays nothing.
 */
let storage: AsyncLocalStorage<RequestContext> | undefined;

/** Turns the request context on for this process (idempotent). */
export function useRequestContext(): void {
  storage ??= new AsyncLocalStorage<RequestContext>();
}

/** Whether requests run in a context (something asked for it). */
export function requestContextOn(): boolean {
  return storage !== undefined;
}

/** Runs `work` with `context` as the current request; just runs it while the context is off. */
export function inRequestContext<T>(context: RequestContext, work: () => T): T {
  return storage === undefined ? work() : storage.run(context, work);
}

/** The id of the request the calling code runs for, if the context is on and there is one. */
export function currentRequestId(): string | undefined {
  return storage?.getStore()?.id;
}
