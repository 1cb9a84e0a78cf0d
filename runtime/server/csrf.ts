import { randomBytes, timingSafeEqual } from "node:crypto";
import { Forbidden } from "../http/failure.js";
import type { Fields } from "../http/fields.js";

/** The form field a browser returns the token in; only the form is read (spec 5.8). */
export const CSRF_FIELD = "_csrf";

/** A new per-session token: 32 random bytes, base64url. */
export function mintToken(): string {
  return randomBytes(32).toString("base64url");
}

/**
 * Refuses an unsafe request whose form does not return the session's token exactly once.
 * A token in the query string or a header is never looked at.
 */
export function checkCsrf(form: Fields | undefined, expected: string | undefined): void {
  if (expected === undefined) {
    throw new Forbidden("The form was not sent from a page of this site (no CSRF token in this session). Reload the page and try again.");
  }
  const sent = form?.getAll(CSRF_FIELD) ?? [];
  if (sent.length === 0) {
    throw new Forbidden("The form did not return its CSRF token (_csrf). Reload the page and try again.");
  }
  if (sent.length > 1 || !sameToken(sent[0] as string, expected)) {
    throw new Forbidden("The form's CSRF token does not match this session. Reload the page and try again.");
  }
}

function sameToken(sent: string, expected: string): boolean {
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
