import { Json, type ApiRequest } from "fw";
import { statementsSoFar } from "../../../auth.js";
import { Guarded } from "fw/auth";

/** Open to everyone (the app imports fw/auth for its token rows, so every route says who may reach it; Guarded.public passes the route unchanged). */
export const guarded = Guarded.public;

/** How many statements the app sent its database so far (the bench's count per call). */
export function index(_request: ApiRequest) {
  return Json({ statements: statementsSoFar() });
}
