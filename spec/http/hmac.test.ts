import { createHmac } from "node:crypto";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { HmacSha256 } from "../../runtime/http/hmac.js";

/** What the session codec signed with before: node's own HMAC over the message as UTF-8. */
function reference(key: Uint8Array, message: string): Buffer {
  return createHmac("sha256", key).update(message).digest();
}

describe("2.10 HMAC-SHA256 of the session cookie", () => {
  it("gives node's createHmac bytes for any key and message", () => {
    fc.assert(
      fc.property(
        // keys shorter than, equal to and longer than SHA-256's 64-byte block (hashed first)
        fc.uint8Array({ minLength: 1, maxLength: 150, size: "max" }),
        fc.array(fc.string({ unit: "binary", maxLength: 300, size: "max" }), { minLength: 1, maxLength: 5 }),
        (key, messages) => {
          const mac = new HmacSha256(key);
          // one instance, several messages: its reused buffer must carry nothing over
          for (const message of messages) expect(mac.digest(message).equals(reference(key, message))).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("matches RFC 4231's test vectors", () => {
    const hex = (text: string) => Buffer.from(text, "hex");
    // Test case 2: a key shorter than the block
    expect(new HmacSha256(Buffer.from("Jefe")).digest("what do ya want for nothing?").toString("hex")).toBe(
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
    );
    // Test case 6: a 131-byte key, hashed before use
    expect(new HmacSha256(hex("aa".repeat(131))).digest("Test Using Larger Than Block-Size Key - Hash Key First").toString("hex")).toBe(
      "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
    );
  });

  it("signs long messages, multi-byte text and lone surrogates as createHmac does", () => {
    const key = Buffer.from("k".repeat(32));
    const mac = new HmacSha256(key);
    // around the scratch buffer's limit (4,096 UTF-16 units, three bytes each at most), both sides
    for (const message of ["", "a".repeat(4095), "€".repeat(4096), "€".repeat(4097), "x".repeat(20_000), "\ud800 \udfff", "a".repeat(5000) + "é"]) {
      expect(mac.digest(message).equals(reference(key, message))).toBe(true);
    }
    // a long message, then a short one: the short one's MAC reads none of the long one's bytes
    expect(mac.digest("short").equals(reference(key, "short"))).toBe(true);
  });

  describe("on a Node 20 older than 20.12, without crypto.hash", () => {
    afterEach(() => {
      vi.doUnmock("node:crypto");
      vi.resetModules();
    });

    it("signs every message through createHmac, with the same bytes", async () => {
      const createHmacCalls = vi.fn();
      vi.resetModules();
      vi.doMock("node:crypto", async (importOriginal) => {
        const actual = await importOriginal<typeof import("node:crypto")>();
        // The module as such a Node exports it, without the one-shot `hash` (vitest's mock throws on
        // reading a name it does not define, so it is defined as absent: what hmac.ts reads either way).
        return {
          ...actual,
          hash: undefined,
          createHmac: (...args: Parameters<typeof actual.createHmac>) => {
            createHmacCalls();
            return actual.createHmac(...args);
          },
        };
      });
      const { HmacSha256: Older } = await import("../../runtime/http/hmac.js");
      const key = Buffer.from("k".repeat(32));
      const mac = new Older(key);
      const messages = ["", "payload.of.a.cookie", "€".repeat(10), "x".repeat(5000)];
      for (const message of messages) expect(mac.digest(message).equals(reference(key, message))).toBe(true);
      expect(createHmacCalls).toHaveBeenCalledTimes(messages.length);
    });
  });
});
