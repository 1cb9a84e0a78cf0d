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
    const login = new Login<User>({ users, paths: { login: "/login", logout: "/logout", signup: "/signup" }, addressOf: () => undefined, limiters: defaultLimiters() });
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

describe("5 Login counts an attempt before it checks the password (issue 19, item 3)", () => {
  it("40 concurrent guesses at one account from one address run scrypt 5 times; the other 35 are 429 unchecked, the right password among them", async () => {
    interface User extends UserFields {}
    const users = new InMemoryUsers<User>();
    await seedUser(users, "bea@example.com", "the right password");
    const login = new Login<User>({ users, paths: { login: "/login", logout: "/logout", signup: "/signup" }, addressOf: () => "192.0.2.1", limiters: defaultLimiters() });
    const attempt = (password: string) =>
      login.submit(new Request({ method: "POST", form: Fields.parse(`email=bea%40example.com&password=${encodeURIComponent(password)}`, "form"), session: withReserved(Session.empty, "_csrf", "token") }));
    checked.length = 0;
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => attempt(i === 39 ? "the right password" : `wrong guess ${i}`)));
    expect(checked).toHaveLength(5);
    expect(answers.map((answer) => answer.status).filter((status) => status === 429)).toHaveLength(35);
    expect(answers[39]?.status).toBe(429);
  });
});
