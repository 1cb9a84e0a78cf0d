import { beforeAll, describe, expect, it } from "vitest";
import { MAX_REVOKED_SESSIONS, SqlUsers, usersTableSql } from "../../runtime/db/index.js";
import { usersConformance } from "../auth/users-conformance.js";
import { onEveryEngine } from "./engines.js";

let tables = 0;

onEveryEngine((engine) => {
  let shared: SqlUsers | undefined;
  /** A users table of its own (and its revoked-sessions table). */
  const freshUsers = async (options: { now?: () => number } = {}): Promise<SqlUsers> => {
    const table = `users_${++tables}`;
    await engine.db().script(usersTableSql(table));
    return new SqlUsers(engine.db(), { table, ...options });
  };
  beforeAll(async () => {
    await engine.db().script(usersTableSql());
    shared = new SqlUsers(engine.db());
  });

  usersConformance(`SqlUsers on ${engine.name}`, () => shared as SqlUsers, { separate: () => freshUsers() });

  describe(`issue 20: SqlUsers on ${engine.name}`, () => {
    it("keys are an identity never given out again, even after the newest user is deleted", async () => {
      const users = await freshUsers();
      const first = await users.create("first@example.com", "h");
      const last = await users.create("last@example.com", "h");
      await users.delete(last?.id as number);
      const next = await users.create("next@example.com", "h");
      expect(next?.id).toBeGreaterThan(last?.id as number);
      expect(first?.id).toBeLessThan(last?.id as number);
    });

    it("the email column is unique in the database itself: a second row with a taken email is refused", async () => {
      const table = `users_${++tables}`;
      await engine.db().script(usersTableSql(table));
      await new SqlUsers(engine.db(), { table }).create("one@example.com", "h");
      await expect(engine.db().query(`INSERT INTO ${table} (email, password_hash, session_epoch) VALUES ($1, 'h', 'e')`, ["one@example.com"])).rejects.toMatchObject({ code: "23505" });
    });

    it("a deleted user's revoked sessions go with them; expired revocations are dropped at the next sign-out", async () => {
      let now = 1_000_000;
      const users = await freshUsers({ now: () => now });
      const table = `users_${tables}_revoked_sessions`;
      const user = await users.create("rev@example.com", "h");
      const id = user?.id as number;
      await users.revokeSession(id, "old", now + 10);
      now += 20;
      await users.revokeSession(id, "new", now + 10);
      expect((await engine.db().query(`SELECT session_id FROM ${table} WHERE user_id = $1`, [id])).rows).toEqual([{ session_id: "new" }]);
      await users.delete(id);
      expect((await engine.db().query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]).toEqual({ n: 0 });
    });

    it(`past ${MAX_REVOKED_SESSIONS} signed-out sessions of one user, all their sessions end (a fresh epoch) and the list starts over`, async () => {
      const users = await freshUsers();
      const user = await users.create("many@example.com", "h");
      const id = user?.id as number;
      for (let i = 0; i < MAX_REVOKED_SESSIONS; i++) await users.revokeSession(id, `s${i}`, Date.now() + 60_000);
      expect((await users.byId(id))?.sessionEpoch).toBe(user?.sessionEpoch);
      await users.revokeSession(id, "one-more", Date.now() + 60_000);
      expect((await users.byId(id))?.sessionEpoch).not.toBe(user?.sessionEpoch);
      expect(await users.isRevoked(id, "s0")).toBe(false);
    });

    it("keys that name nobody (not positive whole numbers) are answered without a query error", async () => {
      const users = await freshUsers();
      expect(await users.byId(-1)).toBeUndefined();
      expect(await users.byId(1.5)).toBeUndefined();
      expect(await users.delete(Number.NaN)).toBe(false);
      expect(await users.isRevoked(0, "s")).toBe(false);
    });

    it("a table name that is not a plain identifier is refused, naming it", () => {
      expect(() => usersTableSql('users"; DROP TABLE x; --')).toThrow(/users table name/);
      expect(() => new SqlUsers(engine.db(), { table: "bad name" })).toThrow(/"bad name"/);
    });
  });
});
