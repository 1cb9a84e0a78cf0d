import { timingSafeEqual } from "node:crypto";
import { requestCookies } from "./cookie.js";
import { HmacSha256 } from "./hmac.js";
import { ownCopy } from "./own-copy.js";
import { secretKey, type Secret } from "./secret.js";
import { makeSession, Session } from "./session.js";
import { ValueSigner } from "./signed-value.js";

/** The session cookie's name (DESIGN.md) on a plain-HTTP request. */
export const SESSION_COOKIE = "fw_session";

/**
 * Its name on a secure request: the `__Host-` prefix has the browser refuse the cookie unless it
 * is `Secure`, `Path=/` and without `Domain` (as fw writes it), so a sibling subdomain or a
 * plain-HTTP page of the same host (a network attacker's, say) cannot plant or overwrite it.
 */
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;

/** The session cookie's name for a request: prefixed when it is secure. */
export function sessionCookieName(secure: boolean): string {
  return secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
}

/** How many verified cookie values a codec remembers (a few hundred KB at most). */
export const VERIFIED_CACHE_SIZE = 1024;

/**
 * An HMAC-SHA256 in canonical base64url: 32 bytes are 43 characters, the last of which carries
 * four bits of data and two zero padding bits.
 */
const CANONICAL_SIGNATURE = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;

/** What a browser keeps of one cookie, at most (RFC 6265 section 6.1). */
export const MAX_COOKIE_BYTES = 4096;

/**
 * Signs and reads the session cookie: `base64url(JSON payload) "." base64url(HMAC-SHA256)`.
 * The payload holds the entries, the pending flash and the issue time. Anything that does not
 * verify (tampered, truncated, garbage, expired, signed with another secret) reads as empty.
 */
export class SessionCodec {
  /** One MAC per secret, the current one first. */
  readonly #macs: readonly HmacSha256[];
  /**
   * Signs fw's other cookies with the same secrets (under a key of their own): handed to each
   * browser request the server builds (`requestSigner`).
   */
  readonly signer: ValueSigner;

  /**
   * @param secrets the current secret first; older ones still verify (rotation) but never sign.
   * @param maxAgeMs a session older than this (from its issue time) reads as empty.
   */
  constructor(secrets: readonly [Secret, ...Secret[]], readonly maxAgeMs: number) {
    this.#macs = secrets.map((secret) => new HmacSha256(secretKey(secret)));
    this.signer = new ValueSigner(secrets);
  }

  encode(session: Session, now: number): string {
    const payload = Buffer.from(
      JSON.stringify({
        i: Math.floor((session.issuedAt ?? now) / 1000),
        e: Object.fromEntries(session.entries),
        f: Object.fromEntries(session.pending),
      }),
    ).toString("base64url");
    return `${payload}.${(this.#macs[0] as HmacSha256).digest(payload).toString("base64url")}`;
  }

  /** The session a cookie value carries; its pending flash arrives as incoming flash. */
  decode(value: string, now: number): Session {
    // A verified value ends in its 43-character signature: the fingerprint of its first four
    // characters finds a remembered value without hashing the whole cookie (a few hundred
    // characters, hashed anew on every request as a fresh string), and the whole value must
    // then be the one remembered.
    const print = value.length > SIGNATURE_LENGTH ? fingerprint(value, value.length - SIGNATURE_LENGTH) : -1;
    const known = this.#verified.get(print);
    if (known !== undefined && known.value === value) return this.fresh(known.session, now) ? known.session : Session.empty;
    const dot = value.indexOf(".");
    if (dot <= 0 || dot !== value.lastIndexOf(".")) return Session.empty;
    const payload = value.slice(0, dot);
    if (!this.verifies(payload, value.slice(dot + 1))) return Session.empty;
    const session = this.read(payload, now);
    if ((!session.isEmpty || session.incoming.size > 0) && this.admitted(print)) this.remember(print, value, session);
    return session;
  }

  /**
   * Fingerprints of verified values seen once and not remembered (at most as many as are
   * remembered, oldest forgotten first). A value is remembered the second time it verifies
   * while its fingerprint is still here: a browser sends its cookie again within moments, while
   * with more sessions in turn than the cache holds, each value's next visit comes after the
   * cache (and this set) has moved on, and remembering it would only copy the value, fill the
   * map and evict another entry for nothing, on every request (TinyLFU's "doorkeeper").
   */
  readonly #seenOnce = new Set<number>();

