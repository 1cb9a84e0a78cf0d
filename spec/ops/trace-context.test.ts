import { createContextKey, ROOT_CONTEXT, type Context } from "@opentelemetry/api";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PromiseContextManager } from "../../runtime/trace/context.js";

// Issue 44, tracing's cost (bench/FINDINGS.md 33): fw carries the active trace context along
// promise chains with V8's promise hooks instead of an AsyncLocalStorage, whose async_hooks cost
// every nextTick, timer and socket of the process once tracing ran. What a span's parentage needs
// of it: the context set by `with`, kept across `await` and `then`, separate per request when
// requests interleave. spec/ops/traces*.test.ts check the spans a real receiver gets.

const KEY = createContextKey("fw test");
const named = (name: string): Context => ROOT_CONTEXT.setValue(KEY, name);
const tick = (ms = 1): Promise<void> => new Promise((done) => setTimeout(done, ms));

describe("issue 44: the trace context, carried by promise hooks", () => {
  let manager: PromiseContextManager;
  const current = (): unknown => manager.active().getValue(KEY);

  beforeEach(() => {
    manager = new PromiseContextManager().enable();
  });
  afterEach(() => {
    manager.disable();
  });

  it("`with` makes a context active for its call, nested ones inside it, and restores the one before (a throw too)", () => {
    expect(manager.active()).toBe(ROOT_CONTEXT);
    manager.with(named("a"), () => {
      expect(current()).toBe("a");
      manager.with(named("b"), () => expect(current()).toBe("b"));
      expect(current()).toBe("a");
      expect(() => manager.with(named("c"), () => {
        throw new Error("thrown");
      })).toThrow("thrown");
      expect(current()).toBe("a");
    });
    expect(manager.active()).toBe(ROOT_CONTEXT);
  });

  it("an async function keeps its context across awaits, and requests that interleave keep their own", async () => {
    const seen: string[] = [];
    const request = async (name: string, waits: number[]): Promise<void> => {
      for (const ms of waits) {
        await tick(ms); // resolved by a timer: the continuation still runs under the caller's context
        seen.push(`${name}:${String(current())}`);
        await Promise.resolve();
        seen.push(`${name}:${String(current())}`);
      }
    };
    const a = manager.with(named("a"), () => request("a", [5, 1, 3]));
    const b = manager.with(named("b"), () => request("b", [1, 4, 1]));
    expect(manager.active()).toBe(ROOT_CONTEXT);
    await Promise.all([a, b]);
    expect(seen.filter((s) => s.startsWith("a:"))).toEqual(Array(6).fill("a:a"));
    expect(seen.filter((s) => s.startsWith("b:"))).toEqual(Array(6).fill("b:b"));
    expect(manager.active()).toBe(ROOT_CONTEXT);
  });

  it("a `then` callback runs under the context it was attached in, a rejection's too", async () => {
    let resolve: (value: string) => void = () => undefined;
    let reject: (error: Error) => void = () => undefined;
    const pending = new Promise<string>((done) => (resolve = done));
    const failing = new Promise<string>((_, fail) => (reject = fail));
    const fulfilled = manager.with(named("then"), () => pending.then(() => current()));
    const rejected = manager.with(named("catch"), () => failing.catch(() => current()));
    // Settled from outside any context: the callbacks still see theirs.
    resolve("done");
    reject(new Error("refused"));
    expect(await fulfilled).toBe("then");
    expect(await rejected).toBe("catch");
  });

  it("a promise made under no context carries nothing: an untraced request's promises pay no property", async () => {
    const untraced = Promise.resolve(1);
    const traced = manager.with(named("a"), () => Promise.resolve(1));
    expect(Object.getOwnPropertySymbols(untraced)).toEqual([]);
    expect(Object.getOwnPropertySymbols(traced)).toHaveLength(1);
    await Promise.all([untraced, traced]);
  });

  it("a timer's callback runs under no context (only promise chains carry one), and a bound function under its own", async () => {
    const inTimer = await manager.with(named("a"), () => new Promise((done) => setTimeout(() => done(current()), 1)));
    expect(inTimer).toBeUndefined();
    const bound = manager.bind(named("bound"), () => current());
    expect(await new Promise((done) => setTimeout(() => done(bound()), 1))).toBe("bound");
  });

  it("disabled, it carries nothing further", async () => {
    manager.disable();
    const seen = await manager.with(named("a"), async () => {
      await tick();
      return current();
    });
    expect(seen).toBeUndefined();
  });
});
