import { threadId } from "node:worker_threads";
import { afterEach, describe, expect, it } from "vitest";
import { PasswordEstimator } from "../../runtime/auth/password-estimator.js";
import { weakPasswordProblem } from "../../runtime/auth/password-strength.js";

// Issue 39, item 21: zxcvbn-ts's first check built its dictionaries on the event loop (390 to
// 491 ms in the audit, during which no request was answered). The estimator now runs on a
// worker thread of its own, started on the first new password and ended when idle.
// bench/password-check-stall.mjs measures the loop's stalls; no timing is asserted here.

const made: PasswordEstimator[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((estimator) => estimator.close()));
});

function estimator(options?: ConstructorParameters<typeof PasswordEstimator>[0]): PasswordEstimator {
  const one = new PasswordEstimator(options);
  made.push(one);
  return one;
}

describe("the password strength estimator (zxcvbn-ts) runs off the event loop", () => {
  it("starts no thread until a password is checked, then estimates on a thread of its own", async () => {
    const checker = estimator();
    expect(checker.threadId).toBeUndefined();
    const weak = await checker.estimate("qwertyuiopas", ["ada@example.com", "ada"]);
    expect(weak.score).toBeLessThan(3);
    expect(weak.warning).toBe("This is similar to a commonly used password.");
    expect(checker.threadId).toBeDefined();
    expect(checker.threadId).not.toBe(threadId);
    const strong = await checker.estimate("plum orbit velvet 9271", ["ada@example.com", "ada"]);
    expect(strong.score).toBeGreaterThanOrEqual(3);
  });

  it("answers concurrent checks each with its own estimate", async () => {
    const checker = estimator();
    const passwords = ["passwordpass", "plum orbit velvet 9271", "zxcvbnmasdfg", "granite lantern 4471 ferry"];
    const scores = await Promise.all(passwords.map((password) => checker.estimate(password, []).then((result) => result.score >= 3)));
    expect(scores).toEqual([false, true, false, true]);
  });

  it("ends its thread once idle for idleMs (its dictionaries' memory goes with it), and starts another for the next check", async () => {
    const checker = estimator({ idleMs: 50 });
    await checker.estimate("passwordpass", []);
    const first = checker.threadId;
    for (let tries = 0; tries < 200 && checker.threadId !== undefined; tries++) await new Promise((done) => setTimeout(done, 10));
    expect(checker.threadId).toBeUndefined();
    expect((await checker.estimate("plum orbit velvet 9271", [])).score).toBeGreaterThanOrEqual(3);
    expect(checker.threadId).toBeDefined();
    expect(checker.threadId).not.toBe(first);
  });

  it("a thread that cannot load the estimator rejects the check, naming it, and the next check starts afresh", async () => {
    const checker = estimator({ modules: ["/nowhere/@zxcvbn-ts/core.cjs", "/nowhere/common.cjs", "/nowhere/en.cjs"] });
    await expect(checker.estimate("passwordpass", [])).rejects.toThrow(/^fw\/auth: the password strength estimator \(zxcvbn-ts\) failed: .*nowhere/);
    await expect(checker.estimate("passwordpass", [])).rejects.toThrow(/password strength estimator/);
  });

  it("weakPasswordProblem says why and what would pass, from the shared estimator", async () => {
    expect(await weakPasswordProblem("asdfghjkl;'zx", "ada@example.com")).toMatch(/^This password is too easy to guess\. Straight rows of keys on your keyboard are easy to guess\./);
    expect(await weakPasswordProblem("plum orbit velvet 9271", "ada@example.com")).toBeUndefined();
  });
});
