import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootNode } from "../support/process.js";
import { PRODUCTION_ENV } from "../support/serve.js";
import { servedFixture } from "../support/tspc.js";
import { connect, refusal } from "../support/ws-client.js";
import { SIGNED_UP } from "../../runtime/auth/index.js";
import { Browser, freshEmail, PASSWORD } from "./client.js";

// The fixture (spec/fixtures/auth) builds with `"auth": "fw/auth"` in its plugin options, so
// its passing build is also the proof that declared pages and models build with the real module.
const fixture = servedFixture("auth", { ...PRODUCTION_ENV });
let address = 0;

/** A browser from its own client address, so no test spends another's per-address budget. */
function browser(): Browser {
  return new Browser(fixture.url, { "x-forwarded-for": `10.0.0.${++address}` });
}

async function signedUp(name: string): Promise<{ browser: Browser; email: string; key: string }> {
  const visitor = browser();
  const email = freshEmail(name);
  expect((await visitor.signUp(email, PASSWORD)).status).toBe(303);
  const key = /secret for (\d+)/.exec((await visitor.get("/secret")).html)?.[1] as string;
  return { browser: visitor, email, key };
}

describe("5 Form sign-in: sign-up, login, logout", () => {
  it("sign-up makes an account (303 to sign in, not signed in yet); signing in with it works, the layout shows the email", async () => {
    const visitor = browser();
    const page = await visitor.get("/signup");
    expect(page.status).toBe(200);
    expect(page.html).toContain('name="email"');
    expect(page.html).toContain('name="password"');
    const email = freshEmail("ada");
    const done = await visitor.post("/signup", { email, password: PASSWORD });
    expect(done.status).toBe(303);
    expect(done.location).toBe("/login");
    expect((await visitor.get("/framed")).html).toContain(`<p class="flash">${SIGNED_UP}</p>`);
    expect((await visitor.get("/secret")).status).toBe(303);
    expect((await visitor.signIn(email, PASSWORD)).status).toBe(303);
    expect((await visitor.get("/secret")).html).toMatch(/^secret for \d+$/);
    expect((await visitor.get("/framed")).html).toContain(`<p id="signed-in">${email}</p>`);
  });

  it("sign-up does not tell which emails exist: a taken email (any case, any spelling) gets the very answer a new one gets, and changes nothing", async () => {
    const email = freshEmail("taken");
    expect((await browser().signUp(email, PASSWORD)).status).toBe(303);
    const answers = [];
    for (const typed of [email.toUpperCase(), freshEmail("new")]) {
      const visitor = browser();
      await visitor.get("/signup");
      const answer = await visitor.post("/signup", { email: typed, password: "another good passphrase" });
      answers.push({ status: answer.status, location: answer.location, body: answer.html, flash: (await visitor.get("/framed")).html.replace(/<p id="signed-in">.*?<\/p>/, "") });
    }
    expect(answers[0]).toEqual(answers[1]);
    // The taken account still has its own password: the second sign-up changed nothing.
    expect((await browser().signIn(email, "another good passphrase")).status).toBe(422);
    expect((await browser().signIn(email, PASSWORD)).status).toBe(303);
  });

  it("sign-up refuses a short password, a common one and one containing the email, with 422 beside the field", async () => {
    const visitor = browser();
    await visitor.get("/signup");
    const email = freshEmail("weak");
    const cases: [string, string][] = [
      ["too short", "Password must be at least 12 characters long."],
      ["Password2024!", "one of the most common"],
      ["qwertyuiop123", "one of the most common"],
      ["123456789012", "one of the most common"],
      [email.toUpperCase(), "must not contain your email"],
      [`my ${email.split("@")[0]} pass`, "must not contain your email"],
    ];
    for (const [password, message] of cases) {
      const refused = await visitor.post("/signup", { email, password });
      expect(refused.status, password).toBe(422);
      expect(refused.html).toContain(message);
    }
    expect((await browser().signIn(email, "Password2024!")).status).toBe(422);
  });

  it("emails are NFKC-normalised and case-folded: a full-width, upper-case spelling signs in to the account", async () => {
    const local = `nfkc${process.pid}${Date.now()}`;
    expect((await browser().signUp(`${local}@example.com`, PASSWORD)).status).toBe(303);
    const wide = [...`${local.toUpperCase()}@EXAMPLE.COM`].map((char) => (char >= "!" && char <= "~" ? String.fromCharCode(char.charCodeAt(0) + 0xfee0) : char)).join("");
    expect((await browser().signIn(wide, PASSWORD)).status).toBe(303);
  });

  it("login with the right password (email in any case) → 303 and signed in; logout (POST with the token) → 303 to / and signed out", async () => {
    const { email } = await signedUp("bea");
    const visitor = browser();
    const login = await visitor.signIn(email.toUpperCase(), PASSWORD);
    expect(login.status).toBe(303);
    expect(login.location).toBe("/");
    expect((await visitor.get("/secret")).status).toBe(200);
    const logout = await visitor.post("/logout", {});
    expect(logout.status).toBe(303);
    expect(logout.location).toBe("/");
    expect((await visitor.get("/framed")).html).toContain('<p class="flash">You are signed out.</p>');
    expect((await visitor.get("/secret")).status).toBe(303);
  });

  it("logout without the CSRF token is refused (403) and leaves the user signed in", async () => {
    const { browser: visitor } = await signedUp("cat");
    const refused = await visitor.post("/logout", { _csrf: "" });
    expect(refused.status).toBe(403);
    expect((await visitor.get("/secret")).status).toBe(200);
  });

  it("a failed login is 422 with one message, the same for an unknown email and a wrong password", async () => {
    const { email } = await signedUp("dan");
    const visitor = browser();
    const wrong = await visitor.signIn(email, "not the password at all");
    const unknown = await visitor.signIn(freshEmail("nobody"), "not the password at all");
    expect(wrong.status).toBe(422);
    expect(unknown.status).toBe(422);
    for (const answer of [wrong, unknown]) expect(answer.html).toContain("Email or password is wrong.");
    const withoutEmail = (html: string) => html.replace(/value="[^"]*@example\.com"/, "").replace(/name="_csrf" value="[^"]+"/, "");
    expect(withoutEmail(unknown.html)).toBe(withoutEmail(wrong.html));
  });

  it("issue 28: an email with U+0000 (or another control character) is no email: sign-up refuses it beside the field, login answers as for a wrong password", async () => {
    const visitor = browser();
    await visitor.get("/signup");
    for (const email of [`nul\u0000${freshEmail("x")}`, `tab${freshEmail("y").replace("@", "\u0001@")}`]) {
      const refused = await visitor.post("/signup", { email, password: PASSWORD });
      expect(refused.status).toBe(422);
      expect(refused.html).toContain("Email must be an email address, like ada@example.com.");
    }
    const login = await browser().signIn(`ann\u0000@example.com`, PASSWORD);
    expect(login.status).toBe(422);
    expect(login.html).toContain("Email or password is wrong.");
  });
});