  /** Whether a verified value (by its fingerprint) is remembered now; else it is noted for next time. */
  private admitted(print: number): boolean {
    if (this.#seenOnce.delete(print)) return true;
    if (this.#seenOnce.size >= VERIFIED_CACHE_SIZE) this.#seenOnce.delete(this.#seenOnce.values().next().value as number);
    this.#seenOnce.add(print);
    return false;
  }

  /**
   * A browser sends the same cookie until its session changes, so verified cookie values are
   * remembered (a bounded number, oldest forgotten first): a repeat costs a map lookup instead of
   * an HMAC and a JSON parse. Sessions are immutable, so the same one can be handed out again;
   * its age is checked on every hit. Only values that verified are ever kept, by the fingerprint
   * of their signature; two that share one take turns (the later replaces the earlier).
   */
  readonly #verified = new Map<number, Remembered>();

  private remember(print: number, value: string, session: Session): void {
    if (this.#verified.size >= VERIFIED_CACHE_SIZE && !this.#verified.has(print)) {
      const oldest = this.#verified.keys().next().value;
      if (oldest !== undefined) this.#verified.delete(oldest);
    }
    // The value is cut from the request's Cookie header, which it would keep alive (up to 16 KiB,
    // other cookies included) while remembered: it is kept as a copy of its own.
    this.#verified.set(print, { value: ownCopy(value), session });
  }

  /** Younger than the maximum age, and not issued more than a minute ahead (clock skew). */
  private fresh(session: Session, now: number): boolean {
    const issuedAt = session.issuedAt ?? now;
    return now - issuedAt <= this.maxAgeMs && issuedAt - now <= 60_000;
  }

  private verifies(payload: string, signature: string): boolean {
    // Only the canonical spelling counts: base64url decoding skips characters outside its
    // alphabet and ignores the last character's two padding bits, so another spelling of the
    // same 32 bytes would otherwise verify too. Checked on the text, without re-encoding.
    if (!CANONICAL_SIGNATURE.test(signature)) return false;
    const given = Buffer.from(signature, "base64url");
    for (const mac of this.#macs) {
      if (timingSafeEqual(given, mac.digest(payload))) return true;
    }
    return false;
  }

  private read(payload: string, now: number): Session {
    let data: unknown;
    try {
      data = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    } catch {
      return Session.empty;
    }
    if (typeof data !== "object" || data === null) return Session.empty;
    const { i, e, f } = data as Record<string, unknown>;
    if (typeof i !== "number" || !Number.isFinite(i)) return Session.empty;
    const issuedAt = i * 1000;
    const entries = stringMap(e);
    const incoming = stringMap(f);
    if (entries === undefined || incoming === undefined) return Session.empty;
    // Nothing pending yet: the shared empty map, like an empty incoming flash (sessions never
    // change their maps, so one empty map serves all; a decoded session allocates one map).
    const session = makeSession(entries, Session.empty.pending, incoming, issuedAt);
    return this.fresh(session, now) ? session : Session.empty;
  }
}

/** A verified value the codec remembers, under its fingerprint. */
interface Remembered {
  readonly value: string;
  readonly session: Session;
}

/** The length of a signature's canonical base64url spelling (CANONICAL_SIGNATURE). */
const SIGNATURE_LENGTH = 43;

/**
 * Four characters of a verified value's signature (random-looking, 24 bits) as a number (a small
 * integer, cheap to look up): what the cache and the admission set are keyed by, so the set holds
 * no string cut from a request. Two values that share one only let the second be remembered a
 * visit early; lookups always compare whole values.
 */
function fingerprint(value: string, at: number): number {
  return ((value.charCodeAt(at) * 128 + value.charCodeAt(at + 1)) * 128 + value.charCodeAt(at + 2)) * 128 + value.charCodeAt(at + 3);
}

/** The session a browser request arrived with, and whether it sent any session cookie at all. */
export interface ArrivedSession {
  readonly session: Session;
  readonly sent: boolean;
}

/**
 * Reads the session from a request's Cookie header: exactly one session cookie that verifies,
 * else empty. Two session cookies are ambiguous, so neither is believed. A secure request reads
 * `__Host-fw_session` only, a plain one `fw_session` only (`sessionCookieName`). Browser routes
 * and socket upgrades both read it here, so the two cannot drift apart.
 */
export function arrivedSession(cookieHeader: string | undefined, codec: SessionCodec, now: number, secure: boolean): ArrivedSession {
  const cookies = requestCookies(cookieHeader, sessionCookieName(secure));
  const session = cookies.length === 1 ? codec.decode(cookies[0] as string, now) : Session.empty;
  return { session, sent: cookies.length > 0 };
}

function stringMap(value: unknown): ReadonlyMap<string, string> | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  let map: Map<string, string> | undefined;
  // Object.entries' pairs without building the array of pairs (JSON.parse's `__proto__` is an
  // own key; an inherited one, from a polluted prototype, is skipped).
  const record = value as Record<string, unknown>;
  for (const name in record) {
    if (!Object.hasOwn(record, name)) continue;
    const entry = record[name];
    if (typeof entry !== "string") return undefined;
    (map ??= new Map()).set(name, entry);
  }
  return map ?? Session.empty.entries;
}

/**
 * Whether the cookie must be written: something kept changed, a flash is pending, or a
 * delivered flash must be dropped from what goes out (spec 2.9).
 */
export function sessionChanged(arrived: Session, outgoing: Session): boolean {
  if (outgoing.pending.size > 0 || arrived.incoming.size > 0) return true;
  if (outgoing.issuedAt !== arrived.issuedAt) return true;
  return !sameEntries(arrived.entries, outgoing.entries);
}

function sameEntries(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a === b) return true;
  if (a.size !== b.size) return false;
  for (const [name, value] of a) if (b.get(name) !== value) return false;
  return true;
}
