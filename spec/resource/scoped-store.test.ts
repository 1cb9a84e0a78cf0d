import { describe, expect, it } from "vitest";
import { FromPath, InMemoryStore, ScopedStore, type Action, type OwnedDeclaration, type RowFilter, type Store } from "../../runtime/index.js";
import { readableRows, type ReadRules } from "../../runtime/resource/read-scope.js";
import { ROW_MODEL, storeConformance } from "./store-conformance.js";

interface Row {
  id: number;
  title: string;
  done?: boolean;
  owner?: number;
}

const scoped = (): ScopedStore<Row> => new ScopedStore<Row>(new InMemoryStore<Row>("id", { ...ROW_MODEL, owner: "owner" }), "owner", FromPath.int);

/** User 7's narrowing, over a table that already holds user 8's rows. */
async function ownRows(): Promise<Store<Row>> {
  const store = scoped();
  await store.for("8").insert({ title: "someone else's" });
  await store.insert({ title: "nobody's" });
  return store.for("7");
}

storeConformance("ScopedStore (the whole table)", scoped);
storeConformance("ScopedStore.for(owner) (one owner's rows)", ownRows, { owner: 7 });

describe("2.13 A scoped store: the whole table and its narrowing by owner", () => {
  it("a narrowing lists and finds only its owner's rows, and stamps the owner (decoded) on insert", async () => {
    const store = scoped();
    const mine = await store.for("7").insert({ title: "mine", owner: 8 });
    const theirs = await store.for("8").insert({ title: "theirs" });
    expect(mine.owner).toBe(7);
    expect((await store.for("7").list({ offset: 0, limit: 10 })).rows.map((r) => r.title)).toEqual(["mine"]);
    expect(await store.for("7").get(theirs.id)).toBeUndefined();
    expect((await store.list({ offset: 0, limit: 10 })).total).toBe(2);
  });

  it("a narrowing cannot change or delete another owner's row", async () => {
    const store = scoped();
    const theirs = await store.for("8").insert({ title: "theirs" });
    expect(await store.for("7").update(theirs.id, { title: "hijacked" })).toBeUndefined();
    expect(await store.for("7").delete(theirs.id)).toBe(false);
    expect(await store.get(theirs.id)).toEqual({ id: theirs.id, title: "theirs", owner: 8 });
  });

  it("an update through the whole table keeps the owner (a form never carries it)", async () => {
    const store = scoped();
    const row = await store.for("8").insert({ title: "v1" });
    expect(await store.update(row.id, { title: "v2" })).toEqual({ id: row.id, title: "v2", owner: 8 });
  });

  it("lists past the first scan page", async () => {
    const store = scoped();
    for (let i = 0; i < 1203; i++) await store.for(i % 2 === 0 ? "7" : "8").insert({ title: `r${i}` });
    const page = await store.for("7").list({ offset: 600, limit: 10 });
    expect(page.total).toBe(602);
    expect(page.rows.map((r) => r.title)).toEqual(Array.from({ length: 2 }, (_, i) => `r${1200 + i * 2}`));
  });

  it("a user key that is not a key of the owner field's type is refused, naming both", () => {
    expect(() => scoped().for("seven")).toThrow(/"seven" is not a valid integer for the owner field "owner"/);
  });
});

describe("A read scope (publicWhen): public rows for everyone, the rest for their owner alone", () => {
  /** User 7's draft and public row, user 8's draft and public row, and a row with the flag absent. */
  async function table(): Promise<ScopedStore<Row>> {
    const store = scoped();
    await store.for("7").insert({ title: "7 draft", done: false });
    await store.for("7").insert({ title: "7 public", done: true });
    await store.for("8").insert({ title: "8 draft", done: false });
    await store.for("8").insert({ title: "8 public", done: true });
    await store.for("8").insert({ title: "8 unset" });
    return store;
  }
  const titles = async (store: Store<Row>): Promise<string[]> => (await store.list({ offset: 0, limit: 10 })).rows.map((r) => r.title);

  it("nobody reads the public rows; an owner reads them and their own, never another's draft", async () => {
    const store = await table();
    expect(await titles(store.readableBy("done", undefined))).toEqual(["7 public", "8 public"]);
    expect(await titles(store.readableBy("done", "7"))).toEqual(["7 draft", "7 public", "8 public"]);
    expect(await titles(store.readableBy("done", "8"))).toEqual(["7 public", "8 draft", "8 public", "8 unset"]);
    expect(await store.readableBy("done", "7").get(3)).toBeUndefined();
    expect((await store.readableBy("done", "7").get(1))?.title).toBe("7 draft");
    expect((await store.readableBy("done", "7").list({ offset: 1, limit: 1 })).total).toBe(3);
  });

  it("is data a database can query: `done = true OR owner = 7`, asked of the store's own `where` when it has one", async () => {
    const store = await table();
    expect(store.readFilter("done", "7")).toEqual({ anyOf: [{ field: "done", equals: true }, { field: "owner", equals: 7 }] });
    expect(store.readFilter("done", undefined)).toEqual({ anyOf: [{ field: "done", equals: true }] });
    const asked: RowFilter[] = [];
    const inner = new InMemoryStore<Row>("id");
    const querying: Store<Row> = Object.assign(Object.create(inner) as Store<Row>, {
      where(filter: RowFilter): Store<Row> {
        asked.push(filter);
        return inner;
      },
    });
    const db = new ScopedStore<Row>(querying, "owner", FromPath.int);
    db.readableBy("done", "7");
    await db.for("7").list({ offset: 0, limit: 1 });
    expect(asked).toEqual([
      { anyOf: [{ field: "done", equals: true }, { field: "owner", equals: 7 }] },
      { anyOf: [{ field: "owner", equals: 7 }] },
    ]);
  });

  it("a narrowing changes and deletes only rows it can read", async () => {
    const store = await table();
    expect(await store.readableBy("done", "7").update(3, { title: "hijacked" })).toBeUndefined();
    expect(await store.readableBy("done", "7").delete(3)).toBe(false);
    expect((await store.get(3))?.title).toBe("8 draft");
  });
});

