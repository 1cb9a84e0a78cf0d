import { requestCookies } from "../http/cookie.js";
import { CSRF_ENTRY, requestSigner, type Request } from "../http/request.js";
import type { ValueSigner } from "../http/signed-value.js";

/** The two passkey ceremonies: signing in with one, and adding one on `/account`. */
export type Ceremony = "sign-in" | "register";

/** A ceremony must finish within 5 minutes (the cookie's Max-Age, and checked on the signed time). */
export const CHALLENGE_TTL_S = 300;

/** What the signature is for: no other signed value of the app passes for a challenge. */
const PURPOSE = "fw/auth passkey challenge";

/** A challenge signed this far ahead of the server's clock is refused (clocks of several processes differ a little). */
const SKEW_MS = 60_000;

/** The cookie's name on a plain-HTTP request, per ceremony. */
const NAMES: Readonly<Record<Ceremony, string>> = { "sign-in": "fw_passkey_sign_in", register: "fw_passkey_register" };

/**
 * The challenge cookie's name: `__Secure-` on a secure request, so the browser refuses it unless
 * it is `Secure` (a plain-HTTP page cannot plant it). Not `__Host-`: that needs `Path=/`, and the
 * cookie is scoped to its ceremony's routes.
 */
export function challengeCookieName(ceremony: Ceremony, secure: boolean): string {
  return secure ? `__Secure-${NAMES[ceremony]}` : NAMES[ceremony];
}

/** A challenge to keep for the ceremony: for whom (the user adding a passkey; "-" when signing in) and where its routes are. */
export interface ChallengeToKeep {
  readonly ceremony: Ceremony;
  /** The random challenge @simplewebauthn/server made (base64url). */
  readonly challenge: string;
  /** The user id a `register` challenge belongs to; "-" for `sign-in`. */
  readonly owner: string;
  /** The path the cookie is sent to: the ceremony's routes (`/login/passkey`, `/account/passkeys`), as browsers reach them. */
  readonly path: string;
  readonly now: number;
}

/**
 * The `Set-Cookie` that keeps a ceremony's challenge apart from the session (which the options
 * request, sent by the page's script, must not write: a navigation that changed the session
 * meanwhile would lose its change when the answer lands last). Signed with the app secret,
 * bound to the ceremony, the owner and the session's CSRF token; HttpOnly, SameSite=Strict,
 * scoped to the ceremony's routes, gone after 5 minutes.
 */
export function challengeCookie(request: Request<unknown, unknown>, keep: ChallengeToKeep): string {
  const text = `${keep.ceremony}.${keep.challenge}.${Math.trunc(keep.now)}.${keep.owner}`;
  const value = signerFor(request).sign(purposeOf(request), text);
  return `${challengeCookieName(keep.ceremony, request.secure)}=${value}; ${attributes(keep.path, request.secure)}; Max-Age=${CHALLENGE_TTL_S}`;
}

/** The `Set-Cookie` that forgets a ceremony's challenge: every answer of the ceremony's last step sends it (a challenge is used once). */
export function clearedChallenge(request: Request<unknown, unknown>, ceremony: Ceremony, path: string): string {
  return `${challengeCookieName(ceremony, request.secure)}=; ${attributes(path, request.secure)}; Max-Age=0`;
}

/** The challenge a ceremony's last step may check the authenticator's answer against, or why there is none. */
export type ChallengeRead = { readonly ok: true; readonly challenge: string } | { readonly ok: false; readonly why: string };

/**
 * The challenge the request's cookie carries for `ceremony` and `owner`: signed here for this
 * session, for this ceremony, younger than 5 minutes. Anything else is refused with the reason.
 */
export function readChallenge(request: Request<unknown, unknown>, ceremony: Ceremony, owner: string, now: number): ChallengeRead {
  const sent = requestCookies(request.headers.get("cookie"), challengeCookieName(ceremony, request.secure));
  if (sent.length === 0) return refused("it did not start on this site's page (no challenge came with it), or took over 5 minutes");
  if (sent.length > 1) return refused("two challenge cookies came with it, so neither is believed");
  const text = signerFor(request).verify(purposeOf(request), sent[0] as string);
  if (text === undefined) return refused("its challenge was not issued by this site for this session (forged, altered, or from another session)");
  const [kind, challenge, at, heldBy] = text.split(".");
  if (kind !== ceremony) return refused(`its challenge was issued ${kind === "register" ? "to add a passkey" : "to sign in"}, not ${ceremony === "register" ? "to add one" : "to sign in"}`);
  if (heldBy !== owner) return refused("its challenge was issued to another account");
  const age = now - Number(at);
  if (!(age <= CHALLENGE_TTL_S * 1000 && age >= -SKEW_MS) || challenge === undefined || challenge === "") return refused("it took over 5 minutes");
  return { ok: true, challenge };
}

function refused(why: string): ChallengeRead {
  return { ok: false, why };
}

/** The challenge is bound to the session's CSRF token: a challenge cookie carried to another browser's session does not verify. */
function purposeOf(request: Request<unknown, unknown>): string {
  return `${PURPOSE} ${request.session.get(CSRF_ENTRY) ?? ""}`;
}

function signerFor(request: Request<unknown, unknown>): ValueSigner {
  const signer = requestSigner(request);
  if (signer === undefined) {
    throw new Error(
      `fw/auth passkeys: ${request.method} ${request.path} came without the app's signer, which signs the ceremony's challenge cookie with the app secret. ` +
        "Passkeys work on requests fw's server built (HttpApp.serve, fw/testing's startApp), not on a Request made by hand.",
    );
  }
  return signer;
}

function attributes(path: string, secure: boolean): string {
  // The path comes from the app's settings (its mount and auth paths), never from the request's own text.
  if (!/^\/[^;\s\p{Cc}]*$/u.test(path)) throw new Error(`fw/auth passkeys: the path ${JSON.stringify(path)} cannot scope a cookie (it must start with "/" and hold no ";", space or control character).`);
  return `Path=${path}; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`;
}
