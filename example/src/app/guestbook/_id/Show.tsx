import { NotFound, Ok, type Request, type Response } from "fw";
import { Guarded } from "fw/auth";
import type { Guestbook } from "../../../guestbook.js";

/** Open to everyone (with the auth module on, every page says so). */
export const guarded = Guarded.public;

/** `id` is decoded from the path as a number by the build (typia); anything else is a 400. */
export async function show(request: Request<{ id: number }>, { guestbook }: { guestbook: Guestbook }): Promise<Response> {
  const entry = await guestbook.find(request.params.id);
  if (entry === undefined) throw new NotFound(`There is no guestbook entry ${request.params.id}.`);
  return Ok(
    <>
      <title>{`Entry by ${entry.name}`}</title>
      <h1>{entry.name} wrote</h1>
      <blockquote>{entry.message}</blockquote>
      <a href="/guestbook">Back</a>
    </>,
  );
}
