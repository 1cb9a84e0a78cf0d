import { randomBytes } from "node:crypto";
import { CSRF_ENTRY } from "../http/request.js";
import { withoutReserved, withReserved, type Session } from "../http/session.js";
import { mintToken } from "../server/csrf.js";
import type { UserFields, Users } from "./users.js";

/** The reserved session entry naming the signed-in user's key ("_" names cannot be set by app code). */
export const USER_ENTRY = "_user";
/**
 * Where sessions signed in by earlier versions of fw kept the user's email, readable by anyone
 * holding the cookie. Never read: the email comes from the users store; the guard drops the
 * entry from such a cookie (`withoutOldEmail`).
 */
export const OLD_EMAIL_ENTRY = "_email";
/** The user's session epoch at sign-in: the session counts only while the store still has it. */
export const EPOCH_ENTRY = "_epoch";
/** This session's own random id, which sign-out revokes in the users store. */
export const SESSION_ID_ENTRY = "_sid";

/** Who is signed in, for display: the user's key as the session spells it (what `currentUser` holds) and their email, from the users store. */
export interface SignedIn {
  readonly key: string;
  readonly email: string;
  /** The roles the user holds (issue 41): for a layout's link to the back office, say. Access is the guards'. */
  readonly roles: readonly string[];
}

/**
 * A fresh session for a user who just proved who they are: nothing from before is kept (so a
 * session fixed by someone else, or its CSRF token, is worth nothing), with a new CSRF token
 * (minted now rather than on the next request, so the first page's layout can already render
 * a sign-out form), and what the guard needs alone: the user's key, their session epoch and a
 * new random session id (the session's own issue time is the sign-in's). Nothing personal: the
 * cookie is signed, not encrypted, so whoever holds it can read it (docs/security.md).
 */
export function signedInSession(before: Session, user: UserFields): Session {
  let session = withReserved(before.cleared(), CSRF_ENTRY, mintToken());
  session = withReserved(session, USER_ENTRY, String(user.id));
  session = withReserved(session, EPOCH_ENTRY, user.sessionEpoch);
  return withReserved(session, SESSION_ID_ENTRY, randomBytes(16).toString("base64url"));
}

/** The session without the email an older fw wrote into it (the very session when it has none). */
export function withoutOldEmail(session: Session): Session {
  return withoutReserved(session, OLD_EMAIL_ENTRY);
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
 * The user a session signs in, asked of the users store (as Django and Rails do): nobody when
 * the session names nobody, is older than `maxAgeMs` since sign-in, names a user the store no
 * longer has, carries an epoch the user no longer has (signed out everywhere, password changed),
 * or was itself signed out. One read when the store offers `byIdUnlessRevoked`.
 */
export async function sessionUser<U extends UserFields>(users: Users<U>, session: Session, maxAgeMs: number, now: number = Date.now()): Promise<U | undefined> {
  const claim = claimOf(session);
  if (claim === undefined) return undefined;
  if (session.issuedAt !== undefined && now - session.issuedAt > maxAgeMs) return undefined;
  const user =
    users.byIdUnlessRevoked !== undefined
      ? await users.byIdUnlessRevoked(claim.id, claim.sessionId)
      : await Promise.all([users.byId(claim.id), users.isRevoked(claim.id, claim.sessionId)]).then(([found, revoked]) => (revoked ? undefined : found));
  return user === undefined || user.sessionEpoch !== claim.epoch ? undefined : user;
}
