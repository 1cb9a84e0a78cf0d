import { describe, expect, it } from "vitest";
import { DuplicateValue, MissingReference, StillReferenced, type FieldSpec, type ModelSpec, type OnDelete, type Store } from "../../runtime/index.js";

/**
 * Issue 29's reference and unique rules, which every engine keeps the same way (the in-memory
 * `InMemoryDatabase`, SqlStore on PGlite and on PostgreSQL). The models:
 *
 *   Post ← Comment.post (cascade) ← Vote.comment (cascade)
 *          Comment.parent → Comment (set null, optional)
 *          Comment ← Flag.comment (restrict)
 *   Tag: name unique, code unique and optional; Vote: (comment, voter) unique together.
 */
export interface Post {
  id: number;
  title: string;
}
export interface Comment {
  id: number;
  post: number;
  parent?: number;
  body: string;
}
export interface Vote {
  id: number;
  comment: number;
  voter: number;
}
export interface Flag {
  id: number;
  comment: number;
  reason: string;
}
export interface Tag {
  id: number;
  name: string;
  code?: string;
}

/** One engine's stores for the models, and what its errors call each model (its table, or its name in memory). */
export interface ReferenceStores {
  readonly posts: Store<Post>;
  readonly comments: Store<Comment>;
  readonly votes: Store<Vote>;
  readonly flags: Store<Flag>;
  readonly tags: Store<Tag>;
  readonly names: { readonly [K in "posts" | "comments" | "votes" | "flags" | "tags"]: string };
}

const text = (name: string, more: Partial<FieldSpec> = {}): FieldSpec => ({ name, label: name, input: "text", optional: false, describe: "a text", ...more });
const number = (name: string): FieldSpec => ({ name, label: name, input: "number", optional: false, describe: "a number" });
const reference = (name: string, model: string, onDelete: OnDelete, optional = false): FieldSpec => ({
  name,
  label: name,
  input: "reference",
  optional,
  describe: "a key",
  reference: { model, path: `/${model.toLowerCase()}s`, onDelete },
});

function spec<A>(name: string, fields: FieldSpec[], unique?: string[][]): ModelSpec<A> {
  return {
    name,
    fqn: `models.${name}`,
    path: `/${name.toLowerCase()}s`,
    key: "id",
    fields,
    ...(unique === undefined ? {} : { unique }),
    validate: (input: unknown) => ({ success: true, data: input as A }),
    decodeKey: { read: (text: string) => ({ value: Number(text) }), type: "integer" } as never,
  };
}

/** The models as specs (what the transformer writes): an in-memory database makes its stores from them. */
export const MODELS = {
  posts: spec<Post>("Post", [text("title")]),
  comments: spec<Comment>("Comment", [reference("post", "Post", "cascade"), reference("parent", "Comment", "set null", true), text("body")]),
  votes: spec<Vote>("Vote", [reference("comment", "Comment", "cascade"), number("voter")], [["comment", "voter"]]),
  flags: spec<Flag>("Flag", [reference("comment", "Comment", "restrict"), text("reason")]),
  tags: spec<Tag>("Tag", [text("name", { unique: true }), text("code", { unique: true, optional: true })]),
} as const;

