import { describe, expectTypeOf, it } from "vitest";
import type { Id, LongText, Where } from "../../runtime/index.js";
import type { tags } from "typia";

interface Post {
  id: Id<Post>;
  title: string & tags.MinLength<1>;
  published: boolean;
  summary?: string;
}
interface Comment {
  id: Id<Comment>;
  post: Id<Post>;
  parent?: Id<Comment>;
  body: LongText;
  stars: number;
  kind: "note" | "question";
  due?: Date;
  note?: string;
}
interface Note {
  id: Id<Note>;
}

describe("Where<Model>: a store's typed equalities (issue 29, item 5)", () => {
  it("takes the model's fields with values of their types, or lists of them", () => {
    const post: Post = { id: 1, title: "x", published: true };
    expectTypeOf<{ post: 7 }>().toMatchTypeOf<Where<Comment>>();
    expectTypeOf({ post: post.id, kind: "note" as const }).toMatchTypeOf<Where<Comment>>();
    expectTypeOf<{ id: readonly number[]; post: number[] }>().toMatchTypeOf<Where<Comment>>();
    expectTypeOf<{ parent: 3; body: string; stars: 5 }>().toMatchTypeOf<Where<Comment>>();
    expectTypeOf<{ published: true; summary: "s" }>().toMatchTypeOf<Where<Post>>();
  });

  it("refuses at compile time a field the model lacks, or a value of another type", () => {
    // @ts-expect-error no such field
    const unknownField: Where<Comment> = { nope: 1 };
    // @ts-expect-error a key is a number
    const textKey: Where<Comment> = { post: "7" };
    // @ts-expect-error not one of the literal union's members
    const badLiteral: Where<Comment> = { kind: "answer" };
    // @ts-expect-error a boolean field takes booleans
    const badBoolean: Where<Post> = { published: "yes" };
    void [unknownField, textKey, badLiteral, badBoolean];
  });
});

describe("Where<Model>'s conditions (issue 43, item 1): typed from each field", () => {
  it("takes ranges on numbers, texts, dates and keys; in, not, eq; null on optional fields; contains and like on texts; or of wheres", () => {
    const day = new Date("2026-01-01T00:00:00Z");
    expectTypeOf({ stars: { gte: 2, lt: 5 }, body: { contains: "x" }, kind: { not: "note" as const } }).toMatchTypeOf<Where<Comment>>();
    expectTypeOf({ due: { gte: day, lt: day }, note: { null: true, like: "a%" }, post: { in: [1, 2] }, id: { gt: 7 } }).toMatchTypeOf<Where<Comment>>();
    expectTypeOf({ or: [{ stars: 5 }, { kind: "question" as const, parent: { null: false } }] }).toMatchTypeOf<Where<Comment>>();
    expectTypeOf({ kind: { in: ["note", "question"] as ("note" | "question")[] }, title: { gte: "B" } }).toMatchTypeOf<Where<Comment & { title: string }>>();
  });

  it("refuses at compile time a condition the field's type does not take, or a value of another type", () => {
    const note: Note = { id: 3 as Note["id"] };
    // @ts-expect-error contains is for text fields
    const containsNumber: Where<Comment> = { stars: { contains: "3" } };
    // @ts-expect-error like is for text fields
    const likeDate: Where<Comment> = { due: { like: "2026%" } };
    // @ts-expect-error a range on a yes/no field
    const rangeBoolean: Where<Post> = { published: { gt: false } };
    // @ts-expect-error null is for optional fields: a required one always has a value
    const nullRequired: Where<Comment> = { stars: { null: true } };
    // @ts-expect-error a range's bound has the field's type
    const textBound: Where<Comment> = { stars: { gte: "2" } };
    // @ts-expect-error a date's bound is a Date
    const dayText: Where<Comment> = { due: { lt: "2026-01-01" } };
    // @ts-expect-error in takes a list of the field's values
    const inScalar: Where<Comment> = { stars: { in: 3 } };
    // @ts-expect-error not one of the literal union's members
    const notLiteral: Where<Comment> = { kind: { not: "answer" } };
    // @ts-expect-error a condition where does not know
    const unknownCondition: Where<Comment> = { stars: { greater: 3 } };
    // @ts-expect-error another model's key is not this reference's
    const otherKey: Where<Comment> = { post: { in: [note.id] } };
    // @ts-expect-error an or's wheres are typed too
    const orField: Where<Comment> = { or: [{ nope: 1 }] };
    // @ts-expect-error an or is a list of wheres
    const orObject: Where<Comment> = { or: { stars: 1 } };
    void [containsNumber, likeDate, rangeBoolean, nullRequired, textBound, dayText, inScalar, notLiteral, unknownCondition, otherKey, orField, orObject];
  });
});

describe("Where<Model> on a list of references (issue 43, item 5: tags: Id<Tag>[])", () => {
  interface Tag {
    id: Id<Tag>;
  }
  interface Tagged {
    id: Id<Tagged>;
    tags: Id<Tag>[];
    related?: Id<Tagged>[];
  }
  it("takes `has` with a key of the listed model, and nothing else", () => {
    expectTypeOf<{ tags: { has: 3 } }>().toMatchTypeOf<Where<Tagged>>();
    expectTypeOf<{ related: { has: 3 }; or: [{ tags: { has: 1 } }] }>().toMatchTypeOf<Where<Tagged>>();
    // @ts-expect-error a list is not equal to one key
    const equal: Where<Tagged> = { tags: 3 };
    // @ts-expect-error a list takes has, not the conditions of a value
    const ranged: Where<Tagged> = { tags: { gte: 3 } };
    // @ts-expect-error has takes a key (a number), not a text
    const text: Where<Tagged> = { tags: { has: "3" } };
    void [equal, ranged, text];
  });
});
