import { timingSafeEqual, createHash } from "node:crypto";
import { inspect } from "node:util";

/** Fewer bytes than this and a secret is refused: HMAC-SHA256 wants a key of its block's strength. */
export const MIN_SECRET_BYTES = 32;

const REDACTED = "Secret(<redacted>)";

let reveal: (secret: Secret) => Buffer;

/**
 * The application secret, the key that signs the session cookie (spec 2.10). Its string, JSON
 * and inspect forms are redacted; `equals` runs in constant time.
 */
export class Secret {
  readonly #key: Buffer;

  static {
    reveal = (secret) => secret.#key;
  }

  /** Refuses a secret shorter than 32 bytes, saying how to make one. */
  constructor(value: string | Uint8Array) {
    const key = typeof value === "string" ? Buffer.from(value, "utf8") : Buffer.from(value);
    if (key.length < MIN_SECRET_BYTES) {
      throw new Error(
        `The secret has ${key.length} bytes; fw needs at least ${MIN_SECRET_BYTES}. ` +
          `Make one with: node -e "console.log(require('node:crypto').randomBytes(32).toString('base64url'))"`,
      );
    }
    this.#key = key;
  }

  /** Compares in constant time (the lengths are hashed first so they leak nothing either). */
  equals(other: Secret): boolean {
    const a = createHash("sha256").update(this.#key).digest();
    const b = createHash("sha256").update(other.#key).digest();
    return timingSafeEqual(a, b);
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}

/** The key bytes, for the session codec only; not part of the public API. */
export function secretKey(secret: Secret): Buffer {
  return reveal(secret);
}
