import { Redirect, status, type Request, type Response } from "fw";
import { Guarded } from "fw/auth";
import { characters, cut, LIMITS, type Guestbook } from "../../guestbook.js";
import { guestbookPage } from "./form.js";

/** Open to everyone (with the auth module on, every page says so). */
export const guarded = Guarded.public;

/** U+0000: no browser sends it from a field, and PostgreSQL cannot keep it in a text. */
const NUL = "\u0000";
const UNSTORABLE = "contains a NUL character (U+0000), which cannot be stored: remove it.";

/** 303 back to the list with a flash; 422 with the form re-rendered when a field is empty, too long or holds a NUL. */
export async function create(request: Request, { guestbook }: { guestbook: Guestbook }): Promise<Response> {
  const name = (request.form.get("name") ?? "").trim();
  // A textarea's line breaks arrive as CRLF but count as one against its maxlength.
  const message = (request.form.get("message") ?? "").replace(/\r\n?/g, "\n").trim();
  const errors: Record<string, string> = {};
  if (name === "") errors["name"] = "Name is required.";
  else if (name.includes(NUL)) errors["name"] = `Name ${UNSTORABLE}`;
  else if (characters(name) > LIMITS.name) errors["name"] = `Name must be at most ${LIMITS.name} characters long (this one has ${characters(name)}).`;
  if (message === "") errors["message"] = "Message is required.";
  else if (message.includes(NUL)) errors["message"] = `Message ${UNSTORABLE}`;
  else if (characters(message) > LIMITS.message) errors["message"] = `Message must be at most ${LIMITS.message.toLocaleString("en-US")} characters long (this one has ${characters(message).toLocaleString("en-US")}).`;
  if (Object.keys(errors).length > 0) {
    // What was typed comes back, cut to the limit (and without NULs): the page stays small whatever was sent.
    const kept = { name: cut(name, LIMITS.name).replaceAll(NUL, ""), message: cut(message, LIMITS.message).replaceAll(NUL, "") };
    return status(422, guestbookPage(await guestbook.list(), request, { ...kept, errors }));
  }
  await guestbook.add(name, message);
  return Redirect("/guestbook").withSession(request.session.flash("notice", `Thanks for signing, ${name}!`));
}
