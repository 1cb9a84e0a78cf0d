import { describe, expect, it } from "vitest";
import { isCommonPassword, MIN_PASSWORD_LENGTH, passwordProblem } from "../../runtime/auth/index.js";
import { PASSWORD } from "./client.js";

describe("Sign-up refuses the most common passwords and the email itself (issue 19, item 7)", () => {
  it.each([
    "password1234", "Password2024!", "P@ssw0rd1234", "passwordpassword", "iloveyou!!!!", "qwerty123456", "qwertyuiop123",
    "123456789012", "1234567890123", "098765432109", "aaaaaaaaaaaa", "abcabcabcabc", "121212121212", "abcdefghijkl",
    "asdfghjkl123", "zxcvbnm12345", "Correct Horse Battery Staple", "correcthorsebatterystaple", "monkeymonkey1",
    "letmein12345", "welcome2025!", "administrator", "1qaz2wsx3edc", "trustno1trustno1", "Summer2024!!",
  ])("%j is common", (password) => {
    expect([...password].length).toBeGreaterThanOrEqual(MIN_PASSWORD_LENGTH);
    expect(isCommonPassword(password)).toBe(true);
    expect(passwordProblem(password, "someone@example.com")).toMatch(/most common/);
  });

  it.each([PASSWORD, "a good long passphrase", "tea kettle on the moon", "Zq7!mVx2#pLw", "grün ist die hoffnung", "9f3b-71c2-aa04"])("%j is not", (password) => {
    expect(isCommonPassword(password)).toBe(false);
    expect(passwordProblem(password, "someone@example.com")).toBeUndefined();
  });

  it("a password equal to the email or containing it (any case), or its part before the @, is refused", () => {
    for (const password of ["Ada.Lovelace@Example.com", "xx ada.lovelace@example.com xx", "ada.lovelace rules", "my ADA.LOVELACE"]) {
      expect(passwordProblem(password, "ada.lovelace@example.com")).toMatch(/must not contain your email/);
    }
    // A local part shorter than 4 characters is not looked for inside (it would refuse too much).
    expect(passwordProblem("a good long passphrase", "go@example.com")).toBeUndefined();
  });
});
