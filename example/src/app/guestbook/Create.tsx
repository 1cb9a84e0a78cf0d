import { Redirect, status, type Request, type Response } from "fw";
import { Guarded } from "fw/auth";
import type { Guestbook } from "../../guestbook.js";
import { guestbookPage } from "./form.js";

/** Open to everyone (with the auth module on, every page says so). */
export const guarded = Guarded.public;

/** 303 back to the list with a flash; 422 with the form re-rendered when a field is empty. */
export function create(request: Request, { guestbook }: { guestbook: Guestbook }): Response {
  const name = (request.form.get("name") ?? "").trim();
  const message = (request.form.get("message") ?? "").trim();
  const errors: Record<string, string> = {};
  if (name === "") errors["name"] = "Name is required.";
  if (message === "") errors["message"] = "Message is required.";
  if (Object.keys(errors).length > 0) {
    return status(422, guestbookPage(guestbook.list(), request, { name, message, errors }));
  }
  guestbook.add(name, message);
  return Redirect("/guestbook").withSession(request.session.flash("notice", `Thanks for signing, ${name}!`));
}
