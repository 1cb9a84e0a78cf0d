import { Cookie } from "../http/cookie.js";
import { MAX_COOKIE_BYTES, sessionCookieName, type SessionCodec } from "../http/session-codec.js";
import { withoutFlash, type Session } from "../http/session.js";

/** What is written for the session going out. */
export interface WrittenSession {
  /** The `Set-Cookie` value; undefined when nothing is written. */
  readonly cookie: string | undefined;
  /**
   * Why the session the handler handed back was not written, when its entries alone would not
   * fit a cookie: the fallback went out instead. For the log; the answer stands.
   */
  readonly notSaved?: Error;
}

/** How the cookie is written for one request. */
export interface CookieContext {
  readonly codec: SessionCodec;
  readonly secure: boolean;
  /** Whether the request sent a session cookie (an emptied session then expires it). */
  readonly hadCookie: boolean;
  readonly now: number;
}

/**
 * The cookie that carries `outgoing`. The handler's work is done by now (a row written, a mail
 * sent), so an answer is never turned into a 500 here. A cookie over the 4096 bytes a browser
 * keeps is degraded instead: pending flash values are dropped whole, largest first, until it
 * fits (a value cut short could be misread: a truncated id or JSON). When the entries alone do
 * not fit, `fallback` (the session as the request saw it, without its delivered flash) is
 * written instead and `notSaved` says why.
 */
export function writeSession(outgoing: Session, fallback: Session, context: CookieContext): WrittenSession {
  let session = outgoing;
  for (;;) {
    const cookie = rendered(session, context);
    if (cookie === undefined || Buffer.byteLength(cookie) <= MAX_COOKIE_BYTES) return { cookie };
    const largest = largestFlash(session);
    if (largest === undefined) return { ...fallbackCookie(fallback, context), notSaved: tooLarge(Buffer.byteLength(cookie)) };
    session = withoutFlash(session, largest);
  }
}

/** The Set-Cookie for `session` as it stands; an empty one expires a cookie the request sent. */
function rendered(session: Session, { codec, secure, hadCookie, now }: CookieContext): string | undefined {
  const name = sessionCookieName(secure);
  if (session.isEmpty) return hadCookie ? Cookie.expired(name, { secure }).render() : undefined;
  return Cookie.of(name, codec.encode(session, now), { secure }).render();
}

function fallbackCookie(fallback: Session, context: CookieContext): { cookie: string | undefined } {
  const cookie = rendered(fallback, context);
  return { cookie: cookie !== undefined && Buffer.byteLength(cookie) <= MAX_COOKIE_BYTES ? cookie : undefined };
}

/** The name of the pending flash whose name and value are longest, or undefined when none is pending. */
function largestFlash(session: Session): string | undefined {
  let largest: string | undefined;
  let size = -1;
  for (const [name, value] of session.pending) {
    if (name.length + value.length > size) {
      largest = name;
      size = name.length + value.length;
    }
  }
  return largest;
}

function tooLarge(bytes: number): Error {
  return new Error(
    `The session cookie would be ${bytes} bytes, over the ${MAX_COOKIE_BYTES} a browser keeps (it would drop it ` +
      `silently), even without its flash: the session this handler handed back was not saved and the browser keeps ` +
      `the one it had. Keep less in the session: store an id and look the rest up.`,
  );
}
