import { describe, expect, it, vi } from "vitest";
import { Fields, Request, Session } from "../../runtime/index.js";
import { InMemoryUsers, seedUser, type UserFields } from "../../runtime/auth/index.js";
import { withReserved } from "../../runtime/http/session.js";

// Every scrypt verification the login makes is recorded (and still really run).
const checked = vi.hoisted(() => [] as string[]);
vi.mock("../../runtime/auth/password.js", async (original) => {
  const real = await original<typeof import("../../runtime/auth/password.js")>();
  return {
    ...real,
    verifyPassword: async (password: string, stored: string) => {
      checked.push(stored);
      return real.verifyPassword(password, stored);
    },
  };
});

const { Login, defaultLimiters } = await import("../../runtime/auth/login.js");

describe("5 Login does not reveal whether an account exists", () => {
  it("an unknown email is checked against a real scrypt hash, like a wrong password", async () => {
    interface User extends UserFields {}
    const users = new InMemoryUsers<User>();
    await seedUser(users, "ada@example.com", "the right password");
    const login = new Login<User>({ users, paths: { login: "/login", logout: "/logout", signup: "/signup" }, addressOf: () => undefined, ...defaultLimiters() });
    const attempt = (email: string) =>
      login.submit(new Request({ method: "POST", form: Fields.parse(`email=${encodeURIComponent(email)}&password=wrong-password`, "form"), session: withReserved(Session.empty, "_csrf", "token") }));

    checked.length = 0;
    expect((await attempt("ada@example.com")).status).toBe(422);
    expect((await attempt("nobody@example.com")).status).toBe(422);
    expect((await attempt("")).status).toBe(422);
    expect(checked).toHaveLength(3);
    for (const stored of checked) expect(stored).toMatch(/^scrypt\$15\$8\$1\$/);
    expect(new Set(checked).size).toBe(2); // ada's own hash, and the one dummy for everyone else
  });
});
