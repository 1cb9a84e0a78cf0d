import { randomBytes } from "node:crypto";
import { CSRF_ENTRY, type Request } from "../http/request.js";
import { withReserved, type Session } from "../http/session.js";
import { mintToken } from "../server/csrf.js";
import type { UserFields, Users } from "./users.js";

/** The reserved session entry naming the signed-in user's key ("_" names cannot be set by app code). */
export const USER_ENTRY = "_user";
/** The reserved entry holding their email, so a layout can show it without a lookup. */
export const EMAIL_ENTRY = "_email";
/** The user's session epoch at sign-in: the session counts only while the store still has it. */
export const EPOCH_ENTRY = "_epoch";
/** This session's own random id, which sign-out revokes in the users store. */
export const SESSION_ID_ENTRY = "_sid";

/** Who a session says is signed in. */
export interface SignedIn {
  /** The user's key as the session spells it (what `currentUser` holds). */
  readonly key: string;
  readonly email: string;
}

/**
 * The user the request's session names, or undefined. For layouts and sockets: a public page's
 * `currentUser` is nobody however the visitor signed in, but its layout may still show who is.
 * Display only: it does not ask the users store whether the session still counts.
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
 * a sign-out form), the user named in reserved entries with their session epoch, and a new
 * random session id.
 */
export function signedInSession(before: Session, user: UserFields): Session {
  let session = withReserved(before.cleared(), CSRF_ENTRY, mintToken());
  session = withReserved(session, USER_ENTRY, String(user.id));
  session = withReserved(session, EMAIL_ENTRY, user.email);
  session = withReserved(session, EPOCH_ENTRY, user.sessionEpoch);
  return withReserved(session, SESSION_ID_ENTRY, randomBytes(16).toString("base64url"));
}

/** What a signed-in session names: the user's key, their epoch then, and the session's id. */
export interface SessionClaim {
  readonly id: number;
  readonly epoch: string;
  readonly sessionId: string;
}

/** The claim a session makes, or undefined when it names nobody (or was written before epochs). */
export function claimOf(session: Session): SessionClaim | undefined {
  const key = session.get(USER_ENTRY);
  const epoch = session.get(EPOCH_ENTRY);
  const sessionId = session.get(SESSION_ID_ENTRY);
  if (key === undefined || epoch === undefined || sessionId === undefined || !/^[1-9][0-9]{0,14}$/.test(key)) return undefined;
  return { id: Number(key), epoch, sessionId };
}

/**
 * The user a session signs in, asked of the users store on every guarded request (as Django and
 * Rails do): nobody when the session names nobody, is older than `maxAgeMs` since sign-in, names
 * a user the store no longer has, carries an epoch the user no longer has (signed out everywhere,
 * password changed), or was itself signed out.
 */
export async function sessionUser<U extends UserFields>(users: Users<U>, session: Session, maxAgeMs: number, now: number = Date.now()): Promise<U | undefined> {
  const claim = claimOf(session);
  if (claim === undefined) return undefined;
  if (session.issuedAt !== undefined && now - session.issuedAt > maxAgeMs) return undefined;
  const [user, revoked] = await Promise.all([users.byId(claim.id), users.isRevoked(claim.id, claim.sessionId)]);
  if (user === undefined || revoked || user.sessionEpoch !== claim.epoch) return undefined;
  return user;
}