describe("5.3 A guarded page with nobody signed in: 303 to login, and back after", () => {
  it("a GET carries where it was going (path and query) as ?next=, and login returns there", async () => {
    const { email } = await signedUp("fay");
    const visitor = browser();
    const refused = await visitor.get("/secret?x=1");
    expect(refused.status).toBe(303);
    expect(refused.location).toBe("/login?next=%2Fsecret%3Fx%3D1");
    const page = await visitor.get(refused.location as string);
    expect(page.html).toContain('<input type="hidden" name="next" value="/secret?x=1">');
    const back = await visitor.post("/login", { email, password: PASSWORD, next: "/secret?x=1" });
    expect(back.status).toBe(303);
    expect(back.location).toBe("/secret?x=1");
  });

  it("any other method gets 303 to login without next; guarding Create but not New is legal", async () => {
    const visitor = browser();
    const blank = await visitor.get("/tickets/new");
    expect(blank.status).toBe(200);
    const submit = await visitor.post("/tickets", { text: "help" });
    expect(submit.status).toBe(303);
    expect(submit.location).toBe("/login");
    expect(fixture.app?.output().err).not.toMatch(/tickets/);
  });

  it.each([
    ["//evil.com"],
    ["/\\evil.com"],
    ["https://evil.com/"],
    ["javascript:alert(1)"],
    ["/%2F%2Fevil.com"],
    ["%2F%2Fevil.com"],
    ["/%5Cevil.com"],
    ["/%255C%255Cevil.com"],
    ["/%09/evil.com"],
    ["/\t/evil.com"],
    ["/\r\nSet-Cookie: x=1"],
  ])("login with next=%j lands on / (only a same-origin relative path is followed)", async (next) => {
    const { email } = await signedUp("gus");
    const visitor = browser();
    const login = await visitor.signIn(email, PASSWORD, next);
    expect(login.status).toBe(303);
    expect(login.location).toBe("/");
  });
});

