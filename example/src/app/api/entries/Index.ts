import { Json, type ApiRequest } from "fw";
import { Guarded } from "fw/auth";
import type { Guestbook } from "../../../guestbook.js";

/** Open to everyone (with the auth module on, every page says so). */
export const guarded = Guarded.public;

/** Every guestbook entry, oldest first. An API route (its handler takes ApiRequest): JSON, no session, no cookie. */
export async function index(_request: ApiRequest, { guestbook }: { guestbook: Guestbook }) {
  return Json(await guestbook.list());
}
