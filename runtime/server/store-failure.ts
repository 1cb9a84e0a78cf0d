import { StateConflict, UnprocessableContent, type HttpFailure } from "../http/failure.js";
import { Conflict, DuplicateValue, MissingReference, StillReferenced } from "../resource/store-errors.js";

/**
 * A store's refusal that no handler caught, as the failure it is to the client instead of a
 * 500: a reference to no row and a duplicate unique value are 422 (what was sent cannot be
 * stored), a stale version and a delete other rows block are 409 (the state it meets forbids
 * it). The words name the field and what happened, never a key, a table or another row's
 * values: "There is no such post." reads the same whether the row never existed or is hidden
 * from this viewer. Anything else: undefined.
 */
export function storeFailure(thrown: unknown): HttpFailure | undefined {
  if (thrown instanceof MissingReference) return new UnprocessableContent(`There is no such ${words(thrown.field)}.`);
  if (thrown instanceof DuplicateValue) {
    const fields = thrown.fields.map(words);
    return new UnprocessableContent(
      fields.length > 1
        ? `This ${listed(fields)} are already taken together: another row has the same. Change one of them.`
        : `This ${fields[0] ?? "value"} is already taken: another row has the same. Choose another.`,
    );
  }
  if (thrown instanceof StillReferenced) {
    const by = [...new Set(thrown.by.map((b) => words(b.table)))];
    return new StateConflict(
      `This row cannot be deleted while other rows${by.length === 0 ? "" : ` (${listed(by)})`} still point at it: delete or change those first. Nothing was deleted.`,
    );
  }
  if (thrown instanceof Conflict) {
    return new StateConflict("Someone else changed or deleted this row after it was read, so nothing was written. Load it again and redo the change.");
  }
  return undefined;
}

/** A field or model name as words: `blogPost` → "blog post", `post_id` → "post id", `Comment` → "comment". */
function words(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/_/g, " ")
    .toLowerCase();
}

function listed(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}
