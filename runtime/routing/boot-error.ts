/**
 * A route table that cannot be served: thrown while a table is built or checked, before the
 * server listens. The message names the culprit (the pattern, both routes of a conflict).
 */
export class BootError extends Error {
  override readonly name = "BootError";
}
