// Issue 41, item 5: the back office writes a change and its audit record in one transaction
// where the store is fw/db's. These are the pieces it stands on, on both engines: a store joined
// to a transaction (SqlStore/SqlScopedStore/SqlUsers `within`), SqlAuditLog's write (both or
// neither), its list, and a live store's publish held until the transaction commits.
import { describe, expect, it } from "vitest";
import { FromPath } from "../../runtime/index.js";
import type { AuditRecord } from "../../runtime/admin/index.js";
import { AUDIT_TABLE, createTableSql, joinedTransaction, SqlAuditLog, SqlScopedStore, SqlStore, SqlUsers, usersTableSql, type Database, type TableSpec } from "../../runtime/db/index.js";
import { publishing } from "../../runtime/live/index.js";
import { subscribe } from "../../runtime/live/topics.js";
import { onEveryEngine } from "./engines.js";

interface Thing {
  id: number;
  title: string;
  owner?: number;
}

let tables = 0;

async function things(db: Database): Promise<TableSpec> {
  const n = ++tables;
  await db.script(`CREATE TABLE joined_users_${n} (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY); INSERT INTO joined_users_${n} (id) OVERRIDING SYSTEM VALUE VALUES (7), (8);`);
  const spec: TableSpec = {
    name: `joined_things_${n}`,
    key: { field: "id", column: "id" },
    columns: [
      { field: "title", column: "title", type: "text", nullable: false },
      { field: "owner", column: "owner_id", type: "bigint", nullable: true, references: { table: `joined_users_${n}`, column: "id" } },
    ],
    owner: "owner",
  };
  await db.script(createTableSql(spec));
  return spec;
}

const record = (key: string, title: string): AuditRecord => ({ actor: { id: 7, email: "ada@example.com" }, action: "update", model: "Thing", key, before: { title: "before" }, after: { title } });

