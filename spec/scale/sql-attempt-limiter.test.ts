import { describe, expect, it } from "vitest";
import { PER_ACCOUNT_AND_ADDRESS, type Limit } from "../../runtime/auth/index.js";
import { openDatabase, SqlAttemptLimiter, SqlUsers } from "../../runtime/db/index.js";
import { attemptLimiterContract } from "../auth/limiter-conformance.js";
import { onEveryEngine, onPostgres } from "../db/engines.js";

const MINUTE = 60_000;
let scopes = 0;

// Issue 21: with fw/db the sign-in limits count in the database, so every process on it counts
// together. The same rule as fw/auth's in-memory RateLimiter (spec/auth/limiter-conformance.ts,
// which both run), on both engines.
onEveryEngine((engine) => {
  /** A limiter with a scope of its own, on a clock the test moves. */
  function limiter(limit: Limit) {
    const clock = { now: 1_000_000 };
    return { clock, limit: new SqlAttemptLimiter(engine.db(), `test-${scopes++}`, limit, () => clock.now) };
  }

  describe(`issue 21: sign-in limits counted in the database (${engine.name})`, () => {
    // The same rule as fw/auth's in-memory RateLimiter, case by case (spec/auth/limiter-conformance.ts).
    attemptLimiterContract(limiter);

    it("rows of keys that started over are deleted (at most once a minute); the table is made again after it was dropped", async () => {
      const { clock, limit } = limiter({ attempts: 1, windowMs: MINUTE });
      const scope = (limit as unknown as { scope: string }).scope;
      const count = async () => Number((await engine.db().query(`SELECT count(*) AS n FROM fw_attempts WHERE scope = $1`, [scope])).rows[0]?.["n"]);
      await limit.attempt("old");
      clock.now += 10 * MINUTE;
      await limit.attempt("new");
      await new Promise((done) => setTimeout(done, 200)); // the sweep is not awaited
      expect(await count()).toBe(1);
      await engine.db().script("DROP TABLE fw_attempts");
      expect(await limit.attempt("again")).toBe(0);
      expect(await count()).toBe(1);
    });

    it("SqlUsers offers these limiters, so formSignIn's limits live beside the users", () => {
      const users = new SqlUsers(engine.db());
      expect(users.attemptLimiter("sign-in/address", PER_ACCOUNT_AND_ADDRESS)).toBeInstanceOf(SqlAttemptLimiter);
    });
  });
});

onPostgres((engine) => {
  describe("issue 21: two processes count together", () => {
    it("five attempts spread over two connections' pools are five: the sixth is refused in either", async () => {
      const other = await openDatabase({ url: engine.cluster()?.url as string, log: () => undefined });
      try {
        const limit = { attempts: 5, windowMs: 15 * MINUTE };
        const here = new SqlAttemptLimiter(engine.db(), "shared", limit);
        const there = new SqlAttemptLimiter(other, "shared", limit);
        const waits = await Promise.all([here, there, here, there, here].map((l) => l.attempt("k")));
        expect(waits).toEqual([0, 0, 0, 0, 0]);
        expect(await there.attempt("k")).toBeGreaterThan(0);
        expect(await here.attempt("k")).toBeGreaterThan(0);
      } finally {
        await other.close();
      }
    });
  });
});