describe("5 Session renewal on login", () => {
  it("login starts a new session: the pre-login cookie's CSRF token no longer works, the pre-login cookie is not signed in", async () => {
    const { email } = await signedUp("hal");
    const visitor = browser();
    await visitor.get("/login");
    const before = { cookie: visitor.cookie as string, token: visitor.token as string };
    expect((await visitor.post("/login", { email, password: PASSWORD })).status).toBe(303);
    expect(visitor.cookie).not.toBe(before.cookie);
    expect((await visitor.post("/logout", { _csrf: before.token })).status).toBe(403);
    await visitor.get("/login");
    expect(visitor.token).not.toBe(before.token);
    expect((await visitor.get("/framed")).html).toContain(`<p id="signed-in">${email}</p>`);
    expect((await visitor.post("/logout", {})).status).toBe(303);
    const old = new Browser(fixture.url);
    old.cookie = before.cookie;
    expect((await old.get("/secret")).status).toBe(303);
  });
});

describe("5 Rate limiting sign-in (5 per address and account, 20 failures per address, per 15 minutes, then backoff)", () => {
  it("after 5 attempts at one account from one address, its next login from there is 429 with Retry-After, even with the right password; another address still signs in", async () => {
    const { email } = await signedUp("jon");
    const from = browser();
    for (let i = 0; i < 5; i++) expect((await from.signIn(email, `wrong password ${i}`)).status).toBe(422);
    const limited = await from.signIn(email.toUpperCase(), PASSWORD);
    expect(limited.status).toBe(429);
    const retry = Number(limited.response.headers.get("retry-after"));
    expect(retry).toBeGreaterThan(800);
    expect(retry).toBeLessThanOrEqual(900);
    expect(limited.html).toContain("Too many attempts.");
    expect(limited.html).not.toContain("Email or password is wrong.");
    // Failing from anywhere cannot lock the account for everyone.
    expect((await browser().signIn(email, PASSWORD)).status).toBe(303);
    const other = await signedUp("kim");
    expect((await from.signIn(other.email, PASSWORD)).status).toBe(303);
  });

  it("40 concurrent guesses from one address are counted before any password is checked: at most 5 are checked, the right one among them or refused", async () => {
    const { email } = await signedUp("race");
    const from = browser();
    await from.get("/login");
    const guesses = Array.from({ length: 40 }, (_, i) => (i === 39 ? PASSWORD : `wrong guess number ${i}`));
    const answers = await Promise.all(guesses.map((password) => from.post("/login", { email, password })));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status !== 429).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(35);
  });

  it("4 failures then a success leave the account open (a success resets its count)", async () => {
    const { email } = await signedUp("lou");
    const from = browser();
    for (let i = 0; i < 4; i++) expect((await from.signIn(email, "wrong password!")).status).toBe(422);
    expect((await from.signIn(email, PASSWORD)).status).toBe(303);
    for (let i = 0; i < 4; i++) expect((await from.signIn(email, "wrong password!")).status).toBe(422);
    expect((await from.signIn(email, PASSWORD)).status).toBe(303);
  });

  it("sign-up is limited per address: the 11th attempt within the hour is 429, before anything is hashed or made", async () => {
    const from = new Browser(fixture.url, { "x-forwarded-for": "192.0.2.88" });
    await from.get("/signup");
    for (let i = 0; i < 10; i++) expect((await from.post("/signup", { email: freshEmail("bulk"), password: "a good long passphrase" })).status).toBe(303);
    const email = freshEmail("bulk");
    const limited = await from.post("/signup", { email, password: "a good long passphrase" });
    expect(limited.status).toBe(429);
    expect(Number(limited.response.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await browser().signIn(email, "a good long passphrase")).status).toBe(422);
  });

  it("after 20 failures from one address (any accounts), every login from it is 429; other addresses still sign in", async () => {
    const { email } = await signedUp("max");
    const from = new Browser(fixture.url, { "x-forwarded-for": "192.0.2.77" });
    for (let i = 0; i < 20; i++) expect((await from.signIn(freshEmail("stuffed"), "guessed password")).status).toBe(422);
    const limited = await from.signIn(email, PASSWORD);
    expect(limited.status).toBe(429);
    expect(Number(limited.response.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await browser().signIn(email, PASSWORD)).status).toBe(303);
  });
});

