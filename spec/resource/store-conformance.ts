import { describe, expect, it } from "vitest";
import type { FieldSpec, Store, Where } from "../../runtime/index.js";
import { queryConformance, type QueryRow } from "./query-conformance.js";

type Row = QueryRow;

/** The suite's model as an in-memory store is told it (`new InMemoryStore("id", ROW_MODEL)`): its fields, so a query naming another is refused. */
export const ROW_MODEL: { name: string; fields: FieldSpec[]; owner?: string; search: { fields: string[]; language: string } } = {
  name: "Row",
  search: { fields: ["title", "note"], language: "english" },
  fields: [
    { name: "title", label: "Title", input: "text", optional: false, describe: "a text" },
    { name: "done", label: "Done", input: "checkbox", optional: true, describe: "true or false" },
    { name: "stars", label: "Stars", input: "number", optional: true, describe: "a number" },
    { name: "due", label: "Due", input: "date", optional: true, describe: "a date (YYYY-MM-DD)" },
    { name: "note", label: "Note", input: "text", optional: true, describe: "text" },
  ],
};

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
      // @ts-expect-error a key of another type: refused by the types, and by the store past them (untyped code)
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

    it("countUpTo: counts the matching rows only up to it (the total is the cap once that many match), exactly below it, on an empty page too", async () => {
      const store = await make();
      for (const title of ["a", "b", "a", "a", "c", "a"]) await store.insert({ title });
      expect((await store.list({ offset: 0, limit: 2, countUpTo: 3 })).total).toBe(3);
      expect((await store.list({ offset: 0, limit: 2, countUpTo: 6 })).total).toBe(6);
      expect((await store.list({ offset: 0, limit: 2, countUpTo: 7 })).total).toBe(6);
      const capped = await store.list({ offset: 1, limit: 2, countUpTo: 2, where: { title: "a" } });
      expect(capped.rows.map((row) => row.title)).toEqual(["a", "a"]);
      expect(capped.total).toBe(2);
      expect((await store.list({ offset: 0, limit: 2, countUpTo: 10, where: { title: "a" } })).total).toBe(4);
      // Past the last row: the rows are counted all the same, up to the cap.
      expect((await store.list({ offset: 50, limit: 2, countUpTo: 3 })).total).toBe(3);
      expect((await store.list({ offset: 50, limit: 2, countUpTo: 10, where: { title: "c" } })).total).toBe(1);
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

    it("where: only rows whose fields equal all its values, counted in total, sorted and paged after filtering", async () => {
      const store = await make();
      const a = await store.insert({ title: "a", done: true });
      const b = await store.insert({ title: "b", done: false });
      const c = await store.insert({ title: "a", done: false });
      const d = await store.insert({ title: "a" });
      const ids = async (where: Where<Row>, more: { offset?: number; limit?: number; order?: { field: string; descending: boolean } } = {}) => {
        const page = await store.list({ offset: more.offset ?? 0, limit: more.limit ?? 10, where, ...(more.order === undefined ? {} : { order: more.order }) });
        return { ids: page.rows.map((row) => row.id), total: page.total };
      };
      expect(await ids({ title: "a" })).toEqual({ ids: [a.id, c.id, d.id], total: 3 });
      expect(await ids({ title: "a", done: false })).toEqual({ ids: [c.id], total: 1 });
      expect(await ids({ done: false }, { order: { field: "title", descending: true } })).toEqual({ ids: [b.id, c.id], total: 2 });
      expect(await ids({ title: "a" }, { offset: 1, limit: 1 })).toEqual({ ids: [c.id], total: 3 });
      expect(await ids({ title: "a" }, { offset: 5, limit: 1 })).toEqual({ ids: [], total: 3 });
      expect(await ids({ title: "zzz" })).toEqual({ ids: [], total: 0 });
      // A row whose field is absent matches no equality on it, true or false.
      expect((await ids({ done: true })).ids).toEqual([a.id]);
      expect((await ids({ title: "a", done: false })).ids).not.toContain(d.id);
      // A field left undefined is no condition.
      expect((await ids({ title: "a", done: undefined } as Where<Row>)).total).toBe(3);
      // A value of another type than the field's matches nothing (a database compares as its column's type).
      expect(await ids({ done: "true" } as never)).toEqual({ ids: [], total: 0 });
      expect(await ids({ title: 7 } as never)).toEqual({ ids: [], total: 0 });
    });

    it("where: a list of values (SQL = ANY) matches any of them; an empty list matches nothing; a key no row can have matches nothing, without an error", async () => {
      const store = await make();
      const a = await store.insert({ title: "a" });
      const b = await store.insert({ title: "b" });
      const c = await store.insert({ title: "c" });
      const ids = async (where: Where<Row>) => {
        const page = await store.list({ offset: 0, limit: 10, where });
        return { ids: page.rows.map((row) => row.id), total: page.total };
      };
      expect(await ids({ id: [c.id, a.id, 2 ** 40] })).toEqual({ ids: [a.id, c.id], total: 2 });
      expect(await ids({ id: b.id })).toEqual({ ids: [b.id], total: 1 });
      expect(await ids({ title: ["c", "b", 'x"y\\z', "{,}"] })).toEqual({ ids: [b.id, c.id], total: 2 });
      expect(await ids({ id: [] })).toEqual({ ids: [], total: 0 });
      expect(await ids({ id: [], title: "a" })).toEqual({ ids: [], total: 0 });
      for (const key of [1.5, -1, 0, 2 ** 63, -(2 ** 63) - 1, Number.NaN, Number.POSITIVE_INFINITY, "1", String(a.id), null, true]) {
        expect(await ids({ id: key } as never), String(key)).toEqual({ ids: [], total: 0 });
      }
      expect(await ids({ id: [1.5, "1", 2 ** 63, a.id] } as never)).toEqual({ ids: [a.id], total: 1 });
      expect(await ids({ title: "nul\u0000" })).toEqual({ ids: [], total: 0 });
    });

    it("where and search naming a field the model lacks throw, naming it; search of a field that holds no text too", async () => {
      const store = await make();
      await store.insert({ title: "a" });
      await expect(store.list({ offset: 0, limit: 10, where: { nope: 1 } as never })).rejects.toThrow(/"nope"/);
      await expect(store.list({ offset: 0, limit: 10, where: { title: "a", nope: [] } as never })).rejects.toThrow(/"nope"/);
      await expect(store.list({ offset: 0, limit: 10, search: { field: "nope", prefix: "a" } })).rejects.toThrow(/"nope"/);
      await expect(store.list({ offset: 0, limit: 10, search: { field: "done", prefix: "t" } })).rejects.toThrow(/"done".*holds no text/);
    });

    it("search: rows whose text field starts with the prefix, ignoring case (Latin, Greek, Cyrillic letters alike on every store); % _ and \\ are plain characters", async () => {
      const store = await make();
      const titles = ["Apple pie", "apricot", "Banana", "ÉCLAIR", "éclat", "100% juice", "1000 things", "a_b", "axb", "back\\slash", "backslash", "ΣΟΦΙΑ", "Москва", "b"];
      const rows = new Map<string, number>();
      for (const title of titles) rows.set(title, (await store.insert({ title, done: title.length > 5 })).id);
      const found = async (prefix: string, where?: Where<Row>) => {
        const page = await store.list({ offset: 0, limit: 20, search: { field: "title", prefix }, ...(where === undefined ? {} : { where }) });
        expect(page.total).toBe(page.rows.length);
        return page.rows.map((row) => row.title);
      };
      expect(await found("ap")).toEqual(["Apple pie", "apricot"]);
      expect(await found("APPLE P")).toEqual(["Apple pie"]);
      expect(await found("éc")).toEqual(["ÉCLAIR", "éclat"]);
      expect(await found("Écla")).toEqual(["ÉCLAIR", "éclat"]);
      expect(await found("σοφ")).toEqual(["ΣΟΦΙΑ"]);
      expect(await found("моск")).toEqual(["Москва"]);
      expect(await found("100%")).toEqual(["100% juice"]);
      expect(await found("a_")).toEqual(["a_b"]);
      expect(await found("back\\")).toEqual(["back\\slash"]);
      expect(await found("%")).toEqual([]);
      expect(await found("_")).toEqual([]);
      expect(await found("nul\u0000")).toEqual([]);
      expect(await found("")).toHaveLength(titles.length);
      expect(await found("b", { done: false })).toEqual(["b"]);
      expect((await store.list({ offset: 1, limit: 1, search: { field: "title", prefix: "b" } })).total).toBe(4);
    });

    queryConformance(make);

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
