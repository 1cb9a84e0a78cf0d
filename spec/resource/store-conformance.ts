import { describe, expect, it } from "vitest";
import type { Store } from "../../runtime/index.js";

interface Row {
  id: number;
  title: string;
  done?: boolean;
}

/**
 * The contract every Store implementation keeps (spec 2.14). Run it against each one with a
 * factory that makes an empty store for the `Row` model keyed by `id` (empty as the store sees
 * it: a narrowing may sit over others' rows). `stamped` are fields the store adds to every row
 * it inserts (a scoped store's owner).
 */
export function storeConformance(name: string, factory: () => Store<Row> | Promise<Store<Row>>, stamped: Record<string, unknown> = {}): void {
  const make = async (): Promise<Store<Row>> => factory();
  describe(`Store conformance: ${name}`, () => {
    it("inserts with fresh, distinct keys and reads rows back", async () => {
      const store = await make();
      const a = await store.insert({ title: "a" });
      const b = await store.insert({ title: "b", done: true });
      expect(a.id).not.toBe(b.id);
      expect(await store.get(a.id)).toEqual({ ...stamped, id: a.id, title: "a" });
      expect(await store.get(b.id)).toEqual({ ...stamped, id: b.id, title: "b", done: true });
    });

    it("answers undefined for an unknown key, of any type", async () => {
      const store = await make();
      expect(await store.get(12345)).toBeUndefined();
      expect(await store.get("1")).toBeUndefined();
      expect(await store.update(999, { title: "x" })).toBeUndefined();
      expect(await store.delete(999)).toBe(false);
    });

    it("lists sorted by a field when asked (absent values last, ties in key order), paged after sorting", async () => {
      const store = await make();
      const c = await store.insert({ title: "c", done: true });
      const a = await store.insert({ title: "a" });
      const b = await store.insert({ title: "B", done: false });
      const a2 = await store.insert({ title: "a", done: true });
      const titles = async (order: { field: string; descending: boolean }, offset = 0, limit = 10) =>
        (await store.list({ offset, limit, order })).rows.map((row) => row.id);
      expect(await titles({ field: "title", descending: false })).toEqual([b.id, a.id, a2.id, c.id]); // code point order: "B" < "a"
      expect(await titles({ field: "title", descending: true })).toEqual([c.id, a.id, a2.id, b.id]);
      expect(await titles({ field: "done", descending: true })).toEqual([c.id, a2.id, b.id, a.id]); // absent last
      expect(await titles({ field: "title", descending: false }, 1, 2)).toEqual([a.id, a2.id]);
      expect((await store.list({ offset: 0, limit: 10 })).rows.map((row) => row.id)).toEqual([c.id, a.id, b.id, a2.id]);
    });

    it("lists in key order with offset and limit, and counts all rows", async () => {
      const store = await make();
      for (const title of ["a", "b", "c", "d", "e"]) await store.insert({ title });
      const page = await store.list({ offset: 1, limit: 2 });
      expect(page.total).toBe(5);
      expect(page.rows.map((row) => row.title)).toEqual(["b", "c"]);
      expect((await store.list({ offset: 10, limit: 2 })).rows).toEqual([]);
    });

    it("updates a row in place, keeping its key", async () => {
      const store = await make();
      const row = await store.insert({ title: "old" });
      expect(await store.update(row.id, { title: "new", done: true })).toEqual({ ...stamped, id: row.id, title: "new", done: true });
      expect(await store.get(row.id)).toEqual({ ...stamped, id: row.id, title: "new", done: true });
    });

    it("deletes a row once", async () => {
      const store = await make();
      const row = await store.insert({ title: "x" });
      expect(await store.delete(row.id)).toBe(true);
      expect(await store.get(row.id)).toBeUndefined();
      expect(await store.delete(row.id)).toBe(false);
      expect((await store.list({ offset: 0, limit: 10 })).total).toBe(0);
    });

    it("hands out copies: changing a returned row changes nothing stored", async () => {
      const store = await make();
      const row = await store.insert({ title: "kept" });
      row.title = "changed";
      const read = await store.get(row.id);
      if (read !== undefined) read.title = "changed too";
      expect((await store.get(row.id))?.title).toBe("kept");
    });
  });
}
