import type { Request } from "fw";
import { path } from "../../.fw/paths.js";
import { LIMITS, type Entry } from "../../guestbook.js";

/** What the form shows: the values typed so far and the problems beside their fields. */
export interface Draft {
  readonly name: string;
  readonly message: string;
  readonly errors: Readonly<Record<string, string>>;
}

export const blank: Draft = { name: "", message: "", errors: {} };

/** The id of the message beside a field (`guestbook-name-error`), which the field names as its description. */
const errorId = (field: string): string => `guestbook-${field}-error`;

/**
 * A refused field's attributes, as derived forms write them: invalid, and described by the message
 * beside it, so a screen reader reads the message with the field.
 */
function problemOf(draft: Draft, field: string): Readonly<Record<string, string>> {
  return draft.errors[field] === undefined ? {} : { "aria-invalid": "true", "aria-describedby": errorId(field) };
}

/** The message beside a refused field, or nothing. */
function errorOf(draft: Draft, field: string) {
  const message = draft.errors[field];
  return message === undefined ? null : <p class="error" id={errorId(field)}>{message}</p>;
}

/** The guestbook page: every entry, then the form (used by Index and, on a 422, by Create). */
export function guestbookPage(entries: readonly Entry[], request: Request, draft: Draft) {
  return (
    <>
      <title>Guestbook</title>
      <h1>Guestbook</h1>
      <ul>
        {entries.map((entry) => (
          <li>
            <a href={path("/guestbook/:id", { id: entry.id })}>{entry.name}</a>: {entry.message}
          </li>
        ))}
      </ul>
      <form method="post" action="/guestbook">
        <input type="hidden" name="_csrf" value={request.csrf} />
        <label>
          Name <input type="text" name="name" value={draft.name} maxlength={LIMITS.name} {...problemOf(draft, "name")} />
        </label>
        {errorOf(draft, "name")}
        <label>
          Message <textarea name="message" maxlength={LIMITS.message} {...problemOf(draft, "message")}>{draft.message}</textarea>
        </label>
        {errorOf(draft, "message")}
        <button type="submit">Sign the guestbook</button>
      </form>
    </>
  );
}
