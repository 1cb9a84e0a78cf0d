import { describe, expect, it } from "vitest";
import { MissingReference, type FieldSpec, type ModelSpec, type Store } from "../../runtime/index.js";

/**
 * Issue 43, item 5: a list of references (`tags: Id<Tag>[]`, many-to-many), which every engine
 * keeps the same way (the in-memory `InMemoryDatabase`, SqlStore on PGlite and on PostgreSQL,
 * where a join table holds it). The models: Article.tags lists Labels; Article.related lists
 * Articles (a list of its own model's rows).
 */
export interface Label {
  id: number;
  name: string;
}
export interface Article {
  id: number;
  title: string;
  tags: number[];
  related?: number[];
}

/** One engine's stores, what its errors call the articles, and (a database) how many statements it has been sent. */
export interface ListStores {
  readonly labels: Store<Label>;
  readonly articles: Store<Article>;
  readonly articlesName: string;
  readonly statements?: () => number;
}

const list = (name: string, model: string, optional = false): FieldSpec => ({
  name,
  label: name,
  input: "references",
  optional,
  describe: "a list",
  reference: { model, path: `/${model.toLowerCase()}s`, onDelete: "cascade" },
});

function spec<A>(name: string, fields: FieldSpec[]): ModelSpec<A> {
  return {
    name,
    fqn: `models.${name}`,
    path: `/${name.toLowerCase()}s`,
    key: "id",
    fields,
    validate: (input: unknown) => ({ success: true, data: input as A }),
    decodeKey: { read: (text: string) => ({ value: Number(text) }), type: "integer" } as never,
  };
}

/** The models as specs (what the transformer writes for them). */
export const LIST_MODELS = {
  labels: spec<Label>("Label", [{ name: "name", label: "Name", input: "text", optional: false, describe: "text" }]),
  articles: spec<Article>("Article", [{ name: "title", label: "Title", input: "text", optional: false, describe: "text" }, list("tags", "Label"), list("related", "Article", true)]),
} as const;

