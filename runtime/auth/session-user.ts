import { CSRF_ENTRY, type Request } from "../http/request.js";
import { withReserved, type Session } from "../http/session.js";
import { mintToken } from "../server/csrf.js";
import type { UserFields } from "./users.js";

/** The reserved session entry naming the signed-in user's key ("_" names cannot be set by app code). */
export const USER_ENTRY = "_user";
/** The reserved entry holding their email, so a layout can show it without a lookup. */
export const EMAIL_ENTRY = "_email";

/** Who a session says is signed in. */
export interface SignedIn {
  /** The user's key as the session spells it (what `currentUser` holds). */
  readonly key: string;
  readonly email: string;
}

/**
 * The user the request's session names, or undefined. For layouts and sockets: a public page's
 * `currentUser` is nobody however the visitor signed in, but its layout may still show who is.
 */
export function signedInUser(request: Pick<Request<unknown>, "session">): SignedIn | undefined {
  const key = request.session.get(USER_ENTRY);
  if (key === undefined) return undefined;
  return { key, email: request.session.get(EMAIL_ENTRY) ?? "" };
}

/**
 * A fresh session for a user who just proved who they are: nothing from before is kept (so a
 * session fixed by someone else, or its CSRF token, is worth nothing), with a new CSRF token
 * (minted now rather than on the next request, so the first page's layout can already render
 * a sign-out form) and the user named in reserved entries.
 */
export function signedInSession(before: Session, user: UserFields): Session {
  const fresh = withReserved(before.cleared(), CSRF_ENTRY, mintToken());
  return withReserved(withReserved(fresh, USER_ENTRY, String(user.id)), EMAIL_ENTRY, user.email);
}
