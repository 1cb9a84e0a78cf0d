// Issue 41, item 6, beside issue 42 and teams: deleting an account takes the user's API tokens,
// second factor, passkeys, linked providers and team memberships with it, and the teams they
// are the only member of (with those teams' rows); the last owner of a team that keeps other
// members is refused, nothing changed. "Download my data" tells what each sign-in record is,
// never its secret. SqlUsers on PGlite and PostgreSQL.
import { describe, expect, it } from "vitest";
import { freshApiToken } from "../../runtime/auth/api-token-store.js";
import { seedUser } from "../../runtime/auth/index.js";
import { signInRecords } from "../../runtime/db/account-sign-in.js";
import { createTableSql, SqlStore, SqlUsers, usersTableSql, type TableSpec } from "../../runtime/db/index.js";
import { onEveryEngine } from "./engines.js";

const PASSWORD = "plum orbit velvet 9271";

/** A team's rows (the team's field says "cascade", as the build writes it). */
const boards: TableSpec = {
  name: "boards",
  key: { field: "id", column: "id" },
  columns: [
    { field: "title", column: "title", type: "text", nullable: false },
    { field: "team", column: "team_id", type: "bigint", nullable: false, references: { table: "fw_teams", column: "id", onDelete: "cascade" } },
    { field: "cover", column: "cover", type: "jsonb", nullable: true, fileAt: "/boards" },
  ],
  model: { name: "Board", path: "/boards" },
};

onEveryEngine((engine) => {
  describe("deleting an account, with what sign-in and teams keep of it", () => {
    it("the last owner of a team with other members is refused (FW_LAST_OWNER, naming it), nothing changed; once another is owner, everything of the user goes, and the team they alone were in with its rows", async () => {
      const db = engine.db();
      await db.script(usersTableSql());
      const users = new SqlUsers(db);
      const teams = users.teams();
      await teams.ready();
      await db.script(createTableSql(boards));
      const store = new SqlStore<Record<string, unknown>>(db, boards);
      const ann = await seedUser(users, "ann@teams.example", PASSWORD);
      const bob = await seedUser(users, "bob@teams.example", PASSWORD);

      const { token, record } = freshApiToken({ userId: ann.id, name: "deploy", scopes: ["tasks:write"], createdAt: 1_000, expiresAt: Date.now() + 86_400_000 });
      expect(await users.apiTokens().create(record, 10)).toBe(true);
      const second = users.secondFactors();
      expect(await second.begin(ann.id, "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP")).toBe(true);
      expect(await second.enable(ann.id, 1, ["recovery-hash-1"])).toBe(true);
      expect(await users.identities().link({ provider: "github", subject: "4242", userId: ann.id, email: "ann@github.example" })).toBe(true);
      const passkey = { id: "credential-id-ann", userId: ann.id, publicKey: "public-key-ann", counter: 0, transports: ["internal"], name: "Laptop", createdAt: 2_000, lastUsedAt: undefined };
      expect(await users.passkeys().add(passkey)).toBe(true);
      const shared = await teams.create("Newsroom", ann.id);
      await teams.invite({ team: shared.id, email: bob.email, role: "member", by: ann.id, tokenHash: "invitation-hash", expiresAt: Date.now() + 86_400_000 });
      expect(await teams.accept("invitation-hash", bob.id, Date.now())).toMatchObject({ team: shared.id, role: "member" });
      const solo = await teams.create("Ann alone", ann.id);
      const board = await store.insert({ title: "Ann's board", team: solo.id });
      const bobs = await store.insert({ title: "The newsroom's board", team: shared.id });

      // "Download my data" tells what each record is and when, never its secret.
      const records = await signInRecords(db, ann.id);
      expect(records).toEqual({
        apiTokens: [{ name: "deploy", scopes: ["tasks:write"], createdAt: new Date(1_000).toISOString(), expiresAt: new Date(record.expiresAt).toISOString(), lastUsedAt: null }],
        passkeys: [{ name: "Laptop", createdAt: new Date(2_000).toISOString(), lastUsedAt: null }],
        twoStepSignIn: true,
        signInProviders: [{ provider: "github", subject: "4242", email: "ann@github.example" }],
        teams: [
          { id: solo.id, name: "Ann alone", role: "owner" },
          { id: shared.id, name: "Newsroom", role: "owner" },
        ],
      });
      const text = JSON.stringify(records);
      for (const secret of [token, record.selector, record.verifierHash, "JBSWY3DPEHPK3PXP", "recovery-hash-1", "credential-id-ann", "public-key-ann"]) expect(text).not.toContain(secret);

      // The last owner of a team others are in: refused, nothing changed.
      await expect(users.delete(ann.id)).rejects.toMatchObject({ code: "FW_LAST_OWNER", teams: ["Newsroom"] });
      expect(await users.byId(ann.id)).toBeDefined();
      expect(await teams.get(solo.id)).toEqual(solo);
      expect(await store.get(board["id"])).toBeDefined();
      expect(await signInRecords(db, ann.id)).toEqual(records);

      // The files of the rows going with her: those of the team she alone is in, not the newsroom's.
      await db.query(`UPDATE boards SET cover = $2::jsonb WHERE id = $1`, [board["id"], JSON.stringify({ key: "solo-board-cover", name: "a.png", type: "image/png", size: 1, checksum: "x" })]);
      await db.query(`UPDATE boards SET cover = $2::jsonb WHERE id = $1`, [bobs["id"], JSON.stringify({ key: "newsroom-cover", name: "b.png", type: "image/png", size: 1, checksum: "y" })]);
      expect(await db.transaction((tx) => users.accountData().rows.filesGoingWith(tx, ann.id, [solo.id]))).toEqual(["solo-board-cover"]);

      // Another owner: the account goes, and all of it with it.
      expect(await teams.setRole(shared.id, bob.id, "owner")).toBe("changed");
      expect(await users.delete(ann.id)).toBe(true);
      expect(await users.byId(ann.id)).toBeUndefined();
      expect(await users.apiTokens().list(ann.id)).toEqual([]);
      expect(await second.get(ann.id)).toBeUndefined();
      expect(await users.identities().find("github", "4242")).toBeUndefined();
      expect(await users.passkeys().find("credential-id-ann")).toBeUndefined();
      expect(await signInRecords(db, ann.id)).toEqual({ apiTokens: [], passkeys: [], twoStepSignIn: false, signInProviders: [], teams: [] });
      // The team she alone was in went, with its rows; the newsroom stays, Bob its owner, its rows kept.
      expect(await teams.get(solo.id)).toBeUndefined();
      expect(await store.get(board["id"])).toBeUndefined();
      expect(await teams.members(shared.id)).toEqual([{ user: bob.id, email: bob.email, role: "owner" }]);
      expect(await store.get(bobs["id"])).toMatchObject({ title: "The newsroom's board" });
    });

    it("a member (not an owner) of a team is deleted at once; the team keeps its owner", async () => {
      const db = engine.db();
      const users = new SqlUsers(db);
      const teams = users.teams();
      const owner = await seedUser(users, "owner@member.example", PASSWORD);
      const member = await seedUser(users, "member@member.example", PASSWORD);
      const team = await teams.create("Desk", owner.id);
      await teams.invite({ team: team.id, email: member.email, role: "admin", by: owner.id, tokenHash: "desk-invitation", expiresAt: Date.now() + 86_400_000 });
      await teams.accept("desk-invitation", member.id, Date.now());
      expect(await users.delete(member.id)).toBe(true);
      expect(await teams.members(team.id)).toEqual([{ user: owner.id, email: owner.email, role: "owner" }]);
    });
  });
});
