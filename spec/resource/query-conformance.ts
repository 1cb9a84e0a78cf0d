import { describe, expect, it } from "vitest";
import type { ListPage, Order, Store, Where } from "../../runtime/index.js";

/** The conformance model's row (store-conformance.ts's `Row`): a text, a yes/no, a number, a day and an optional text. */
export interface QueryRow {
  id: number;
  title: string;
  done?: boolean;
  stars?: number;
  due?: Date;
  note?: string;
}

const day = (text: string): Date => new Date(`${text}T00:00:00Z`);

/** The rows every query test starts from, inserted in this order (keys ascending). */
const ROWS: readonly Omit<QueryRow, "id">[] = [
  { title: "apple", stars: 5, done: true, due: day("2026-01-01"), note: "Red fruit" },
  { title: "Banana", stars: 3, done: false, due: day("2026-02-15") },
  { title: "cherry", note: "small RED" },
  { title: "date", stars: 1.5, done: true, due: day("2025-12-31"), note: "Dried" },
  { title: "Éclair", stars: 4, done: false, due: day("2026-01-01"), note: "100% butter" },
  { title: "fig_tree", stars: 3, due: day("2026-03-01"), note: "a_b" },
];

/**
 * Issue 43, item 1: `where`'s conditions beyond equalities, `or`, several sorts and `count`, the
 * same on every store (in memory, PGlite, PostgreSQL; a whole table and a narrowing of it).
 */
