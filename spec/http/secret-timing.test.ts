import { describe, expect, it, vi } from "vitest";

// Every call Secret makes to node:crypto's timingSafeEqual, with its arguments.
const compared = vi.hoisted(() => [] as [Uint8Array, Uint8Array][]);
vi.mock("node:crypto", async (importOriginal) => {
  const crypto = await importOriginal<typeof import("node:crypto")>();
  return {
    ...crypto,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      compared.push([new Uint8Array(a.buffer, a.byteOffset, a.byteLength), new Uint8Array(b.buffer, b.byteOffset, b.byteLength)]);
      return crypto.timingSafeEqual(a, b);
    },
  };
});

const { Secret } = await import("../../runtime/http/secret.js");

describe("2.10 Secret equality is constant time", () => {
  it.each([
    ["equal secrets", "s".repeat(32), "s".repeat(32), true],
    ["secrets of one length", "s".repeat(32), "t".repeat(32), false],
    ["secrets of different lengths", "s".repeat(32), "s".repeat(33), false],
  ])("%s: one timingSafeEqual over two equal-length digests decides, never the keys themselves", (_, a, b, same) => {
    compared.length = 0;
    expect(new Secret(a).equals(new Secret(b))).toBe(same);
    expect(compared).toHaveLength(1);
    const [x, y] = compared[0] as [Uint8Array, Uint8Array];
    expect(x.byteLength).toBe(32);
    expect(y.byteLength).toBe(32);
    expect(Buffer.from(x).toString()).not.toBe(a);
    expect(Buffer.from(y).toString()).not.toBe(b);
  });
});
