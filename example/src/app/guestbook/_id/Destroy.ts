import { NotFound, Redirect, type Id, type Request, type Response } from "fw";
import { auth } from "../../../auth.js";
import type { Entry, Guestbook } from "../../../guestbook.js";

/** Admins alone delete entries (issue 41): anyone else, signed in or not, gets a 404. */
export const guarded = auth.role("admin");

/** `DELETE /guestbook/:id` (the entry page's Delete button sends it as a form with `_method`). */
export async function destroy(request: Request<{ id: Id<Entry> }>, { guestbook }: { guestbook: Guestbook }): Promise<Response> {
  if (!(await guestbook.remove(request.params.id))) throw new NotFound(`There is no guestbook entry ${request.params.id}.`);
  return Redirect("/guestbook").withSession(request.session.flash("notice", "Entry deleted."));
}
