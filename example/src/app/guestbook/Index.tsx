import { Ok, type Request, type Response } from "fw";
import type { Guestbook } from "../../guestbook.js";
import { blank, guestbookPage } from "./form.js";

export function index(request: Request, { guestbook }: { guestbook: Guestbook }): Response {
  return Ok(guestbookPage(guestbook.list(), request, blank));
}
