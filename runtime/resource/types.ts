import type { tags } from "typia";

// Spec 2.3's `Id[T]`. The transformer reads `T` to find a model's key field (`Id<Post>` on Post)
// and an owner field (`Id<User>`); the typia tag has typia validate and decode keys as uint32
// (path segments, forms). The doc comment below is what an API's OpenAPI document shows.
/** A row's key: a whole number (0 to 4294967295) the store assigns. */
export type Id<T> = number & tags.Type<"uint32"> & tags.TagBase<{ target: "number"; kind: "fw.id"; value: undefined; model?: T }>;

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
