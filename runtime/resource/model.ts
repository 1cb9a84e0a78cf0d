import type { FromPath } from "../routing/from-path.js";

/** How a field is edited in a form. */
export type InputKind = "text" | "textarea" | "number" | "checkbox" | "select" | "date";

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
   * Text and textarea fields: the most UTF-16 code units a value may have (what `maxlength` and
   * JavaScript's `length` count). The build sets it on every such field: 200 for `string`,
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
  /**
   * An `Id<Other>` field (a reference to another model's row): the model whose key it holds. Its
   * input takes whole numbers from 1 (`step="1" min="1"`), as keys are.
   */
  readonly reference?: string;
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
  readonly validate: (input: unknown) => Validation<A>;
  readonly decodeKey: FromPath<unknown>;
}
