import type { Request } from "fw";
import { LIMITS, type Entry } from "../../guestbook.js";

/** What the form shows: the values typed so far and the problems beside their fields. */
export interface Draft {
  readonly name: string;
  readonly message: string;
  readonly errors: Readonly<Record<string, string>>;
}

export const blank: Draft = { name: "", message: "", errors: {} };

/** The guestbook page: every entry, then the form (used by Index and, on a 422, by Create). */
export function guestbookPage(entries: readonly Entry[], request: Request, draft: Draft) {
  return (
    <>
      <title>Guestbook</title>
      <h1>Guestbook</h1>
      <ul>
        {entries.map((entry) => (
          <li>
            <a href={`/guestbook/${entry.id}`}>{entry.name}</a>: {entry.message}
          </li>
        ))}
      </ul>
      <form method="post" action="/guestbook">
        <input type="hidden" name="_csrf" value={request.csrf} />
        <label>
          Name <input name="name" value={draft.name} maxlength={LIMITS.name} />
        </label>
        {draft.errors["name"] === undefined ? null : <p class="error">{draft.errors["name"]}</p>}
        <label>
          Message <textarea name="message" maxlength={LIMITS.message}>{draft.message}</textarea>
        </label>
        {draft.errors["message"] === undefined ? null : <p class="error">{draft.errors["message"]}</p>}
        <button type="submit">Sign the guestbook</button>
      </form>
    </>
  );
}
