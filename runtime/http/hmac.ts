import * as crypto from "node:crypto";

/** SHA-256's block size: the HMAC key is padded to it (RFC 2104). */
const BLOCK = 64;
const DIGEST = 32;

/**
 * The longest message (in UTF-16 units) signed through the scratch buffer; a longer one, which a
 * session cookie never is (4,096 bytes at most), goes through `createHmac`. UTF-8 takes up to
 * three bytes per unit, so the buffer has room for any string this long.
 */
const MAX_FAST_UNITS = 4096;

/**
 * `crypto.hash`, the one-shot digest (Node 20.12 and later); undefined on an older Node 20, where
 * every MAC goes through `createHmac`. Read from the namespace: a named import of a missing
 * export would fail to link.
 */
const oneShot: typeof crypto.hash | undefined = (crypto as Partial<typeof crypto>).hash;

/**
 * HMAC-SHA256 with one key (RFC 2104), computed as two one-shot SHA-256 hashes over buffers
 * prepared once: `H((K ^ opad) || H((K ^ ipad) || message))`. Same bytes as
 * `createHmac("sha256", key).update(message).digest()` (a message is UTF-8, as there), without
 * the Hmac object, its stream machinery and OpenSSL's per-call MAC set-up that `createHmac` pays
 * on every call: the session codec signs or verifies a cookie on every request that carries one.
 * Synchronous and single-threaded, so each instance reuses its buffers.
 */
export class HmacSha256 {
  readonly #key: Buffer;
  /** `K ^ ipad`, then room for the message. */
  readonly #inner: Buffer;
  /** `K ^ opad`, then the inner digest. */
  readonly #outer: Buffer;

  constructor(key: Uint8Array) {
    this.#key = Buffer.from(key);
    // A key longer than the block is hashed first; a shorter one is padded with zeros.
    const block = Buffer.alloc(BLOCK);
    (key.length > BLOCK ? crypto.createHash("sha256").update(key).digest() : Buffer.from(key)).copy(block);
    this.#inner = Buffer.alloc(BLOCK + 3 * MAX_FAST_UNITS);
    this.#outer = Buffer.alloc(BLOCK + DIGEST);
    for (let i = 0; i < BLOCK; i++) {
      this.#inner[i] = (block[i] as number) ^ 0x36;
      this.#outer[i] = (block[i] as number) ^ 0x5c;
    }
  }

  /** The 32-byte MAC of `message` (UTF-8). */
  digest(message: string): Buffer {
    if (oneShot === undefined || message.length > MAX_FAST_UNITS) return crypto.createHmac("sha256", this.#key).update(message).digest();
    const length = this.#inner.write(message, BLOCK, "utf8");
    oneShot("sha256", this.#inner.subarray(0, BLOCK + length), "buffer").copy(this.#outer, BLOCK);
    return oneShot("sha256", this.#outer, "buffer");
  }
}
