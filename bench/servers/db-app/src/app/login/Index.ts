import { Ok, type Request, type Response } from "fw";

/** Signs "ada" in: the reply's cookie (with the CSRF token minted on this visit) is what the bench sends back. */
export function index(request: Request): Response {
  return Ok("signed in").withSession(request.session.set("user", "ada"));
}
