import { Ok, type Request, type Response } from "fw";
import { Guarded } from "fw/auth";
import type { Guestbook } from "../../guestbook.js";
import { blank, guestbookPage } from "./form.js";

/** Open to everyone (with the auth module on, every page says so). */
export const guarded = Guarded.public;

export function index(request: Request, { guestbook }: { guestbook: Guestbook }): Response {
  return Ok(guestbookPage(guestbook.list(), request, blank));
}