describe("2.13 Ownership: two users", () => {
  it("B cannot see A's rows (Index, 404 on Show), and gets 403 on Edit, Update and Destroy with the row unchanged", async () => {
    const a = await signedUp("amy");
    const b = await signedUp("ben");
    const blank = await a.browser.get("/memos/new");
    expect(blank.html).not.toContain('name="owner"');
    const created = await a.browser.post("/memos", { text: "amy secret plan" });
    expect(created.status).toBe(303);
    const at = created.location as string;
    expect((await a.browser.get("/memos")).html).toContain("amy secret plan");

    expect((await b.browser.get("/memos")).html).not.toContain("secret plan");
    expect((await b.browser.get(at)).status).toBe(404);
    expect((await b.browser.get(`${at}/edit`)).status).toBe(403);
    expect((await b.browser.get(`${at}/delete`)).status).toBe(403); // Destroy's confirm page: Destroy's checks
    expect((await a.browser.get(`${at}/delete`)).status).toBe(200);
    const update = await b.browser.post(at, { _method: "PUT", text: "ben was here" });
    expect(update.status).toBe(403);
    expect(update.html).toContain("belongs to another user");
    expect((await b.browser.post(at, { _method: "DELETE" })).status).toBe(403);

    const still = await a.browser.get(at);
    expect(still.status).toBe(200);
    expect(still.html).toContain("amy secret plan");
    expect((await a.browser.post(at, { _method: "PUT", text: "amy new plan" })).status).toBe(303);
    expect((await a.browser.get(at)).html).toContain("amy new plan");
  });

  it("Create sets the owner from the signed-in user; an owner field in the form is ignored", async () => {
    const a = await signedUp("cal");
    const b = await signedUp("dot");
    await b.browser.get("/memos/new");
    const created = await b.browser.post("/memos", { text: "dot memo", owner: a.key });
    expect(created.status).toBe(303);
    expect((await a.browser.get("/memos")).html).not.toContain("dot memo");
    expect((await b.browser.get("/memos")).html).toContain("dot memo");
  });

  it("a handler's Store<Memo> is the viewer's rows; ScopedStore<Memo>, asked for by name, is every user's, and its for(user) one user's (issues 22, 39)", async () => {
    const a = await signedUp("gus");
    const b = await signedUp("hal");
    const count = async (who: typeof a): Promise<[number, number, number]> => {
      const match = /memos: (\d+) in all, (\d+) yours, (\d+) by for\(user\)/.exec((await who.browser.get("/memo-count")).html);
      return [Number(match?.[1]), Number(match?.[2]), Number(match?.[3])];
    };
    const [before] = await count(a);
    await a.browser.get("/memos/new");
    for (const text of ["gus one", "gus two"]) expect((await a.browser.post("/memos", { text })).status).toBe(303);
    await b.browser.get("/memos/new");
    expect((await b.browser.post("/memos", { text: "hal one" })).status).toBe(303);
    expect(await count(a)).toEqual([before + 3, 2, 2]);
    expect(await count(b)).toEqual([before + 3, 1, 1]);
  });

  it("roles not covered use the whole table: everyone reads every story; only its author sees Edit and may change it", async () => {
    const a = await signedUp("eli");
    const b = await signedUp("flo");
    await a.browser.get("/stories/new");
    const at = (await a.browser.post("/stories", { title: "Eli story" })).location as string;
    const anyone = browser();
    expect((await anyone.get("/stories")).html).toContain("Eli story");
    expect((await b.browser.get(at)).html).toContain("Eli story");
    expect((await b.browser.get(at)).html).not.toContain("fw-edit");
    expect((await a.browser.get(at)).html).toContain("fw-edit");
    expect((await b.browser.get(`${at}/edit`)).status).toBe(403);
    expect((await b.browser.post(at, { _method: "DELETE" })).status).toBe(403);
    expect((await a.browser.post(at, { _method: "DELETE" })).status).toBe(303);
  });
});