export function referenceConformance(name: string, factory: () => Promise<ReferenceStores>): void {
  describe(`Reference conformance (issue 29): ${name}`, () => {
    const all = async <A>(store: Store<A>): Promise<A[]> => (await store.list({ offset: 0, limit: 100 })).rows as A[];

    it("a reference naming no row is refused with MissingReference (insert and update), and nothing is written", async () => {
      const s = await factory();
      const post = await s.posts.insert({ title: "p" });
      const insert = s.comments.insert({ post: 999_999, body: "orphan" });
      await expect(insert).rejects.toBeInstanceOf(MissingReference);
      await expect(insert).rejects.toMatchObject({ table: s.names.comments, field: "post", key: 999_999 });
      expect(await all(s.comments)).toEqual([]);
      const comment = await s.comments.insert({ post: post.id, body: "ok" });
      await expect(s.comments.update(comment.id, { post: post.id, parent: 999_999, body: "changed" })).rejects.toMatchObject({ name: "MissingReference", field: "parent", key: 999_999 });
      expect(await s.comments.get(comment.id)).toEqual({ id: comment.id, post: post.id, body: "ok" });
      // An optional reference left absent is not checked; a present one to an existing row is kept.
      const reply = await s.comments.insert({ post: post.id, parent: comment.id, body: "reply" });
      expect(await s.comments.get(reply.id)).toEqual({ id: reply.id, post: post.id, parent: comment.id, body: "reply" });
    });

    it("a reference to a row deleted meanwhile is a MissingReference too", async () => {
      const s = await factory();
      const post = await s.posts.insert({ title: "gone soon" });
      expect(await s.posts.delete(post.id)).toBe(true);
      await expect(s.comments.insert({ post: post.id, body: "late" })).rejects.toMatchObject({ name: "MissingReference", field: "post", key: post.id });
    });

    it("restrict: deleting a row that rows point at is refused with StillReferenced naming what points at it; nothing is deleted", async () => {
      const s = await factory();
      const post = await s.posts.insert({ title: "p" });
      const comment = await s.comments.insert({ post: post.id, body: "flagged" });
      const flag = await s.flags.insert({ comment: comment.id, reason: "spam" });
      const refused = s.comments.delete(comment.id);
      await expect(refused).rejects.toBeInstanceOf(StillReferenced);
      await expect(refused).rejects.toMatchObject({ table: s.names.comments, key: comment.id, by: [{ table: s.names.flags, field: "comment" }] });
      expect(await s.comments.get(comment.id)).toMatchObject({ body: "flagged" });
      expect(await s.flags.delete(flag.id)).toBe(true);
      expect(await s.comments.delete(comment.id)).toBe(true);
    });

    it("cascade: deleting a post deletes its comments and their votes (and theirs, recursively); other posts' rows stay", async () => {
      const s = await factory();
      const post = await s.posts.insert({ title: "doomed" });
      const other = await s.posts.insert({ title: "kept" });
      const first = await s.comments.insert({ post: post.id, body: "1" });
      const reply = await s.comments.insert({ post: post.id, parent: first.id, body: "1.1" });
      await s.votes.insert({ comment: first.id, voter: 1 });
      await s.votes.insert({ comment: reply.id, voter: 1 });
      const kept = await s.comments.insert({ post: other.id, body: "elsewhere" });
      const keptVote = await s.votes.insert({ comment: kept.id, voter: 1 });
      expect(await s.posts.delete(post.id)).toBe(true);
      expect(await all(s.comments)).toEqual([kept]);
      expect(await all(s.votes)).toEqual([keptVote]);
      expect((await all(s.posts)).map((p) => p.id)).toEqual([other.id]);
    });

    it("a restricting row anywhere down a cascade refuses the whole delete, and nothing is deleted", async () => {
      const s = await factory();
      const post = await s.posts.insert({ title: "p" });
      const comment = await s.comments.insert({ post: post.id, body: "c" });
      const vote = await s.votes.insert({ comment: comment.id, voter: 3 });
      await s.flags.insert({ comment: comment.id, reason: "r" });
      await expect(s.posts.delete(post.id)).rejects.toMatchObject({ name: "StillReferenced", table: s.names.posts, key: post.id, by: [{ table: s.names.flags, field: "comment" }] });
      expect(await all(s.posts)).toEqual([post]);
      expect(await all(s.comments)).toEqual([comment]);
      expect(await all(s.votes)).toEqual([vote]);
    });

    it("set null: deleting a row clears the optional reference of the rows pointing at it, and keeps them", async () => {
      const s = await factory();
      const post = await s.posts.insert({ title: "p" });
      const parent = await s.comments.insert({ post: post.id, body: "parent" });
      const child = await s.comments.insert({ post: post.id, parent: parent.id, body: "child" });
      expect(await s.comments.delete(parent.id)).toBe(true);
      expect(await all(s.comments)).toEqual([{ id: child.id, post: post.id, body: "child" }]);
    });

    it("unique: a value another row holds is refused with DuplicateValue naming the field; rows without an optional unique value are many", async () => {
      const s = await factory();
      const a = await s.tags.insert({ name: "news" });
      const b = await s.tags.insert({ name: "misc" });
      const again = s.tags.insert({ name: "news" });
      await expect(again).rejects.toBeInstanceOf(DuplicateValue);
      await expect(again).rejects.toMatchObject({ table: s.names.tags, field: "name", fields: ["name"] });
      await expect(s.tags.update(b.id, { name: "news" })).rejects.toMatchObject({ name: "DuplicateValue", field: "name" });
      expect(await s.tags.update(a.id, { name: "news", code: "N" })).toEqual({ id: a.id, name: "news", code: "N" }); // its own value again is no duplicate
      await expect(s.tags.update(b.id, { name: "misc", code: "N" })).rejects.toMatchObject({ field: "code" });
      await s.tags.insert({ name: "third" });
      expect((await all(s.tags)).map((t) => [t.name, t.code])).toEqual([
        ["news", "N"],
        ["misc", undefined],
        ["third", undefined],
      ]);
    });

    it("a composite unique: the same values together are refused with DuplicateValue naming every field; apart they are fine", async () => {
      const s = await factory();
      const post = await s.posts.insert({ title: "p" });
      const c1 = await s.comments.insert({ post: post.id, body: "1" });
      const c2 = await s.comments.insert({ post: post.id, body: "2" });
      const vote = await s.votes.insert({ comment: c1.id, voter: 7 });
      await s.votes.insert({ comment: c2.id, voter: 7 });
      await s.votes.insert({ comment: c1.id, voter: 8 });
      const twice = s.votes.insert({ comment: c1.id, voter: 7 });
      await expect(twice).rejects.toBeInstanceOf(DuplicateValue);
      await expect(twice).rejects.toMatchObject({ table: s.names.votes, field: "comment", fields: ["comment", "voter"] });
      await expect(s.votes.update(vote.id, { comment: c2.id, voter: 7 })).rejects.toMatchObject({ fields: ["comment", "voter"] });
      expect(await s.votes.update(vote.id, { comment: c1.id, voter: 7 })).toEqual(vote);
      expect((await all(s.votes)).length).toBe(3);
    });
  });
}
