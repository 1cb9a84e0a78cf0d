import { Ok, type Request, type Response } from "fw";
import { Guarded } from "fw/auth";
import type { Guestbook } from "../../guestbook.js";
import { blank, guestbookPage } from "./form.js";

/** Open to everyone (with the auth module on, every page says so). */
export const guarded = Guarded.public;

export async function index(request: Request, { guestbook }: { guestbook: Guestbook }): Promise<Response> {
  return Ok(guestbookPage(await guestbook.list(), request, blank));
}