describe("5.4, 5.5 Who a request is", () => {
  it("a public page reads nobody while signed in; a guarded one reads the user", async () => {
    const { browser: visitor, key } = await signedUp("gil");
    expect((await visitor.get("/")).html).toBe("home: nobody");
    expect((await visitor.get("/secret")).html).toBe(`secret for ${key}`);
    expect((await visitor.get("/framed")).html).toContain("page user: nobody");
  });

  it("a guarded WebSocket refuses a handshake with nobody signed in (403), and knows the user when signed in", async () => {
    const refused = await refusal(fixture.url, "/live/socket");
    expect(refused.status).toBe(403);
    const { browser: visitor, email, key } = await signedUp("hil");
    const client = await connect(fixture.url, "/live/socket", { headers: { cookie: visitor.cookie as string } });
    client.socket.send("hello");
    expect(await client.next()).toBe(`${key} ${email}: hello`);
    client.socket.close();
  });
});

describe("5.1, 5.7 An API key guard", () => {
  it("403 without a key (even signed in: no cookie is read), 403 with a wrong one, served with the right one", async () => {
    const { browser: visitor } = await signedUp("ivy");
    const none = await fetch(`${fixture.url}/api/me`, { headers: { cookie: visitor.cookie as string } });
    expect(none.status).toBe(403);
    expect(await none.text()).toContain("This API needs an API key");
    const wrong = await fetch(`${fixture.url}/api/me`, { headers: { authorization: "Bearer not-a-key" } });
    expect(wrong.status).toBe(403);
    expect(await wrong.text()).toContain("The API key is not valid.");
    const right = await fetch(`${fixture.url}/api/me`, { headers: { authorization: "Bearer key-of-user-one-0123456789" } });
    expect(right.status).toBe(200);
    expect(await right.json()).toEqual({ caller: "1" });
  });
});

