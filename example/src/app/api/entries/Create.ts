import { Json, type JsonRequest } from "fw";
import { Guarded } from "fw/auth";
import type { tags } from "typia";
import type { Guestbook } from "../../../guestbook.js";

/** Open to everyone, as the guestbook's form is. */
export const guarded = Guarded.public;

/** Some text that is not all spaces, and no NUL (PostgreSQL cannot keep one in a text). */
const SIGNED = "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$";

/** What a program sends to sign the guestbook: the limits the form has (LIMITS in guestbook.ts). */
interface NewEntry {
  name: string & tags.MaxLength<100> & tags.Pattern<typeof SIGNED>;
  message: string & tags.MaxLength<2000> & tags.Pattern<typeof SIGNED>;
}

/**
 * Signs the guestbook from a program: the entry as stored, 201. A body of another shape (a name
 * left empty, a message over 2,000 characters, a NUL) is fw's 400, naming each failing place.
 */
export async function create(request: JsonRequest<NewEntry>, { guestbook }: { guestbook: Guestbook }) {
  const { name, message } = request.json();
  return Json(await guestbook.add(name.trim(), message.trim()), 201);
}
