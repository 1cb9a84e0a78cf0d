import { createHmac, timingSafeEqual } from "node:crypto";
import { HmacSha256 } from "./hmac.js";
import { secretKey, type Secret } from "./secret.js";

/** An HMAC-SHA256 in canonical base64url (as the session codec reads its signature). */
const CANONICAL_SIGNATURE = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;

/**
 * What the key of signed values is derived from: the app secret's own key signs session cookies,
 * so a value signed here can never pass for a session (nor the other way round).
 */
const KEY_LABEL = "fw signed values";

/**
 * Signs short texts with the app secret (HMAC-SHA256 under a key derived from it), each for a
 * purpose: `text "." signature`. A value signed for one purpose does not verify for another.
 * fw's own cookies besides the session use it (fw/auth's passkey challenge), reached through
 * the request the server built (`requestSigner`). Internal: not part of fw's public API.
 */
export class ValueSigner {
  /** One MAC per secret, the current one first: older secrets still verify (rotation), never sign. */
  readonly #macs: readonly HmacSha256[];

  constructor(secrets: readonly [Secret, ...Secret[]]) {
    this.#macs = secrets.map((secret) => new HmacSha256(createHmac("sha256", secretKey(secret)).update(KEY_LABEL).digest()));
  }

  /** `text` with its signature for `purpose` (base64url, after a "."). */
  sign(purpose: string, text: string): string {
    return `${text}.${(this.#macs[0] as HmacSha256).digest(message(purpose, text)).toString("base64url")}`;
  }

  /** The text of a value signed for `purpose` by any of the secrets; undefined for anything else. */
  verify(purpose: string, signed: string): string | undefined {
    const dot = signed.lastIndexOf(".");
    if (dot < 0) return undefined;
    const text = signed.slice(0, dot);
    const signature = signed.slice(dot + 1);
    // Only the canonical spelling counts (another spelling of the same bytes would verify too).
    if (!CANONICAL_SIGNATURE.test(signature)) return undefined;
    const given = Buffer.from(signature, "base64url");
    const signedText = message(purpose, text);
    return this.#macs.some((mac) => timingSafeEqual(given, mac.digest(signedText))) ? text : undefined;
  }
}

/** The purpose, length first, then the text: no purpose and text can spell another pair's message. */
function message(purpose: string, text: string): string {
  return `${purpose.length}:${purpose}:${text}`;
}