describe("Sessions that end (issue 19, item 2): the guard asks the users store on every request", () => {
  /** A second browser holding a copy of `from`'s cookie (as one who stole it would). */
  function copyOf(from: Browser): Browser {
    const copy = browser();
    copy.cookie = from.cookie;
    return copy;
  }

  it("logout makes the session's cookie useless: a copy taken before is signed out too", async () => {
    const { browser: visitor } = await signedUp("copy");
    const stolen = copyOf(visitor);
    expect((await stolen.get("/secret")).status).toBe(200);
    expect((await visitor.post("/logout", {})).status).toBe(303);
    const refused = await stolen.get("/secret");
    expect(refused.status).toBe(303);
    expect(refused.location).toBe("/login?next=%2Fsecret");
    // The dead cookie is dropped, so the layout stops naming the user.
    expect((await stolen.get("/framed")).html).toContain('<p id="signed-in">signed out</p>');
  });

  it("logging out one session leaves the user's other sessions signed in", async () => {
    const { browser: first, email } = await signedUp("two");
    const second = browser();
    expect((await second.signIn(email, PASSWORD)).status).toBe(303);
    expect((await first.post("/logout", {})).status).toBe(303);
    expect((await second.get("/secret")).status).toBe(200);
  });

  it("logoutEverywhere ends every session of the user, this one included", async () => {
    const { browser: first, email } = await signedUp("all");
    const second = browser();
    expect((await second.signIn(email, PASSWORD)).status).toBe(303);
    expect((await first.post("/everywhere", {})).status).toBe(303);
    expect((await first.get("/secret")).status).toBe(303);
    expect((await second.get("/secret")).status).toBe(303);
    expect((await browser().signIn(email, PASSWORD)).status).toBe(303);
  });

  it("a password change ends the other sessions; the browser that changed it stays signed in; only the new password signs in", async () => {
    const { browser: first, email, key } = await signedUp("pw");
    const second = browser();
    expect((await second.signIn(email, PASSWORD)).status).toBe(303);
    const changed = await first.post("/password", { password: "a brand new passphrase" });
    expect(changed.status).toBe(303);
    await first.get("/login");
    expect((await first.get("/secret")).html).toBe(`secret for ${key}`);
    expect((await second.get("/secret")).status).toBe(303);
    expect((await browser().signIn(email, PASSWORD)).status).toBe(422);
    expect((await browser().signIn(email, "a brand new passphrase")).status).toBe(303);
  });

  it("a deleted user's sessions are nobody's, and their key is not given to the next sign-up", async () => {
    const { browser: visitor, key } = await signedUp("del");
    const stolen = copyOf(visitor);
    expect((await visitor.post("/farewell", {})).status).toBe(303);
    // Even before a guarded page drops the cookie, the layout asks the store: nobody (issue 28, item 5).
    expect((await stolen.get("/framed")).html).toContain('<p id="signed-in">signed out</p>');
    expect((await stolen.get("/secret")).status).toBe(303);
    const next = await signedUp("after");
    expect(next.key).not.toBe(key);
    expect((await stolen.get("/secret")).status).toBe(303);
  });

  it("a signed-out session's socket handshake is refused (403), and its open sockets close on logout", async () => {
    const { browser: visitor, key, email } = await signedUp("sock");
    const stolen = copyOf(visitor);
    const client = await connect(fixture.url, "/live/socket", { headers: { cookie: visitor.cookie as string } });
    client.socket.send("hi");
    expect(await client.next()).toBe(`${key} ${email}: hi`);
    expect((await visitor.post("/logout", {})).status).toBe(303);
    expect(await client.closed).toEqual({ code: 1008, reason: "signed out" });
    expect((await refusal(fixture.url, "/live/socket", { headers: { cookie: stolen.cookie as string } })).status).toBe(403);
  });

  it("logoutEverywhere and a deletion close every open socket of the user", async () => {
    const { browser: visitor, email } = await signedUp("socks");
    const second = browser();
    expect((await second.signIn(email, PASSWORD)).status).toBe(303);
    const one = await connect(fixture.url, "/live/socket", { headers: { cookie: visitor.cookie as string } });
    const two = await connect(fixture.url, "/live/socket", { headers: { cookie: second.cookie as string } });
    expect((await visitor.post("/everywhere", {})).status).toBe(303);
    expect((await one.closed).code).toBe(1008);
    expect((await two.closed).code).toBe(1008);
    const third = browser();
    expect((await third.signIn(email, PASSWORD)).status).toBe(303);
    const three = await connect(fixture.url, "/live/socket", { headers: { cookie: third.cookie as string } });
    expect((await third.post("/farewell", {})).status).toBe(303);
    expect((await three.closed).code).toBe(1008);
  });
});

