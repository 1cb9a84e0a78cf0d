import { promiseHooks } from "node:v8";
import { ROOT_CONTEXT, type Context, type ContextManager } from "@opentelemetry/api";

/** Where a promise made under a context keeps it (a promise made under none carries nothing). */
const CONTEXT = Symbol("fw.trace.context");

interface Carrier {
  [CONTEXT]?: Context;
}

/**
 * The active trace context, carried along promise chains (and `await`) by V8's promise hooks
 * alone, in place of OpenTelemetry's AsyncLocalStorageContextManager. On Node 20 an
 * AsyncLocalStorage, once run, turns async_hooks' init hook on for every async resource of the
 * process for good — every `nextTick`, timer and socket of every request, sampled or not — and
 * at wrk -c50 that cost the session page 14 % of its instructions with nothing sampled
 * (bench/FINDINGS.md 33). Here a promise made under a context keeps it, and its callbacks
 * (`then`, the rest of an `async` function after an `await`) run under it; nothing else pays.
 *
 * What this does not carry: callbacks of timers, `nextTick`, `queueMicrotask`, sockets and
 * event emitters run under no context (the root). fw starts every span of its own either
 * synchronously under the active one (a SQL statement, an outgoing request) or in a promise
 * chain (a job, mail, a live refresh), so nothing of fw's is lost; work an app hands to a timer
 * starts a trace of its own if it makes spans at all.
 */
export class PromiseContextManager implements ContextManager {
  #current: Context = ROOT_CONTEXT;
  /** The contexts to go back to when the promise callbacks now running return (they may nest). */
  readonly #saved: Context[] = [];
  #stop: (() => void) | undefined;

  active(): Context {
    return this.#current;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(context: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    const previous = this.#current;
    this.#current = context;
    try {
      return fn.call(thisArg, ...args);
    } finally {
      this.#current = previous;
    }
  }

  /** A function bound to `context` (anything else is returned as it is: fw binds no emitters). */
  bind<T>(context: Context, target: T): T {
    if (typeof target !== "function") return target;
    const manager = this;
    const fn = target as unknown as (...args: unknown[]) => unknown;
    return function bound(this: unknown, ...args: unknown[]) {
      return manager.with(context, () => fn.apply(this, args));
    } as unknown as T;
  }

  enable(): this {
    // Node types the stop function as `Function`; it takes no arguments.
    this.#stop ??= promiseHooks.createHook({
      init: (promise) => {
        // Only under a context: a promise of an untraced request gets no property.
        if (this.#current !== ROOT_CONTEXT) (promise as Carrier)[CONTEXT] = this.#current;
      },
      before: (promise) => {
        this.#saved.push(this.#current);
        this.#current = (promise as Carrier)[CONTEXT] ?? ROOT_CONTEXT;
      },
      after: () => {
        this.#current = this.#saved.pop() ?? ROOT_CONTEXT;
      },
    }) as () => void;
    return this;
  }

  disable(): this {
    this.#stop?.();
    this.#stop = undefined;
    this.#current = ROOT_CONTEXT;
    this.#saved.length = 0;
    return this;
  }
}