export function queryConformance(make: () => Promise<Store<QueryRow>>): void {
  describe("typed filters (issue 43)", () => {
    /** A store holding `ROWS`, and a reader of which of them a query keeps (as their titles, in the order listed). */
    const seeded = async () => {
      const store = await make();
      const keys: number[] = [];
      for (const row of ROWS) keys.push((await store.insert(row)).id);
      const titles = async (where: Where<QueryRow>, more: Partial<ListPage<QueryRow>> = {}): Promise<string[]> => {
        const page = await store.list({ limit: 20, where, ...more });
        expect(page.total, `the total of ${JSON.stringify(where)}`).toBe(page.rows.length + (more.offset ?? 0));
        expect(await store.count({ where }), `the count of ${JSON.stringify(where)}`).toBe(page.total);
        return page.rows.map((row) => row.title);
      };
      return { store, keys, titles };
    };

    it("ranges on a number: gt, gte, lt, lte, together; a row without the field meets none", async () => {
      const { titles } = await seeded();
      expect(await titles({ stars: { gt: 3 } })).toEqual(["apple", "Éclair"]);
      expect(await titles({ stars: { gte: 3 } })).toEqual(["apple", "Banana", "Éclair", "fig_tree"]);
      expect(await titles({ stars: { lt: 3 } })).toEqual(["date"]);
      expect(await titles({ stars: { lte: 3 } })).toEqual(["Banana", "date", "fig_tree"]);
      expect(await titles({ stars: { gte: 2, lt: 5 } })).toEqual(["Banana", "Éclair", "fig_tree"]);
      expect(await titles({ stars: { gt: 1.5, lte: 1.5 } })).toEqual([]);
      // A bound of another type compares with nothing (a database cannot compare it with the column).
      expect(await titles({ stars: { gt: "2" } } as never)).toEqual([]);
      expect(await titles({ stars: { lt: Number.NaN } })).toEqual([]);
    });

    it("ranges on the key: a fraction lies between whole numbers, a bound past every key keeps all rows or none", async () => {
      const { keys, titles } = await seeded();
      const third = keys[2] as number;
      expect(await titles({ id: { gt: third + 0.5 } })).toEqual(["date", "Éclair", "fig_tree"]);
      expect(await titles({ id: { gte: third - 0.5 } })).toEqual(["cherry", "date", "Éclair", "fig_tree"]);
      expect(await titles({ id: { lt: third + 0.5 } })).toEqual(["apple", "Banana", "cherry"]);
      expect(await titles({ id: { lte: third - 0.5 } })).toEqual(["apple", "Banana"]);
      expect(await titles({ id: { gt: 2 ** 60 } })).toEqual([]);
      expect(await titles({ id: { lte: 2 ** 60 } })).toHaveLength(6);
      expect(await titles({ id: { gt: -(2 ** 60) } })).toHaveLength(6);
      expect(await titles({ id: { lt: Number.NEGATIVE_INFINITY } })).toEqual([]);
      expect(await titles({ id: { lt: Number.POSITIVE_INFINITY } })).toHaveLength(6);
    });

    it("ranges on a text compare by code point (the C collation): capitals before small letters, É after both; a bound holding a NUL lies just past its start", async () => {
      const { titles } = await seeded();
      expect(await titles({ title: { lt: "a" } })).toEqual(["Banana"]);
      expect(await titles({ title: { gte: "apple" } })).toEqual(["apple", "cherry", "date", "Éclair", "fig_tree"]);
      expect(await titles({ title: { gt: "date", lt: "z" } })).toEqual(["fig_tree"]);
      expect(await titles({ title: { gt: "apple\u0000x" } })).toEqual(["cherry", "date", "Éclair", "fig_tree"]);
      expect(await titles({ title: { gte: "apple\u0000" } })).toEqual(["cherry", "date", "Éclair", "fig_tree"]);
      expect(await titles({ title: { lte: "apple\u0000x" } })).toEqual(["apple", "Banana"]);
    });

    it("collation: a character past U+FFFF sorts and compares after U+FFFD on every store, as UTF-8 bytes do (not as UTF-16 units)", async () => {
      const store = await make();
      const high = await store.insert({ title: "\u{1F600} grin" });
      const replacement = await store.insert({ title: "\uFFFD odd" });
      const plain = await store.insert({ title: "zebra" });
      const ids = async (page: Partial<ListPage<QueryRow>>) => (await store.list({ limit: 10, ...page })).rows.map((row) => row.id);
      expect(await ids({ order: { field: "title", descending: false } })).toEqual([plain.id, replacement.id, high.id]);
      expect(await ids({ order: { field: "title", descending: true } })).toEqual([high.id, replacement.id, plain.id]);
      expect(await ids({ where: { title: { gt: "\uFFFD" } } })).toEqual([high.id, replacement.id]);
      expect(await ids({ where: { title: { gt: "\uFFFF" } } })).toEqual([high.id]);
    });

    it("ranges on a day: a Date by its UTC day, an instant within a day between it and the next; past year 9999 keeps all or none", async () => {
      const { titles } = await seeded();
      expect(await titles({ due: { gte: day("2026-01-01") } })).toEqual(["apple", "Banana", "Éclair", "fig_tree"]);
      expect(await titles({ due: { lt: day("2026-01-01") } })).toEqual(["date"]);
      expect(await titles({ due: { gt: new Date("2026-01-01T12:00:00Z") } })).toEqual(["Banana", "fig_tree"]);
      expect(await titles({ due: { gte: new Date("2026-01-01T12:00:00Z") } })).toEqual(["Banana", "fig_tree"]);
      expect(await titles({ due: { lte: new Date("2026-01-01T12:00:00Z") } })).toEqual(["apple", "date", "Éclair"]);
      expect(await titles({ due: { lt: new Date("2026-01-01T12:00:00Z") } })).toEqual(["apple", "date", "Éclair"]);
      expect(await titles({ due: { gt: new Date("+010000-01-01T00:00:00Z") } })).toEqual([]);
      expect(await titles({ due: { lt: new Date("+010000-01-01T00:00:00Z") } })).toEqual(["apple", "Banana", "date", "Éclair", "fig_tree"]);
      expect(await titles({ due: { gte: new Date("-000100-01-01T00:00:00Z") } })).toHaveLength(5);
      expect(await titles({ due: { gt: new Date(Number.NaN) } })).toEqual([]);
      expect(await titles({ due: { gte: "2026-01-01" } } as never)).toEqual([]);
      expect(await titles({ due: day("2026-01-01") })).toEqual(["apple", "Éclair"]);
    });

    it("null: true keeps the rows without a value (SQL's IS NULL), false those with one", async () => {
      const { titles } = await seeded();
      expect(await titles({ note: { null: true } })).toEqual(["Banana"]);
      expect(await titles({ note: { null: false } })).toEqual(["apple", "cherry", "date", "Éclair", "fig_tree"]);
      expect(await titles({ stars: { null: true }, done: { null: true } })).toEqual(["cherry"]);
    });

    it("not: a value, or none of a list's; a row without the field is not any value; a value no row can hold leaves every row", async () => {
      const { titles } = await seeded();
      expect(await titles({ done: { not: true } })).toEqual(["Banana", "cherry", "Éclair", "fig_tree"]);
      expect(await titles({ done: { not: [true, false] } })).toEqual(["cherry", "fig_tree"]);
      expect(await titles({ stars: { not: [] } })).toHaveLength(6);
      expect(await titles({ title: { not: "apple" } })).toEqual(["Banana", "cherry", "date", "Éclair", "fig_tree"]);
      expect(await titles({ stars: { not: "3" } } as never)).toHaveLength(6);
      expect(await titles({ stars: { not: [3, "5"] } } as never)).toEqual(["apple", "cherry", "date", "Éclair"]);
    });

    it("in and eq as objects, as the shorthand: one of a list (an empty one matches nothing), equal to a value", async () => {
      const { titles } = await seeded();
      expect(await titles({ stars: { in: [3, 5] } })).toEqual(["apple", "Banana", "fig_tree"]);
      expect(await titles({ stars: { in: [] } })).toEqual([]);
      expect(await titles({ title: { eq: "date" } })).toEqual(["date"]);
      expect(await titles({ stars: { in: [3, 5], not: 5 } })).toEqual(["Banana", "fig_tree"]);
      expect(await titles({ title: {} })).toHaveLength(6);
    });

    it("contains: a text inside, ignoring case (Latin, Greek, Cyrillic as search folds them); % and _ are plain; a NUL matches nothing", async () => {
      const { titles } = await seeded();
      expect(await titles({ note: { contains: "red" } })).toEqual(["apple", "cherry"]);
      expect(await titles({ title: { contains: "ÉCL" } })).toEqual(["Éclair"]);
      expect(await titles({ note: { contains: "%" } })).toEqual(["Éclair"]);
      expect(await titles({ note: { contains: "_" } })).toEqual(["fig_tree"]);
      expect(await titles({ title: { contains: "_" } })).toEqual(["fig_tree"]);
      expect(await titles({ note: { contains: "" } })).toEqual(["apple", "cherry", "date", "Éclair", "fig_tree"]);
      expect(await titles({ note: { contains: "re\u0000" } })).toEqual([]);
    });

    it("like: an SQL LIKE pattern ignoring case (% any run, _ one character, \\ before either takes it literally; a \\ at the end is a \\)", async () => {
      const { titles } = await seeded();
      expect(await titles({ title: { like: "b%" } })).toEqual(["Banana"]);
      expect(await titles({ title: { like: "%A" } })).toEqual(["Banana"]);
      expect(await titles({ title: { like: "_PPLE" } })).toEqual(["apple"]);
      expect(await titles({ title: { like: "é%" } })).toEqual(["Éclair"]);
      expect(await titles({ title: { like: "fig\\_%" } })).toEqual(["fig_tree"]);
      expect(await titles({ title: { like: "%\\_tree" } })).toEqual(["fig_tree"]);
      expect(await titles({ title: { like: "%a%a%a%" } })).toEqual(["Banana"]);
      expect(await titles({ note: { like: "%\\%%" } })).toEqual(["Éclair"]);
      expect(await titles({ note: { like: "Dried\\" } })).toEqual([]);
      expect(await titles({ note: { like: "%" } })).toHaveLength(5);
      expect(await titles({ note: { like: "%\u0000%" } })).toEqual([]);
    });

    it("or: any of its wheres, beside the other fields (which hold too); an empty or matches nothing; ors nest", async () => {
      const { titles } = await seeded();
      expect(await titles({ or: [{ stars: { gte: 5 } }, { title: "date" }] })).toEqual(["apple", "date"]);
      expect(await titles({ done: false, or: [{ stars: 3 }, { stars: 4 }] })).toEqual(["Banana", "Éclair"]);
      expect(await titles({ or: [] })).toEqual([]);
      expect(await titles({ or: [{}] })).toHaveLength(6);
      expect(await titles({ or: [{ note: { null: true } }, { or: [{ title: { like: "c%" } }, { due: { lt: day("2026-01-01") } }] }] })).toEqual(["Banana", "cherry", "date"]);
    });

    it("several sorts: by each in turn (absent last either way), then key order; paged after filtering and sorting", async () => {
      const { store, titles } = await seeded();
      const orders: Order[] = [
        { field: "done", descending: true },
        { field: "stars", descending: false },
      ];
      expect(await titles({}, { order: orders })).toEqual(["date", "apple", "Banana", "Éclair", "fig_tree", "cherry"]);
      expect(await titles({}, { order: [{ field: "stars", descending: true }, { field: "title", descending: true }] })).toEqual(["apple", "Éclair", "fig_tree", "Banana", "date", "cherry"]);
      expect(await titles({}, { order: [{ field: "id", descending: true }] })).toEqual(["fig_tree", "Éclair", "date", "cherry", "Banana", "apple"]);
      expect(await titles({}, { order: [] })).toEqual(["apple", "Banana", "cherry", "date", "Éclair", "fig_tree"]);
      const page = await store.list({ offset: 1, limit: 2, where: { stars: { gte: 3 } }, order: [{ field: "due", descending: true }] });
      expect(page.rows.map((row) => row.title)).toEqual(["Banana", "apple"]);
      expect(page.total).toBe(4);
    });

    it("keyset paging: after and before walk every sort (ties, absent values, mixed directions, the key itself) page by page, forward and back, as the whole list sorts", async () => {
      const { store } = await seeded();
      await store.insert({ title: "apple", stars: 5 });
      await store.insert({ title: "Banana", done: false });
      const sorts: Order[][] = [
        [],
        [{ field: "title", descending: false }],
        [{ field: "stars", descending: true }],
        [{ field: "done", descending: false }, { field: "stars", descending: true }],
        [{ field: "due", descending: true }, { field: "id", descending: true }],
        [{ field: "note", descending: false }, { field: "title", descending: true }],
        [{ field: "id", descending: true }],
      ];
      for (const order of sorts) {
        const what = JSON.stringify(order);
        const whole = (await store.list({ limit: 100, order, where: { title: { not: "zzz" } } })).rows.map((row) => row.id);
        expect(whole, what).toHaveLength(8);
        const forward: number[] = [];
        let cursor: QueryRow | undefined;
        for (let more = true; more; ) {
          const page = await store.list({ limit: 3, order, ...(cursor === undefined ? {} : { after: cursor }) });
          expect(page.total, what).toBe(8);
          forward.push(...page.rows.map((row) => row.id));
          more = cursor === undefined ? forward.length < 8 : page.more === true;
          if (cursor !== undefined) expect(page.more, what).toBe(forward.length < 8);
          cursor = page.rows[page.rows.length - 1];
          expect(forward.length, what).toBeLessThanOrEqual(8);
        }
        expect(forward, what).toEqual(whole);
        const rows = (await store.list({ limit: 100, order })).rows;
        const backward: number[] = [rows[7]?.id as number];
        let before: QueryRow = rows[7] as QueryRow;
        for (let more = true; more; ) {
          const page = await store.list({ limit: 3, order, before });
          backward.unshift(...page.rows.map((row) => row.id));
          expect(page.more, what).toBe(backward.length < 8);
          more = page.more === true;
          before = page.rows[0] as QueryRow;
        }
        expect(backward, what).toEqual(whole);
      }
    });

    it("keyset paging: a row added before the cursor never shifts the next page; offset counts from the cursor; a where holds; a cursor of the sorted fields alone is enough", async () => {
      const { store, titles } = await seeded();
      const order: Order[] = [{ field: "title", descending: false }];
      const first = await store.list({ limit: 2, order });
      expect(first.rows.map((row) => row.title)).toEqual(["Banana", "apple"]);
      const last = first.rows[1] as QueryRow;
      await store.insert({ title: "Aardvark" });
      await store.insert({ title: "Apricot" });
      const next = await store.list({ limit: 2, order, after: last });
      expect(next.rows.map((row) => row.title)).toEqual(["cherry", "date"]);
      expect(next.total).toBe(8);
      expect(next.more).toBe(true);
      expect((await store.list({ limit: 2, offset: 1, order, after: last })).rows.map((row) => row.title)).toEqual(["date", "fig_tree"]);
      expect((await store.list({ limit: 5, order, after: { title: last.title, id: last.id } })).rows.map((row) => row.title)).toEqual(["cherry", "date", "fig_tree", "Éclair"]);
      const filtered = await store.list({ limit: 1, order, where: { stars: { gte: 3 } }, after: last });
      expect([filtered.rows.map((row) => row.title), filtered.total, filtered.more]).toEqual([["fig_tree"], 4, true]);
      const back = await store.list({ limit: 5, order, before: { title: "cherry", id: 0 } });
      expect([back.rows.map((row) => row.title), back.more]).toEqual([["Aardvark", "Apricot", "Banana", "apple"], false]);
      expect(await titles({ title: { like: "a%" } }, { order, after: { title: "A", id: 0 } })).toEqual(["Aardvark", "Apricot", "apple"]);
    });

    it("full-text search: ranked rows of the searchable fields (a title's match above a note's), web-search syntax, where and paging, snippets marked and escaped", async () => {
      const store = await make();
      const one = await store.insert({ title: "Paint the fence", note: "Red paint", done: true });
      const two = await store.insert({ title: "Build a garden", note: "Fence posts and wire" });
      const three = await store.insert({ title: "Cook dinner", note: "Nothing to see" });
      const four = await store.insert({ title: "Fences and gates", done: true });
      const ids = async (text: string, page: Parameters<Store<QueryRow>["search"]>[1] = {}) => {
        const found = await store.search(text, page);
        return { ids: found.hits.map((hit) => hit.row.id), total: found.total };
      };
      expect(await ids("fence")).toEqual({ ids: [one.id, four.id, two.id], total: 3 });
      expect(await ids("FENCES")).toEqual({ ids: [one.id, four.id, two.id], total: 3 });
      expect(await ids("paint fence")).toEqual({ ids: [one.id], total: 1 });
      expect(await ids('"red paint"')).toEqual({ ids: [one.id], total: 1 });
      expect(await ids("fence -garden")).toEqual({ ids: [one.id, four.id], total: 2 });
      expect(await ids("dinner or gates")).toEqual({ ids: [three.id, four.id], total: 2 });
      expect(await ids("fence", { where: { done: true } })).toEqual({ ids: [one.id, four.id], total: 2 });
      expect(await ids("fence", { limit: 1, offset: 1 })).toEqual({ ids: [four.id], total: 3 });
      expect(await ids("fence", { limit: 1, countUpTo: 2 })).toEqual({ ids: [one.id], total: 2 });
      expect(await ids("fence", { offset: 10 })).toEqual({ ids: [], total: 3 });
      // Only the newest matches are ranked past rankUpTo; every match is still counted.
      expect(await ids("fence", { rankUpTo: 2 })).toEqual({ ids: [four.id, two.id], total: 3 });
      const [first] = (await store.search("fence")).hits;
      expect(first?.row).toMatchObject({ id: one.id, title: "Paint the fence" });
      expect(first?.snippets.title).toContain("<mark>fence</mark>");
      expect(first?.snippets.note).toBeUndefined();
      expect(first?.rank).toBeGreaterThan(0);
      // A field holding some of the words has its snippet too, those words marked.
      const [both] = (await store.search("paint fence")).hits;
      expect(both?.snippets.title).toBe("<mark>Paint</mark> the <mark>fence</mark>");
      expect(both?.snippets.note).toBe("Red <mark>paint</mark>");
    });

    it("full-text search: what is typed is an answer, never an error: tsquery syntax, quotes, a NUL, only stop words; a text over 1,000 characters is a 400", async () => {
      const store = await make();
      const fence = await store.insert({ title: "Paint the fence", note: "<b>Fence</b> & co" });
      const ids = async (text: string) => (await store.search(text)).hits.map((hit) => hit.row.id);
      expect(await ids("fence & | ! :* ( ) <->")).toEqual([fence.id]);
      expect(await ids('"fence')).toEqual([fence.id]);
      expect(await ids("' OR 1=1 --")).toEqual([]);
      expect(await ids("fen\u0000ce")).toEqual([]);
      expect(await ids("the and of")).toEqual([]);
      expect(await ids("")).toEqual([]);
      expect(await ids("   ")).toEqual([]);
      await expect(store.search("x".repeat(1001))).rejects.toThrow(/at most 1000 characters/);
      const note = (await store.search("fence")).hits[0]?.snippets.note ?? "";
      expect(note).toContain("<mark>Fence</mark>");
      expect(note).toContain("&amp;");
      expect(note).not.toContain("<b>");
    });

    it("count: the rows a where and search keep, every row without them", async () => {
      const { store } = await seeded();
      expect(await store.count()).toBe(6);
      expect(await store.count({ where: { stars: { gte: 3 } }, search: { field: "title", prefix: "b" } })).toBe(1);
      expect(await store.count({ where: { or: [] } })).toBe(0);
    });

    it("refuses, naming it: a condition where does not know, contains or like on a field holding no text, an unknown field inside an or, a sort by a field the model lacks", async () => {
      const { store } = await seeded();
      const list = (page: Partial<ListPage<QueryRow>>) => store.list({ limit: 10, ...page });
      await expect(list({ where: { stars: { greater: 3 } } as never })).rejects.toThrow(/"greater"/);
      await expect(list({ where: { stars: { contains: "3" } } as never })).rejects.toThrow(/"stars".*holds no text/);
      await expect(list({ where: { done: { like: "t%" } } as never })).rejects.toThrow(/"done".*holds no text/);
      await expect(list({ where: { or: [{ nope: 1 }] } as never })).rejects.toThrow(/"nope"/);
      await expect(list({ where: { or: { title: "a" } } as never })).rejects.toThrow(/`or` is a list/);
      await expect(list({ where: { note: { null: "yes" } } as never })).rejects.toThrow(/`null`/);
      await expect(list({ order: { field: "nope", descending: false } })).rejects.toThrow(/"nope"/);
      await expect(store.count({ where: { nope: 1 } as never })).rejects.toThrow(/"nope"/);
    });
  });
}