describe("4.6 Route.under: the whole table under a prefix, sign-in routes and derived pages too (issue 28 item 17)", () => {
  // The same build booted again, its main putting the generated table under /app.
  let app: ReturnType<typeof bootNode> | undefined;
  let base = "";
  beforeAll(async () => {
    app = bootNode(join(fixture.dir, "dist/main.js"), [], { ...PRODUCTION_ENV, FIXTURE_UNDER: "/app" });
    base = `${await app.url}/app`;
  }, 60_000);
  afterAll(async () => {
    app?.child.kill("SIGTERM");
    await app?.exited;
  });
  /** A browser whose paths are the table's own: "/login" is sent as "/app/login". */
  const under = (): Browser => new Browser(base, { "x-forwarded-for": `10.1.0.${++address}` });

  it("nothing is left at the old paths; the routes are served under /app", async () => {
    const root = (await app?.url) as string;
    expect((await fetch(`${root}/secret`, { redirect: "manual" })).status).toBe(404);
    expect((await fetch(`${root}/login`, { redirect: "manual" })).status).toBe(404);
    expect((await under().get("/")).html).toBe("home: nobody");
  });

  it("a guarded page sends nobody to the sign-in under the prefix, and the sign-in pages' forms and links stay under it", async () => {
    const visitor = under();
    const refused = await visitor.get("/secret?x=1");
    expect([refused.status, refused.location]).toEqual([303, "/app/login?next=%2Fapp%2Fsecret%3Fx%3D1"]);
    const login = await visitor.get("/login?next=%2Fapp%2Fsecret%3Fx%3D1");
    expect(login.html).toContain('<form method="post" action="/app/login"');
    expect(login.html).toContain('<a href="/app/signup?next=%2Fapp%2Fsecret%3Fx%3D1">Sign up</a>');
    const signup = await visitor.get("/signup");
    expect(signup.html).toContain('<form method="post" action="/app/signup"');
    expect(signup.html).toContain('<a href="/app/login">Sign in</a>');
  });

  it("sign-up, sign-in (back to where the user was going, or the table's home), the guarded page, logout (home: /app)", async () => {
    const visitor = under();
    const email = freshEmail("under");
    await visitor.get("/signup");
    const made = await visitor.post("/signup", { email, password: PASSWORD });
    expect([made.status, made.location]).toEqual([303, "/app/login"]);
    await visitor.get("/login");
    const back = await visitor.post("/login", { email, password: PASSWORD, next: "/app/secret" });
    expect([back.status, back.location]).toEqual([303, "/app/secret"]);
    expect((await visitor.get("/secret")).html).toMatch(/^secret for \d+$/);
    const other = under();
    await other.get("/login");
    expect((await other.post("/login", { email, password: PASSWORD })).location).toBe("/app");
    await visitor.get("/login"); // the renewed session's token
    const out = await visitor.post("/logout", {});
    expect([out.status, out.location]).toEqual([303, "/app"]);
    expect((await visitor.get("/secret")).status).toBe(303);
  });

  it("derived pages link, post and redirect under the prefix", async () => {
    const visitor = under();
    await visitor.signUp(freshEmail("under-stories"), PASSWORD);
    const blank = await visitor.get("/stories/new");
    expect(blank.html).toContain('<form method="post" action="/app/stories"');
    expect(blank.html).toContain('<a href="/app/stories" class="fw-back">');
    const created = await visitor.post("/stories", { title: "Under story" });
    expect(created.status).toBe(303);
    expect(created.location).toMatch(/^\/app\/stories\/\d+$/);
    const at = (created.location as string).slice("/app".length);
    const show = await visitor.get(at);
    expect(show.html).toContain(`<a href="/app${at}/edit" class="fw-edit">Edit</a>`);
    expect(show.html).toContain(`<a href="/app${at}/delete" class="fw-destroy">Delete</a>`);
    const index = await visitor.get("/stories");
    expect(index.html).toContain(`<a href="/app${at}">Show</a>`);
    expect(index.html).toContain('<a href="/app/stories/new" class="fw-new">');
    expect(index.html).toContain('<a href="/app/stories?sort=title">Title</a>');
    const edit = await visitor.get(`${at}/edit`);
    expect(edit.html).toContain(`action="/app${at}"`);
    const updated = await visitor.post(at, { _method: "PUT", title: "Under story, changed" });
    expect([updated.status, updated.location]).toEqual([303, `/app${at}`]);
    expect((await visitor.get(`${at}/delete`)).html).toContain(`<form method="post" action="/app${at}" class="fw-destroy">`);
    const deleted = await visitor.post(at, { _method: "DELETE" });
    expect([deleted.status, deleted.location]).toEqual([303, "/app/stories"]);
  });

  it("a guarded socket under the prefix knows its user", async () => {
    const visitor = under();
    const email = freshEmail("under-socket");
    await visitor.signUp(email, PASSWORD);
    const client = await connect((await app?.url) as string, "/app/live/socket", { headers: { cookie: visitor.cookie as string } });
    client.socket.send("hi");
    const answer = await client.next();
    expect(answer).toMatch(/^\d+ /);
    expect(answer.endsWith(` ${email}: hi`)).toBe(true);
    client.socket.close();
  });
});