onEveryEngine((engine) => {
  describe(`joined writes on ${engine.name}`, () => {
    it("a store joined to a transaction writes in it: rolled back with it, kept with its commit; what runs after commit runs then only", async () => {
      const db = engine.db();
      const store = new SqlStore<Thing>(db, await things(db));
      const row = await store.insert({ title: "first" });
      const after: string[] = [];
      await expect(
        joinedTransaction(db, async (joined) => {
          const rows = store.within(joined) as SqlStore<Thing>;
          await rows.update(row.id, { title: "changed" });
          expect((await rows.get(row.id))?.title).toBe("changed");
          joined.afterCommit(() => after.push("rolled back: never"));
          throw new Error("the record could not be written");
        }),
      ).rejects.toThrow("the record could not be written");
      expect((await store.get(row.id))?.title).toBe("first");
      expect(after).toEqual([]);
      await joinedTransaction(db, async (joined) => {
        await (store.within(joined) as SqlStore<Thing>).update(row.id, { title: "kept" }, 1);
        joined.afterCommit(() => after.push("committed"));
      });
      expect(await store.read(row.id)).toEqual({ row: { id: row.id, title: "kept" }, version: 2 });
      expect(after).toEqual(["committed"]);
    });

    it("a scoped store joins too, keeping owners on update; a store of another database does not join (within answers undefined)", async () => {
      const db = engine.db();
      const scoped = new SqlScopedStore<Thing>(new SqlStore<Thing>(db, await things(db)), FromPath.int);
      const mine = await scoped.for("7").insert({ title: "mine" });
      await joinedTransaction(db, async (joined) => {
        const rows = scoped.within(joined) as SqlScopedStore<Thing>;
        expect(rows).toBeInstanceOf(SqlScopedStore);
        await rows.update(mine.id, { title: "still mine" });
      });
      expect(await scoped.get(mine.id)).toEqual({ id: mine.id, title: "still mine", owner: 7 });
      const other = { db: {} as Database, tx: db, afterCommit: () => undefined };
      expect(scoped.within(other)).toBeUndefined();
    });

    it("SqlAuditLog.write keeps the change and its record together: a record that cannot be written takes the change back", async () => {
      const db = engine.db();
      const store = new SqlStore<Thing>(db, await things(db));
      const log = new SqlAuditLog(db);
      const row = await store.insert({ title: "draft" });
      const changed = await log.write(async (join) => {
        const rows = await join(store);
        const after = await rows.update(row.id, { title: "edited" });
        return { result: after, record: record(String(row.id), "edited") };
      });
      expect(changed?.title).toBe("edited");
      const [entry] = (await log.list({ offset: 0, limit: 10, model: "Thing", key: String(row.id) })).rows;
      expect(entry).toMatchObject({ actor: { id: 7, email: "ada@example.com" }, action: "update", model: "Thing", key: String(row.id), before: { title: "before" }, after: { title: "edited" } });
      expect(entry?.at).toBeInstanceOf(Date);
      // The audit table refuses every new row from now on: the change with it must not be kept.
      await db.query(`ALTER TABLE ${AUDIT_TABLE} ADD CONSTRAINT fw_test_no_more CHECK ("id" < 0) NOT VALID`);
      try {
        await expect(
          log.write(async (join) => {
            const rows = await join(store);
            return { result: await rows.update(row.id, { title: "lost" }), record: record(String(row.id), "lost") };
          }),
        ).rejects.toMatchObject({ code: "23514" });
        expect((await store.get(row.id))?.title).toBe("edited");
      } finally {
        await db.query(`ALTER TABLE ${AUDIT_TABLE} DROP CONSTRAINT fw_test_no_more`);
      }
    });

    it("SqlAuditLog.list: newest first, paged, by model and key, by admin, counted up to countUpTo", async () => {
      const db = engine.db();
      const log = new SqlAuditLog(db);
      const model = `Listed${++tables}`;
      for (let i = 1; i <= 5; i++) {
        await log.write(async () => ({ result: undefined, record: { actor: { id: i % 2 === 0 ? 2 : 1, email: `a${i % 2}@example.com` }, action: "delete", model, key: String(i), before: { n: i } } }));
      }
      const all = await log.list({ offset: 0, limit: 10, model });
      expect(all.rows.map((entry) => entry.key)).toEqual(["5", "4", "3", "2", "1"]);
      expect(all.total).toBe(5);
      expect(all.rows[0]?.after).toBeUndefined();
      expect((await log.list({ offset: 1, limit: 2, model })).rows.map((entry) => entry.key)).toEqual(["4", "3"]);
      expect((await log.list({ offset: 0, limit: 10, model, actor: 2 })).rows.map((entry) => entry.key)).toEqual(["4", "2"]);
      expect((await log.list({ offset: 0, limit: 10, model, key: "3" })).total).toBe(1);
      expect((await log.list({ offset: 0, limit: 1, model, countUpTo: 3 })).total).toBe(3);
    });

    it("SqlUsers joins a transaction: a role granted in one rolled back is not kept", async () => {
      const db = engine.db();
      const table = `joined_accounts_${++tables}`;
      await db.script(usersTableSql(table));
      const users = new SqlUsers(db, { table });
      const ada = await users.create(`ada${tables}@example.com`, "h");
      await expect(
        joinedTransaction(db, async (joined) => {
          const bound = (await users.within(joined)) as SqlUsers;
          expect((await bound.setRoles(ada?.id as number, ["admin"]))?.roles).toEqual(["admin"]);
          throw new Error("rolled back");
        }),
      ).rejects.toThrow("rolled back");
      expect((await users.byId(ada?.id as number))?.roles).toEqual([]);
    });

    it("SqlTeams joins a transaction (a member's role changed and a member removed in one rolled back are not kept, committed they are), and lists every team by name with its member count", async () => {
      const db = engine.db();
      const table = `joined_accounts_${++tables}`;
      await db.script(usersTableSql(table));
      const users = new SqlUsers(db, { table });
      const teams = users.teams();
      const [ann, bob] = [await users.create(`ann${tables}@example.com`, "h"), await users.create(`bob${tables}@example.com`, "h")];
      const desk = await teams.create("Night desk", ann?.id as number);
      await teams.create("Copy desk", bob?.id as number);
      await db.query(`INSERT INTO fw_team_members ("team_id", "user_id", "role") VALUES ($1, $2, 'member')`, [desk.id, bob?.id]);
      await expect(
        joinedTransaction(db, async (joined) => {
          const bound = (await teams.within(joined)) as typeof teams;
          expect(await bound.setRole(desk.id, bob?.id as number, "admin")).toBe("changed");
          expect(await bound.remove(desk.id, bob?.id as number)).toBe("changed");
          throw new Error("rolled back");
        }),
      ).rejects.toThrow("rolled back");
      expect((await teams.members(desk.id)).map((m) => m.role)).toEqual(["owner", "member"]);
      await joinedTransaction(db, async (joined) => {
        const bound = (await teams.within(joined)) as typeof teams;
        expect(await bound.remove(desk.id, ann?.id as number)).toBe("last owner");
        expect(await bound.setRole(desk.id, bob?.id as number, "admin")).toBe("changed");
      });
      expect((await users.byId(bob?.id as number))?.teams).toContainEqual({ team: desk.id, role: "admin" });
      const other = { db: {} as Database, tx: db, afterCommit: () => undefined };
      expect(await teams.within(other)).toBeUndefined();
      expect(await teams.list({ offset: 0, limit: 10 })).toEqual({ rows: [{ id: expect.any(Number), name: "Copy desk", members: 1 }, { id: desk.id, name: "Night desk", members: 2 }], total: 2 });
      expect(await teams.list({ offset: 0, limit: 10, search: "NIGHT" })).toEqual({ rows: [{ id: desk.id, name: "Night desk", members: 2 }], total: 1 });
      expect(await teams.list({ offset: 5, limit: 10, search: "desk" })).toEqual({ rows: [], total: 2 });
    });

    it("a live store joined to a transaction publishes its topic once the transaction commits, not before, and never after a rollback", async () => {
      const db = engine.db();
      const topic = `joined-${++tables}`;
      const live = publishing(new SqlStore<Thing>(db, await things(db)), topic);
      const heard: string[] = [];
      const leave = subscribe(topic, () => heard.push("published"));
      try {
        await joinedTransaction(db, async (joined) => {
          await (live.within(joined) as SqlStore<Thing>).insert({ title: "new" });
          expect(heard).toEqual([]);
        });
        expect(heard).toEqual(["published"]);
        await expect(
          joinedTransaction(db, async (joined) => {
            await (live.within(joined) as SqlStore<Thing>).insert({ title: "gone" });
            throw new Error("rolled back");
          }),
        ).rejects.toThrow("rolled back");
        expect(heard).toEqual(["published"]);
      } finally {
        leave();
      }
    });
  });
});
