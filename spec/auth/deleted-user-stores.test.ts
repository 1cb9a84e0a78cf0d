// Issue 41, item 6, beside issue 42: deleting a user through the sign-in (`deleteUser`, what
// /account's Delete my account calls) forgets what the sign-in keeps of them outside the users
// store: a users store of the app's own that keeps no passkeys, second factors nor linked
// providers, with those given to formSignIn as stores of their own. (SqlUsers' and
// InMemoryUsers' own go with the user: spec/db/account-deletion.test.ts, users-conformance.ts.)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { InMemoryIdentities } from "../../runtime/auth/identity-store.js";
import { formSignIn, InMemoryUsers, seedUser, type UserFields, type Users } from "../../runtime/auth/index.js";
import { InMemoryPasskeys } from "../../runtime/auth/passkey-store.js";
import { InMemorySecondFactors } from "../../runtime/auth/second-factor-store.js";
import { Mailer, MailboxTransport } from "../../runtime/mail/index.js";

const mailbox = mkdtempSync(join(tmpdir(), "fw-deleted-user-stores-"));
afterAll(() => rmSync(mailbox, { recursive: true, force: true }));

/** An app's own users store: users alone, none of the optional stores. */
function ownUsers(): Users<UserFields> {
  const inner = new InMemoryUsers();
  return {
    byEmail: (email) => inner.byEmail(email),
    byId: (id) => inner.byId(id),
    create: (email, hash) => inner.create(email, hash),
    setPasswordHash: (id, hash) => inner.setPasswordHash(id, hash),
    revokeAll: (id) => inner.revokeAll(id),
    delete: (id) => inner.delete(id),
    revokeSession: (id, session, until) => inner.revokeSession(id, session, until),
    isRevoked: (id, session) => inner.isRevoked(id, session),
  };
}

describe("deleteUser forgets the sign-in's own records of the user", () => {
  it("passkeys, the second factor and linked providers kept beside a users store of the app's own go with the user; another user's stay", async () => {
    const users = ownUsers();
    const [identities, passkeys, secondFactors] = [new InMemoryIdentities(), new InMemoryPasskeys(), new InMemorySecondFactors()];
    const mailer = new Mailer({ from: "Shop <no-reply@shop.example>", transport: new MailboxTransport(mailbox) });
    const auth = formSignIn({ users, mailer, identities, passkeys, secondFactors });
    const [ann, bob] = [await seedUser(users, "ann@shop.example", "plum orbit velvet 9271"), await seedUser(users, "bob@shop.example", "plum orbit velvet 9271")];
    for (const user of [ann, bob]) {
      await identities.link({ provider: "github", subject: `gh-${user.id}`, userId: user.id, email: user.email });
      await passkeys.add({ id: `key-${user.id}`, userId: user.id, publicKey: "pk", counter: 0, transports: [], name: "Laptop", createdAt: 1, lastUsedAt: undefined });
      await secondFactors.begin(user.id, "JBSWY3DPEHPK3PXP");
      await secondFactors.enable(user.id, 1, []);
    }
    expect(await auth.deleteUser(ann.id)).toBe(true);
    expect(await identities.find("github", `gh-${ann.id}`)).toBeUndefined();
    expect(await passkeys.find(`key-${ann.id}`)).toBeUndefined();
    expect((await secondFactors.get(ann.id))?.enabled ?? false).toBe(false);
    expect(await identities.find("github", `gh-${bob.id}`)).toMatchObject({ userId: bob.id });
    expect(await passkeys.find(`key-${bob.id}`)).toMatchObject({ userId: bob.id });
    expect((await secondFactors.get(bob.id))?.enabled).toBe(true);
  });
});
