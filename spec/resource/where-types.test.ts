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
