import type { FromPath } from "../routing/from-path.js";
import type { OnDelete } from "./types.js";

/**
 * How a field is edited in a form. `reference`: another model's row, picked by its label;
 * `references`: a list of another model's rows (`tags: Id<Tag>[]`, many-to-many), picked several at once.
 */
export type InputKind = "text" | "textarea" | "number" | "checkbox" | "select" | "date" | "reference" | "references" | "file";

/** What a file field (`Upload<…>`, `Image<…>`) takes: read by the build from its type (issue 40). */
export interface FileSpec {
  /** An image: only PNG, JPEG, GIF, WebP and AVIF, its metadata removed, shown inline with variants. */
  readonly image: boolean;
  /** Media types or `type/*` patterns, read from the file's bytes. */
  readonly accept: readonly string[];
  /** The most bytes one file may have. */
  readonly maxBytes: number;
  /** Images: the most pixels (width × height), checked before decoding. */
  readonly maxPixels?: number;
}

/** What a reference field (`post: Id<Post>`) points at. */
export interface ReferenceSpec {
  /** The target model's name (`Post`): its spec in the app's `Relations`. */
  readonly model: string;
  /** The target's derived path (`/posts`): where its Show is. */
  readonly path: string;
  /** What deleting the target does to this row (the companion's `onDelete`; `restrict` by default). */
  readonly onDelete: OnDelete;
}

/** One model field as a form sees it (spec 2.15), derived from the model's type at build time. */
export interface FieldSpec {
  /** The exact property name: what the input carries and `parse` reads. */
  readonly name: string;
  /** For people: `publishedAt` → "Published at". */
  readonly label: string;
  readonly input: InputKind;
  /** `x?: T` or `T | undefined`: absent means undefined. */
  readonly optional: boolean;
  /** The choices of a string-literal union (`select`), in declaration order. */
  readonly options?: readonly string[];
  /** The type as messages name it: "a number", "one of news, howto, misc". */
  readonly describe: string;
  /**
   * Text and textarea fields: the most characters (code points, as JSON Schema and a `varchar`
   * count them; an emoji is one) a value may have. The build sets it on every such field: 200 for `string`,
   * 10,000 for `LongText`, or the smallest `tags.MaxLength<N>` on the field's type. A database
   * store sizes the column from it. A hand-written spec without it sets no limit.
   */
  readonly maxLength?: number;
  /**
   * Set by the server, never by a form (docs/guides/models-and-forms.md, "Server-set fields"): `createdAt` / `updatedAt`
   * (a `Date` field so named: stamped by the derived Create and Update) or `readOnly` (a
   * `readonly` property: shown, kept on Update, written only by handlers). Left out of forms.
   */
  readonly serverSet?: "createdAt" | "updatedAt" | "readOnly";
  /** A reference (`input: "reference"`), or a list of them (`input: "references"`): the model it points at. */
  readonly reference?: ReferenceSpec;
  /** No two rows may share the value (the `Unique` tag). */
  readonly unique?: boolean;
  /**
   * A number field of a whole-number type (`tags.Type<"uint32">`, another model's `Id`): the
   * range its text is read in, written in digits alone (runtime/http/number-text.ts). Without
   * it a number field takes any decimal number.
   */
  readonly integer?: { readonly min: number; readonly max: number };
  /** A file field (`input: "file"`): what it takes. */
  readonly file?: FileSpec;
}

/** What typia's `createValidate<A>()` answers. */
export type Validation<A> =
  | { readonly success: true; readonly data: A }
  | { readonly success: false; readonly errors: readonly { readonly path: string; readonly expected: string; readonly value: unknown }[] };

/**
 * Everything the runtime needs to serve one model, written by the transformer from the
 * model's type (names, fields, key) plus typia's validator and key decoder.
 */
export interface ModelSpec<A> {
  readonly name: string;
  /** Module path under the source root plus the name (`models.Post`): the order of derived routes. */
  readonly fqn: string;
  /** The plural, kebab-case path: `/posts`, `/blog-posts`, `/categories`. */
  readonly path: string;
  /** The key field (`Id<Model>`): never rendered, never read from a form. */
  readonly key: string;
  /** The fields a form edits, in declaration order (the key and any owner field left out). */
  readonly fields: readonly FieldSpec[];
  /**
   * An owned model's owner field (`author: Id<User>`, spec 2.13): never rendered, never read
   * from a form; Create fills it from the signed-in user.
   */
  readonly owner?: string;
  /** The model's database table (its companion's `table`); absent for a model kept in memory. */
  readonly table?: string;
  /** Fields no two rows may share together (the companion's `unique: [["list", "position"]]`). */
  readonly unique?: readonly (readonly string[])[];
  /**
   * The derived Index's own sort (the companion's `sort: "-createdAt"`): by this field, ties by
   * the key in the same direction; key order when absent. The build indexes a table on it.
   */
  readonly sort?: { readonly field: string; readonly descending: boolean };
  /**
   * The fields full-text search reads (the companion's `search`), most important first, and the
   * language whose words it knows (a PostgreSQL text search configuration: `english`).
   */
  readonly search?: { readonly fields: readonly string[]; readonly language: string };
  /** A reference field: a row is readable only by who may read the row it points at (the companion's `readableWith`). */
  readonly readableWith?: string;
  readonly validate: (input: unknown) => Validation<A>;
  readonly decodeKey: FromPath<unknown>;
}
