import { describe, expect, it } from "vitest";
import { normalEmail, type UserFields, type Users } from "../../runtime/auth/index.js";
import { sessionUser, signedInSession, SESSION_ID_ENTRY } from "../../runtime/auth/session-user.js";
import { Session } from "../../runtime/index.js";

const DAY = 24 * 60 * 60_000;
const MAX_AGE = 14 * DAY;
let counter = 0;
/** A fresh email per call, so a shared store (a database) never sees one twice. */
const fresh = (name: string): string => normalEmail(`${name}-${process.pid}-${Date.now()}-${++counter}@Example.com`);

/**
 * What every `Users` store must do for fw/auth (the in-memory one and a database's alike). Call
 * it from a test file with a name and a way to make a store; `fresh` may return the same shared
 * store each time (emails never repeat), except where `separate` says two stores must not share.
 */
export function usersConformance(name: string, make: () => Users | Promise<Users>, options: { readonly separate?: () => Users | Promise<Users> } = {}): void {
  describe(`Users conformance: ${name}`, () => {
    it("create gives a user with a key, the email, the hash and a session epoch; byEmail and byId find it; a taken email gives undefined", async () => {
      const users = await make();
      const email = fresh("ada");
      const ada = (await users.create(email, "hash-of-ada")) as UserFields;
      expect(ada).toMatchObject({ email, passwordHash: "hash-of-ada" });
      expect(Number.isSafeInteger(ada.id) && ada.id > 0).toBe(true);
      expect(typeof ada.sessionEpoch === "string" && ada.sessionEpoch.length >= 16).toBe(true);
      expect(await users.byEmail(email)).toMatchObject({ id: ada.id, email, passwordHash: "hash-of-ada", sessionEpoch: ada.sessionEpoch });
      expect(await users.byId(ada.id)).toMatchObject({ id: ada.id, email });
      expect(await users.create(email, "another-hash")).toBeUndefined();
      expect((await users.byId(ada.id))?.passwordHash).toBe("hash-of-ada");
      expect(await users.byEmail(fresh("nobody"))).toBeUndefined();
    });

    it("roles (issue 41): none at first; setRoles replaces them whole, sorted and each once; every read carries them; the guard's one read too; gone with the user", async () => {
      const users = await make();
      if (users.setRoles === undefined) throw new Error(`${name} has no setRoles`);
      const grace = (await users.create(fresh("grace"), "h")) as UserFields;
      expect((await users.byId(grace.id))?.roles ?? []).toEqual([]);
      expect((await users.setRoles(grace.id, ["editor", "admin", "editor"]))?.roles).toEqual(["admin", "editor"]);
      expect((await users.byId(grace.id))?.roles).toEqual(["admin", "editor"]);
      expect((await users.byEmail(grace.email))?.roles).toEqual(["admin", "editor"]);
      expect((await users.byIdUnlessRevoked?.(grace.id, "some-session"))?.roles ?? ["admin", "editor"]).toEqual(["admin", "editor"]);
      expect((await users.revokeAll(grace.id))?.roles).toEqual(["admin", "editor"]);
      expect((await users.setRoles(grace.id, ["editor"]))?.roles).toEqual(["editor"]);
      expect((await users.setRoles(grace.id, []))?.roles).toEqual([]);
      await expect(users.setRoles(grace.id, ["no spaces"])).rejects.toThrow(/is no role name/);
      expect(await users.setRoles(grace.id + 1_000_000, ["admin"])).toBeUndefined();
      await users.setRoles(grace.id, ["admin"]);
      await users.delete(grace.id);
      expect(await users.byId(grace.id)).toBeUndefined();
    });

    it("concurrent sign-ups with one email make one user", async () => {
      const users = await make();
      const email = fresh("twin");
      const made = await Promise.all(Array.from({ length: 8 }, (_, i) => users.create(email, `hash-${i}`)));
      expect(made.filter((user) => user !== undefined)).toHaveLength(1);
    });

    it("a deleted user is gone, its key is never given out again, its email may sign up anew", async () => {
      const users = await make();
      const email = fresh("gone");
      const gone = (await users.create(email, "h")) as UserFields;
      expect(await users.delete(gone.id)).toBe(true);
      expect(await users.delete(gone.id)).toBe(false);
      expect(await users.byId(gone.id)).toBeUndefined();
      expect(await users.byEmail(email)).toBeUndefined();
      const again = (await users.create(email, "h2")) as UserFields;
      expect(again.id).not.toBe(gone.id);
      expect(again.sessionEpoch).not.toBe(gone.sessionEpoch);
    });

    it("setPasswordHash replaces the hash and the epoch; revokeAll the epoch alone; both answer undefined for nobody", async () => {
      const users = await make();
      const user = (await users.create(fresh("pat"), "old-hash")) as UserFields;
      const changed = (await users.setPasswordHash(user.id, "new-hash")) as UserFields;
      expect(changed).toMatchObject({ id: user.id, passwordHash: "new-hash" });
      expect(changed.sessionEpoch).not.toBe(user.sessionEpoch);
      expect(await users.byId(user.id)).toMatchObject({ passwordHash: "new-hash", sessionEpoch: changed.sessionEpoch });
      const revoked = (await users.revokeAll(user.id)) as UserFields;
      expect(revoked).toMatchObject({ passwordHash: "new-hash" });
      expect(revoked.sessionEpoch).not.toBe(changed.sessionEpoch);
      expect((await users.byId(user.id))?.sessionEpoch).toBe(revoked.sessionEpoch);
      expect(await users.setPasswordHash(2 ** 40, "h")).toBeUndefined();
      expect(await users.revokeAll(2 ** 40)).toBeUndefined();
    });

    it("revokeSession is per user and session, until its time; nobody's is ignored", async () => {
      const users = await make();
      const a = (await users.create(fresh("rev-a"), "h")) as UserFields;
      const b = (await users.create(fresh("rev-b"), "h")) as UserFields;
      await users.revokeSession(a.id, "session-1", Date.now() + DAY);
      await users.revokeSession(a.id, "session-old", Date.now() - 1);
      expect(await users.isRevoked(a.id, "session-1")).toBe(true);
      expect(await users.isRevoked(a.id, "session-2")).toBe(false);
      expect(await users.isRevoked(b.id, "session-1")).toBe(false);
      expect(await users.isRevoked(a.id, "session-old")).toBe(false);
      await users.revokeSession(2 ** 40, "session-1", Date.now() + DAY);
      expect(await users.isRevoked(2 ** 40, "session-1")).toBe(false);
    });

    it("byIdUnlessRevoked, when the store has it, is byId unless that session was signed out (and not yet expired); nobody's is undefined", async () => {
      const users = await make();
      if (users.byIdUnlessRevoked === undefined) return;
      const a = (await users.create(fresh("one-read"), "h")) as UserFields;
      await users.revokeSession(a.id, "session-out", Date.now() + DAY);
      await users.revokeSession(a.id, "session-expired", Date.now() - 1);
      expect(await users.byIdUnlessRevoked(a.id, "session-in")).toMatchObject({ id: a.id, email: a.email, sessionEpoch: a.sessionEpoch });
      expect(await users.byIdUnlessRevoked(a.id, "session-expired")).toMatchObject({ id: a.id });
      expect(await users.byIdUnlessRevoked(a.id, "session-out")).toBeUndefined();
      expect(await users.byIdUnlessRevoked(2 ** 40, "session-in")).toBeUndefined();
      await users.delete(a.id);
      expect(await users.byIdUnlessRevoked(a.id, "session-in")).toBeUndefined();
    });

    it("a signed-in session counts until it is signed out, its user signs out everywhere, changes password or is deleted", async () => {
      const users = await make();
      const user = (await users.create(fresh("ses"), "h")) as UserFields;
      const one = signedInSession(Session.empty, user);
      const two = signedInSession(Session.empty, user);
      const counts = async (session: Session): Promise<boolean> => (await sessionUser(users, session, MAX_AGE)) !== undefined;
      expect([await counts(one), await counts(two)]).toEqual([true, true]);
      await users.revokeSession(user.id, one.get(SESSION_ID_ENTRY) as string, Date.now() + MAX_AGE);
      expect([await counts(one), await counts(two)]).toEqual([false, true]);
      await users.revokeAll(user.id);
      expect(await counts(two)).toBe(false);
      const three = signedInSession(Session.empty, (await users.byId(user.id)) as UserFields);
      expect(await counts(three)).toBe(true);
      await users.setPasswordHash(user.id, "h2");
      expect(await counts(three)).toBe(false);
      const four = signedInSession(Session.empty, (await users.byId(user.id)) as UserFields);
      expect(await counts(four)).toBe(true);
      await users.delete(user.id);
      expect(await counts(four)).toBe(false);
    });

    it("however many sessions of one user are signed out, every one stays signed out (a store may end them all instead)", async () => {
      const users = await make();
      const user = (await users.create(fresh("many"), "h")) as UserFields;
      const sessions = Array.from({ length: 100 }, () => signedInSession(Session.empty, user));
      for (const session of sessions) await users.revokeSession(user.id, session.get(SESSION_ID_ENTRY) as string, Date.now() + MAX_AGE);
      const counted = await Promise.all(sessions.map((session) => sessionUser(users, session, MAX_AGE)));
      expect(counted.filter((found) => found !== undefined)).toEqual([]);
    });

    it("a store that starts over (a restart with users in memory) gives its first user an epoch no old cookie carries", async () => {
      const first = await (options.separate ?? make)();
      const second = await (options.separate ?? make)();
      const email = fresh("restart");
      const before = (await first.create(email, "h")) as UserFields;
      const after = (await second.create(fresh("restart-new"), "h")) as UserFields;
      const oldCookie = signedInSession(Session.empty, before);
      if (after.id === before.id) expect(await sessionUser(second, oldCookie, MAX_AGE)).toBeUndefined();
      expect(after.sessionEpoch).not.toBe(before.sessionEpoch);
    });

    it("setEmail (the change-of-email flow): the user gets the new email, found by it and no longer by the old; another account's email is \"taken\"", async () => {
      const users = await make();
      if (users.setEmail === undefined) return;
      const [ann, bob] = [fresh("ann"), fresh("bob")];
      const a = (await users.create(ann, "h")) as UserFields;
      await users.create(bob, "h");
      const moved = fresh("ann-new");
      expect(await users.setEmail(a.id, moved)).toMatchObject({ id: a.id, email: moved, sessionEpoch: a.sessionEpoch });
      expect((await users.byEmail(moved))?.id).toBe(a.id);
      expect(await users.byEmail(ann)).toBeUndefined();
      expect(await users.setEmail(a.id, bob)).toBe("taken");
      expect((await users.byId(a.id))?.email).toBe(moved);
      expect(await users.setEmail(a.id + 1_000_000, fresh("nobody"))).toBeUndefined();
    });

    it("tokens (emailed links): saved, found by selector, taken once even by concurrent uses, only with the right verifier hash; expired ones purged", async () => {
      const users = await make();
      const tokens = users.tokens?.();
      if (tokens === undefined) return;
      const selector = `sel-${fresh("t")}`;
      const record = { selector, verifierHash: "right", purpose: "reset-password" as const, userId: 7, email: fresh("t"), data: "", epoch: "e", expiresAt: Date.now() + 60_000 };
      await tokens.save(record);
      expect(await tokens.find(selector)).toEqual(record);
      expect(await tokens.take(selector, "wrong")).toBe(false);
      const takes = await Promise.all(Array.from({ length: 6 }, () => tokens.take(selector, "right")));
      expect(takes.filter(Boolean)).toHaveLength(1);
      expect(await tokens.find(selector)).toBeUndefined();
      const old = { ...record, selector: `old-${selector}`, expiresAt: Date.now() - 1 };
      await tokens.save(old);
      expect(await tokens.purgeExpired(Date.now())).toBeGreaterThanOrEqual(1);
      expect(await tokens.find(old.selector)).toBeUndefined();
    });
  });
}
