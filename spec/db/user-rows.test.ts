// Issue 41, item 6: the rows that name a user, read from the tables the app's stores were made
// for: through the owner and through a user named beside it (a plain relation to the users,
// `readonly approver?: Id<User>`), each with its own onDelete rule. On PGlite and PostgreSQL.
import { describe, expect, it } from "vitest";
import { createTableSql, SqlStore, SqlUsers, usersTableSql, type TableSpec } from "../../runtime/db/index.js";
import { seedUser } from "../../runtime/auth/index.js";
import { onEveryEngine } from "./engines.js";

const invoices: TableSpec = {
  name: "invoices",
  key: { field: "id", column: "id" },
  columns: [
    { field: "amount", column: "amount", type: "double precision", nullable: false },
    { field: "approver", column: "approver_id", type: "bigint", nullable: true, references: { table: "users", column: "id", onDelete: "set null" } },
    { field: "customer", column: "customer_id", type: "bigint", nullable: false, references: { table: "users", column: "id" } },
  ],
  owner: "customer",
  model: { name: "Invoice", path: "/invoices" },
};

onEveryEngine((engine) => {
  describe("a user's rows, through the owner and a user named beside it", () => {
    it("rowsOf gives every row naming the user in any of its user columns; holding names the restricting model; deleting the approver clears the approver, the customer's rows refuse it", async () => {
      const db = engine.db();
      await db.script(usersTableSql() + createTableSql(invoices));
      const store = new SqlStore<Record<string, unknown>>(db, invoices);
      const users = new SqlUsers(db);
      const ann = await seedUser(users, "ann@invoices.example", "plum orbit velvet 9271");
      const bob = await seedUser(users, "bob@invoices.example", "plum orbit velvet 9271");
      const anns = await store.insert({ amount: 120, customer: ann.id, approver: bob.id });
      const bobs = await store.insert({ amount: 7, customer: bob.id });
      const data = users.accountData();
      const rowsOf = async (id: number) => (await data.rows.rowsOf(id)).map((m) => [m.model, m.rows.map((row) => row["id"])]);
      expect(await rowsOf(bob.id)).toEqual([["Invoice", [anns["id"], bobs["id"]]]]);
      expect(await rowsOf(ann.id)).toEqual([["Invoice", [anns["id"]]]]);
      expect(await data.holding(bob.id)).toEqual(["invoices"]);
      await expect(users.delete(bob.id)).rejects.toMatchObject({ code: expect.stringMatching(/^(23503|23001)$/) });
      expect((await store.get(anns["id"]))?.["approver"]).toBe(bob.id); // rolled back: nothing changed
      await store.delete(bobs["id"]);
      expect(await data.holding(bob.id)).toEqual([]);
      expect(await users.delete(bob.id)).toBe(true);
      expect(await store.get(anns["id"])).toEqual({ id: anns["id"], amount: 120, customer: ann.id });
      expect(await data.holding(ann.id)).toEqual(["invoices"]);
    });
  });
});
