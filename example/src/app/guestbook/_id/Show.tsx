import { Form, NotFound, Ok, type Id, type Request, type Response } from "fw";
import { Guarded } from "fw/auth";
import { auth } from "../../../auth.js";
import type { Entry, Guestbook } from "../../../guestbook.js";
import { path } from "../../../.fw/paths.js";

/** Open to everyone (with the auth module on, every page says so). */
export const guarded = Guarded.public;

/**
 * `id` is decoded from the path by the build (typia) as an entry's key, a whole number from 0
 * to 2^32 - 1, as the derived pages' keys are: anything else (`1.5`, `1e-7`, a number past
 * bigint) is a 400; a key no entry has is a 404. An admin sees a Delete button (issue 41).
 */
export async function show(request: Request<{ id: Id<Entry> }>, { guestbook }: { guestbook: Guestbook }): Promise<Response> {
  const entry = await guestbook.find(request.params.id);
  if (entry === undefined) throw new NotFound(`There is no guestbook entry ${request.params.id}.`);
  const admin = await auth.hasRole(request, "admin");
  return Ok(
    <>
      <title>{`Entry by ${entry.name}`}</title>
      <h1>{entry.name} wrote</h1>
      <blockquote>{entry.message}</blockquote>
      {admin ? Form.button({ action: path("/guestbook/:id", { id: entry.id }), method: "DELETE", csrf: request.csrf, submit: "Delete entry", class: "fw-destroy" }) : null}
      <a href="/guestbook">Back</a>
    </>,
  );
}
