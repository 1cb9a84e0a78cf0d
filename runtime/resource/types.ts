import type { tags } from "typia";

// Spec 2.3's `Id[T]`. The transformer reads `T` to find a model's key field (`Id<Post>` on Post)
// and an owner field (`Id<User>`); typia's uint32 tag has typia validate and decode keys as
// uint32 (path segments, forms, JSON). The doc comment below is what an API's OpenAPI document shows.
//
// The model lives in a phantom member of its own (`IdOf<T>`), not in a typia tag: two typia
// tags intersected (`Type<"uint32">` and the `fw.id` tag) have conflicting `"typia.tag"`
// members, which TypeScript reduces to `never`, so anything inside them was erased and every
// `Id<…>` was one type (issue 39, item 7). typia leaves an all-optional member of an
// intersection out of its checks and schemas, and a function type keeps it from reading `T`.
/** A row's key: a whole number (0 to 4294967295) the store assigns. */
export type Id<T> = number & tags.Type<"uint32"> & tags.TagBase<{ target: "number"; kind: "fw.id"; value: undefined }> & IdOf<T>;

/**
 * The model an `Id` is a key of, as a type only (no value ever has it): `Id<Post>` and `Id<Note>`
 * differ here, so one is not accepted for the other; a number (`7`, a `number`) is both.
 */
export interface IdOf<T> {
  readonly "fw.model"?: () => T;
}

/** A string edited in a `<textarea>` rather than an `<input>` (long text). */
export type LongText = string & tags.TagBase<{ target: "string"; kind: "fw.longText"; value: undefined }>;

/**
 * A field no two rows may share (`email: string & Unique`): a unique index on both database
 * engines and the same check in memory; a duplicate is answered 422 beside the field. For
 * several fields together, the companion's `unique: [["list", "position"]]`.
 */
export type Unique = tags.TagBase<{ target: "string" | "number"; kind: "fw.unique"; value: undefined }>;

/**
 * What deleting a row does to the rows whose reference points at it (the companion's
 * `onDelete: { post: "cascade" }`): `restrict` (the default) refuses the delete while any
 * does, `cascade` deletes them too, `set null` clears their (optional) reference.
 */
export type OnDelete = "restrict" | "cascade" | "set null";
