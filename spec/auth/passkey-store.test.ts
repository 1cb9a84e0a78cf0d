import { beforeAll, describe, expect, it } from "vitest";
import { InMemoryPasskeys, InMemoryUsers, seedUser, type PasskeyStore, type Users } from "../../runtime/auth/index.js";
import { SqlUsers, usersTableSql } from "../../runtime/db/index.js";
import { onEveryEngine } from "../db/engines.js";

// Issue 42, item 2: the passkey stores (memory, and fw_passkeys on PGlite and PostgreSQL) keep
// what a sign-in checks: one passkey per credential id, the owner's alone, a counter that only
// moves forward (atomically: of two sign-ins with one counter, one wins), removed for every
// process at once. The ceremonies themselves run in Chromium: spec/browser/passkeys.test.tsx.

function passkeyStoreSuite(name: string, make: () => Promise<{ store: PasskeyStore; users: Users }>): void {
  describe(`passkey store (${name})`, () => {
    let store: PasskeyStore;
    let users: Users;
    let n = 0;
    beforeAll(async () => {
      ({ store, users } = await make());
    }, 120_000);
    const record = async (counter = 0) => {
      const user = await seedUser(users, `pk-${++n}-${name.replace(/\W/g, "")}@example.com`, "plum orbit velvet 9271");
      return { id: `cred-${n}`, userId: user.id, publicKey: "pk", counter, transports: ["internal", "hybrid"], name: "Laptop", createdAt: 1000, lastUsedAt: undefined };
    };

    it("adds once per credential id; finds and lists it; removes it only for its owner", async () => {
      const passkey = await record();
      expect(await store.add(passkey)).toBe(true);
      expect(await store.add({ ...passkey, userId: passkey.userId + 1000 })).toBe(false);
      expect(await store.find(passkey.id)).toEqual(passkey);
      expect(await store.list(passkey.userId)).toEqual([passkey]);
      expect(await store.remove(passkey.userId + 1, passkey.id)).toBe(false);
      expect(await store.remove(passkey.userId, passkey.id)).toBe(true);
      expect(await store.find(passkey.id)).toBeUndefined();
    });

    it("the counter only moves forward, atomically; an authenticator that keeps none stays at 0", async () => {
      const passkey = await record(5);
      await store.add(passkey);
      expect(await store.use(passkey.id, 5, 2000)).toBe(false);
      expect(await store.use(passkey.id, 4, 2000)).toBe(false);
      const both = await Promise.all([store.use(passkey.id, 6, 3000), store.use(passkey.id, 6, 3000)]);
      expect(both.filter(Boolean)).toHaveLength(1);
      expect((await store.find(passkey.id))?.lastUsedAt).toBe(3000);
      const counterless = await record(0);
      await store.add(counterless);
      expect([await store.use(counterless.id, 0, 1), await store.use(counterless.id, 0, 2)]).toEqual([true, true]);
    });

    it("a deleted user's passkeys go with them", async () => {
      const passkey = await record();
      await store.add(passkey);
      await users.delete(passkey.userId);
      expect(await store.find(passkey.id)).toBeUndefined();
    });
  });
}

passkeyStoreSuite("InMemoryUsers", async () => {
  const users = new InMemoryUsers();
  return { users, store: users.passkeys() };
});

let tables = 0;
onEveryEngine((engine) => {
  passkeyStoreSuite(`SqlUsers on ${engine.name}`, async () => {
    const table = `passkey_store_users_${++tables}`;
    await engine.db().script(`DROP TABLE IF EXISTS fw_passkeys; ${usersTableSql(table)}`);
    const users = new SqlUsers(engine.db(), { table });
    return { users, store: users.passkeys() };
  });
});

// InMemoryPasskeys alone is what a store without users of its own gets.
describe("InMemoryPasskeys", () => {
  it("is a PasskeyStore", async () => {
    const store: PasskeyStore = new InMemoryPasskeys();
    expect(await store.list(1)).toEqual([]);
  });
});
