import { describe, expect, it } from "vitest";
import { hashPassword, SCRYPT_COST, verifyPassword } from "../../runtime/auth/index.js";

describe("Passwords: salted scrypt, one self-describing string, constant-time comparison", () => {
  it("a hash names scrypt, its cost, its salt and the derived key; the password is nowhere in it", async () => {
    const hash = await hashPassword("correct horse battery");
    expect(hash).toMatch(/^scrypt\$15\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(hash).not.toContain("horse");
    expect(SCRYPT_COST).toEqual({ log2N: 15, r: 8, p: 1 });
  });

  it("the right password verifies, any other does not", async () => {
    const hash = await hashPassword("correct horse battery");
    expect(await verifyPassword("correct horse battery", hash)).toBe(true);
    expect(await verifyPassword("correct horse batterY", hash)).toBe(false);
    expect(await verifyPassword("", hash)).toBe(false);
  });

  it("is salted: the same password hashes differently each time, and both verify", async () => {
    const [a, b] = [await hashPassword("same password"), await hashPassword("same password")];
    expect(a).not.toBe(b);
    expect(await verifyPassword("same password", a)).toBe(true);
    expect(await verifyPassword("same password", b)).toBe(true);
  });

  it("the parameters are read from the stored string (a cheaper old hash still verifies)", async () => {
    const hash = await hashPassword("pw with params");
    const salt = hash.split("$")[4] as string;
    const { scryptSync } = await import("node:crypto");
    const cheap = `scrypt$10$8$1$${salt}$${scryptSync("pw with params", Buffer.from(salt, "base64url"), 32, { N: 1024, r: 8, p: 1 }).toString("base64url")}`;
    expect(await verifyPassword("pw with params", cheap)).toBe(true);
    expect(await verifyPassword("other", cheap)).toBe(false);
  });

  it("a stored string that is not such a hash, or asks for an absurd cost, never matches (and never throws)", async () => {
    const hash = await hashPassword("pw");
    for (const stored of ["", "pw", "plain$text", hash.replace("scrypt$15", "scrypt$30"), hash.replace("scrypt$", "bcrypt$"), hash.slice(0, -20), `${hash}$x`]) {
      expect(await verifyPassword("pw", stored)).toBe(false);
    }
  });

  it("compares Unicode passwords in one normal form (NFC)", async () => {
    const hash = await hashPassword("caf\u00e9 au lait!");
    expect(await verifyPassword("cafe\u0301 au lait!", hash)).toBe(true);
  });
});
