import type { FieldSpec, ModelSpec } from "../resource/model.js";

/** The model name the back office gives the app's users (the targets of an owner field's links). */
export const USER_MODEL = "User";

/** A key's range as a form reads it: a whole number from 1. */
const KEY_RANGE = { min: 1, max: Number.MAX_SAFE_INTEGER } as const;

/**
 * A model as the back office's pages see it: every row, whoever may read it on the app's own
 * pages (no `readableWith`: the rows a reference points at are read whole too), and the owner
 * field (`author: Id<User>`), which the app's forms never show, shown as a link to the user's page
 * in the back office (read-only: a form never changes whose a row is) and filterable like a
 * reference (`/admin/posts?author=7`).
 */
export function adminSpec<A>(spec: ModelSpec<A>): ModelSpec<A> {
  const { readableWith: _dropped, ...rest } = spec;
  const owner = spec.owner;
  if (owner === undefined || spec.fields.some((field) => field.name === owner)) return rest;
  const field: FieldSpec = {
    name: owner,
    label: labelOf(owner),
    input: "reference",
    optional: true,
    describe: "the number of a user",
    serverSet: "readOnly",
    integer: KEY_RANGE,
    reference: { model: USER_MODEL, path: "/users", onDelete: "restrict" },
  };
  return { ...rest, fields: [...spec.fields, field] };
}

/** `publishedBy` → "Published by", as the build labels fields. */
function labelOf(name: string): string {
  const spaced = name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}
