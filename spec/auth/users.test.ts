import { describe, expect, it } from "vitest";
import { InMemoryUsers, MAX_REVOKED_PER_USER, normalEmail } from "../../runtime/auth/index.js";
import { distModule, retainedBytes } from "../support/retained.js";
import { usersConformance } from "./users-conformance.js";

usersConformance("InMemoryUsers", () => new InMemoryUsers());

describe("InMemoryUsers keeps signed-out sessions in bounded memory", () => {
  it(`20,000 sign-outs of one user keep at most ${MAX_REVOKED_PER_USER} sessions (past that, all the user's sessions end)`, () => {
    const retained = retainedBytes(
      `const { InMemoryUsers } = await import(${distModule("auth/index.js")});
       const users = new InMemoryUsers();
       globalThis.kept = users;
       const user = await users.create("ada@example.com", "h");
       globalThis.user = user;`,
      `for (let i = 0; i < 20000; i++) await users.revokeSession(user.id, "session-" + i + "-" + "x".repeat(40), Date.now() + 86400000);`,
    );
    expect(retained).toBeLessThan(500_000);
  });
});

describe("normalEmail: NFKC and case folding", () => {
  it.each([
    ["Ada@Example.COM", "ada@example.com"],
    ["  ada@example.com\\t".replace("\\t", "\t"), "ada@example.com"],
    ["ａｄａ@ｅｘａｍｐｌｅ.ｃｏｍ", "ada@example.com"], // full-width
    ["ﬁle@example.com", "file@example.com"], // the fi ligature
    ["STRASSE@example.com", "strasse@example.com"],
    ["straße@example.com", "strasse@example.com"], // ß folds to ss
    ["ΣΊΣΥΦΟΣ@example.com", "σίσυφοσ@example.com"],
    ["σίσυφος@example.com", "σίσυφοσ@example.com"], // final sigma folds as sigma
    ["Å@example.com", "å@example.com"], // the Ångström sign (U+212B) is Å
  ])("%j is %j", (typed, normal) => {
    expect(normalEmail(typed)).toBe(normal);
  });
});