describe("readableRows: what Index and Show read, and what a handler reads through the companion", () => {
  const covers = (...roles: string[]) => ({ covers: { has: (role: string) => roles.includes(role) }, through: (r: never) => r, identify: (r: never) => r, carries: [] });
  const owned = covers("Edit") as unknown as OwnedDeclaration;

  it("a covered role reads the viewer's own rows; with publicWhen, the public ones and the viewer's own; else all", async () => {
    const store = scoped();
    await store.for("7").insert({ title: "7 draft", done: false });
    await store.for("8").insert({ title: "8 draft", done: false });
    await store.for("8").insert({ title: "8 public", done: true });
    const read = async (rules: ReadRules, viewer: string | undefined, role: Action) => (await readableRows(store, rules, viewer, role).list({ offset: 0, limit: 9 })).rows.map((r) => r.title);
    expect(await read({ owned, publicWhen: "done" }, "7", "Index")).toEqual(["7 draft", "8 public"]);
    expect(await read({ owned, publicWhen: "done" }, undefined, "Show")).toEqual(["8 public"]);
    expect(await read({ owned, publicWhen: "done" }, "7", "Edit")).toEqual(["7 draft"]);
    expect(await read({ owned, publicWhen: "done" }, undefined, "Edit")).toEqual([]);
    expect(await read({ owned }, undefined, "Index")).toEqual(["7 draft", "8 draft", "8 public"]);
    expect(await read({}, undefined, "Index")).toEqual(["7 draft", "8 draft", "8 public"]);
  });

  it("issue 29: a narrowing read by scanning (publicWhen over an in-memory table) applies where and search with its filter; nobody's covered rows refuse an unknown field too", async () => {
    const store = scoped();
    await store.for("7").insert({ title: "Alpha draft", done: false });
    await store.for("8").insert({ title: "alpha public", done: true });
    await store.for("8").insert({ title: "beta public", done: true });
    await store.for("8").insert({ title: "alpha draft", done: false });
    const readable = readableRows(store, { owned, publicWhen: "done" }, "7", "Index");
    const titles = async (page: Parameters<typeof readable.list>[0]) => {
      const { rows, total } = await readable.list(page);
      return { titles: rows.map((r) => r.title), total };
    };
    expect(await titles({ offset: 0, limit: 9, search: { field: "title", prefix: "ALPHA" } })).toEqual({ titles: ["Alpha draft", "alpha public"], total: 2 });
    expect(await titles({ offset: 0, limit: 9, where: { owner: 8 } })).toEqual({ titles: ["alpha public", "beta public"], total: 2 });
    expect(await titles({ offset: 1, limit: 1, where: { owner: [7, 8] }, order: { field: "title", descending: false } })).toEqual({ titles: ["alpha public"], total: 3 });
    await expect(readable.list({ offset: 0, limit: 9, where: { secret: 1 } as never })).rejects.toThrow(/"secret"/);
    const nobody = readableRows(store, { owned }, undefined, "Edit");
    expect(await nobody.list({ offset: 0, limit: 9, where: { owner: 8 } })).toEqual({ rows: [], total: 0 });
    await expect(nobody.list({ offset: 0, limit: 9, where: { secret: 1 } as never })).rejects.toThrow(/"secret"/);
    await expect(nobody.list({ offset: 0, limit: 9, search: { field: "secret", prefix: "" } })).rejects.toThrow(/"secret"/);
  });

  it("an owned model's rows cannot be read through a store that is not its ScopedStore", () => {
    expect(() => readableRows(new InMemoryStore<Row>("id"), { owned, publicWhen: "done" }, undefined, "Index")).toThrow(/declares `owned`, so its rows are read through its ScopedStore/);
  });
});