export function listConformance(name: string, factory: () => Promise<ListStores>): void {
  describe(`List conformance (issue 43, many-to-many): ${name}`, () => {
    it("insert and get keep the list's keys, in key order without repeats; an empty list is a list", async () => {
      const s = await factory();
      const [a, b, c] = [await s.labels.insert({ name: "a" }), await s.labels.insert({ name: "b" }), await s.labels.insert({ name: "c" })];
      const article = await s.articles.insert({ title: "t", tags: [c.id, a.id, c.id] });
      expect(article.tags).toEqual([a.id, c.id]);
      expect(await s.articles.get(article.id)).toMatchObject({ id: article.id, title: "t", tags: [a.id, c.id] });
      const bare = await s.articles.insert({ title: "none", tags: [] });
      expect((await s.articles.get(bare.id))?.tags).toEqual([]);
      expect(b.id).toBeGreaterThan(0);
    });

    it("update replaces the set: keys added and taken out; a list left out of the draft is emptied", async () => {
      const s = await factory();
      const [a, b, c] = [await s.labels.insert({ name: "a" }), await s.labels.insert({ name: "b" }), await s.labels.insert({ name: "c" })];
      const article = await s.articles.insert({ title: "t", tags: [a.id, b.id] });
      expect((await s.articles.update(article.id, { title: "t2", tags: [b.id, c.id] }))?.tags).toEqual([b.id, c.id]);
      expect(await s.articles.get(article.id)).toMatchObject({ title: "t2", tags: [b.id, c.id] });
      await s.articles.update(article.id, { title: "t3" });
      expect((await s.articles.get(article.id))?.tags).toEqual([]);
    });

    it("a key no row has is refused with MissingReference naming the field and the key; nothing of the write is kept", async () => {
      const s = await factory();
      const a = await s.labels.insert({ name: "a" });
      const insert = s.articles.insert({ title: "orphan", tags: [a.id, 999_999] });
      await expect(insert).rejects.toBeInstanceOf(MissingReference);
      await expect(insert).rejects.toMatchObject({ table: s.articlesName, field: "tags", key: 999_999 });
      expect((await s.articles.list({ limit: 100, where: { title: "orphan" } })).rows).toEqual([]);
      const article = await s.articles.insert({ title: "kept", tags: [a.id] });
      await expect(s.articles.update(article.id, { title: "changed", tags: [999_998] })).rejects.toMatchObject({ name: "MissingReference", field: "tags", key: 999_998 });
      expect(await s.articles.get(article.id)).toMatchObject({ title: "kept", tags: [a.id] });
    });

    it("deleting a listed row takes it out of every list; deleting the row drops its links", async () => {
      const s = await factory();
      const [a, b] = [await s.labels.insert({ name: "a" }), await s.labels.insert({ name: "b" })];
      const one = await s.articles.insert({ title: "one", tags: [a.id, b.id] });
      const two = await s.articles.insert({ title: "two", tags: [a.id] });
      expect(await s.labels.delete(a.id)).toBe(true);
      expect((await s.articles.get(one.id))?.tags).toEqual([b.id]);
      expect((await s.articles.get(two.id))?.tags).toEqual([]);
      expect(await s.articles.delete(one.id)).toBe(true);
      expect(await s.labels.delete(b.id)).toBe(true);
    });

    it("a list of the model's own rows (related) works as any other; optional, and absent reads as the empty list", async () => {
      const s = await factory();
      const first = await s.articles.insert({ title: "first", tags: [] });
      expect((await s.articles.get(first.id))?.related).toEqual([]);
      const second = await s.articles.insert({ title: "second", tags: [], related: [first.id] });
      expect((await s.articles.get(second.id))?.related).toEqual([first.id]);
      expect(await s.articles.delete(first.id)).toBe(true);
      expect((await s.articles.get(second.id))?.related).toEqual([]);
    });

    it("where { tags: { has: key } } keeps the rows whose list holds the key, with other conditions, counted alike; has on another field is refused", async () => {
      const s = await factory();
      const [a, b] = [await s.labels.insert({ name: "a" }), await s.labels.insert({ name: "b" })];
      const x = await s.articles.insert({ title: "x", tags: [a.id] });
      const y = await s.articles.insert({ title: "y", tags: [a.id, b.id] });
      await s.articles.insert({ title: "z", tags: [b.id] });
      const tagged = await s.articles.list({ limit: 10, where: { tags: { has: a.id } } });
      expect(tagged.rows.map((r) => r.title)).toEqual(["x", "y"]);
      expect(tagged.total).toBe(2);
      expect(tagged.rows[1]?.tags).toEqual([a.id, b.id]);
      expect(await s.articles.count({ where: { tags: { has: b.id }, title: "y" } })).toBe(1);
      expect((await s.articles.list({ limit: 10, where: { or: [{ tags: { has: b.id } }, { title: "x" }] } })).total).toBe(3);
      expect((await s.articles.list({ limit: 10, where: { tags: { has: 999_999 } } })).rows).toEqual([]);
      expect(x.id).toBeLessThan(y.id);
      await expect(s.articles.list({ limit: 10, where: { title: { has: "x" } } as never })).rejects.toThrow(/no list|has is for a list/);
      await expect(s.articles.list({ limit: 10, where: { tags: { eq: a.id } } as never })).rejects.toThrow(/a list takes `has`/);
    });

    it("a page's lists cost one statement for the whole page, not one per row", async () => {
      const s = await factory();
      if (s.statements === undefined) return; // in memory: no statements to count
      const labels = [await s.labels.insert({ name: "a" }), await s.labels.insert({ name: "b" })];
      const titled = `page ${Math.random()}`;
      await s.articles.insert({ title: titled, tags: [labels[0]?.id as number] });
      const before1 = s.statements();
      const page1 = await s.articles.list({ limit: 50, where: { title: titled } });
      const one = s.statements() - before1;
      for (let n = 0; n < 30; n++) await s.articles.insert({ title: titled, tags: labels.map((l) => l.id) });
      const before31 = s.statements();
      const page31 = await s.articles.list({ limit: 50, where: { title: titled } });
      const thirtyOne = s.statements() - before31;
      expect(page1.rows).toHaveLength(1);
      expect(page31.rows).toHaveLength(31);
      expect(page31.rows.map((row) => row.tags.length)).toEqual([1, ...Array<number>(30).fill(2)]);
      expect(thirtyOne).toBe(one);
      expect(one).toBe(3); // the page, then one statement per list field (tags, related) for all its rows
    });
  });
}
