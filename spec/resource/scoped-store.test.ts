import { describe, expect, it } from "vitest";
import { FromPath, InMemoryStore, ScopedStore, type Store } from "../../runtime/index.js";
import { storeConformance } from "./store-conformance.js";

interface Row {
  id: number;
  title: string;
  done?: boolean;
  owner?: number;
}

const scoped = (): ScopedStore<Row> => new ScopedStore<Row>(new InMemoryStore<Row>("id"), "owner", FromPath.int);

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
