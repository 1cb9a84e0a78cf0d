import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { freshToken } from "../../runtime/auth/account-tokens.js";
import { CHECK_EMAIL, formSignIn, hashPassword, InMemoryTokens, InMemoryUsers, RESET_SENT, seedUser, type UserFields } from "../../runtime/auth/index.js";
import { assembleTable, Ok, Route, type Layout, type Request } from "../../runtime/index.js";
import { Mailer, MailboxTransport, readMailbox, SmtpTransport, type ComposedMail, type MailboxEntry, type MailTransport } from "../../runtime/mail/index.js";
import { TestClient } from "../../runtime/testing/client.js";
import { rawRequest, serve, type Served } from "../support/serve.js";
import { smtpServer, type Received, type TestSmtpServer } from "../support/smtp-server.js";

// Issue 32, item 3: fw/auth's account flows, on when formSignIn has a mailer. In process, with
// users in memory and mail in a mailbox folder this test reads (the example's end-to-end test
// runs the same flows on its database: spec/auth/example-accounts.test.ts).

const ORIGIN = "https://shop.example";
const PASSWORD = "plum orbit velvet 9271";
const NEW_PASSWORD = "granite lantern 4471 ferry";

/** A transport whose deliveries never finish: shows that no answer waits for mail. */
class StuckTransport implements MailTransport {
  readonly description = "a mail server that never answers";
  readonly held: ComposedMail[] = [];
  deliver(mail: ComposedMail): Promise<void> {
    this.held.push(mail);
    return new Promise(() => {});
  }
}

let dir: string;
let users: InMemoryUsers<UserFields>;
let tokens: InMemoryTokens;
let app: Served;
let stuckApp: Served;
let stuck: StuckTransport;
let stuckUsers: InMemoryUsers<UserFields>;

/**
 * The client address the account forms count by: the test's own name (set before each test), so
 * one test's forms do not use up another's budget of 20 (every client here connects from 127.0.0.1).
 */
let clientAddress = "127.0.0.1";
beforeEach((context) => {
  clientAddress = `test: ${context.task.name}`;
});

function appWith(mailer: Mailer, store: InMemoryUsers<UserFields>, held: InMemoryTokens) {
  const auth = formSignIn({ users: store, mailer, tokens: held, addressOf: () => clientAddress });
  const guarded = auth.guarded();
  const layout: Layout = async ({ title, content, request }) => (
    <html>
      <head>
        <title>{title ?? "shop"}</title>
      </head>
      <body>
        <p id="who">{(await auth.userOf(request))?.email ?? "signed out"}</p>
        <p id="flash">{request.session.flashed("notice") ?? ""}</p>
        {content}
      </body>
    </html>
  );
  const routes = assembleTable(
    [guarded],
    [Route.get("/", () => Ok(<p>home</p>)), guarded.through(Route.get("/mine", async (request: Request) => Ok(<p>mine: {(await auth.currentUser(request))?.email}</p>)))],
  );
  return { routes, layout, parts: [mailer] };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "fw-accounts-"));
  users = new InMemoryUsers();
  tokens = new InMemoryTokens();
  app = await serve({ ...appWith(new Mailer({ from: "Shop <no-reply@shop.example>", transport: new MailboxTransport(dir) }), users, tokens), origin: ORIGIN, allowedHosts: ["*"] });
  stuck = new StuckTransport();
  stuckUsers = new InMemoryUsers();
  stuckApp = await serve({ ...appWith(new Mailer({ from: "Shop <no-reply@shop.example>", transport: stuck }), stuckUsers, new InMemoryTokens()), origin: ORIGIN, allowedHosts: ["*"] });
});

afterAll(async () => {
  await app.close();
  await stuckApp.close();
  rmSync(dir, { recursive: true, force: true });
});

let counter = 0;
function freshEmail(name: string): string {
  return `${name}-${++counter}@example.com`;
}

/** Waits (at most 5 s) for the next message to `to` with this subject, and answers it. */
async function mailTo(to: string, subject: string): Promise<MailboxEntry> {
  for (let tries = 0; tries < 250; tries++) {
    const found = (await readMailbox(dir)).find((mail) => mail.to.includes(to) && mail.subject === subject);
    if (found !== undefined) return found;
    await new Promise((done) => setTimeout(done, 20));
  }
  throw new Error(`no mail "${subject}" to ${to}; the mailbox has: ${(await readMailbox(dir)).map((mail) => `${mail.subject} → ${mail.to.join(",")}`).join("; ")}`);
}

async function mailsTo(to: string): Promise<string[]> {
  return (await readMailbox(dir)).filter((mail) => mail.to.includes(to)).map((mail) => mail.subject);
}

/** The link of a mail as a path on the app (the mail names the public origin). */
function linkOf(mail: MailboxEntry, text: string): string {
  const href = new RegExp(`<a href="([^"]+)">${text}</a>`).exec(mail.html)?.[1];
  expect(href, `a link "${text}" in ${mail.html}`).toBeDefined();
  const url = new URL((href as string).replaceAll("&amp;", "&"));
  expect(url.origin).toBe(ORIGIN);
  return url.pathname + url.search;
}

async function who(client: TestClient): Promise<string> {
  return /<p id="who">([^<]*)<\/p>/.exec((await client.get("/")).text)?.[1] ?? "";
}

async function signedIn(email: string, password = PASSWORD): Promise<TestClient> {
  const client = new TestClient(app.url);
  await client.signIn(email, password);
  return client;
}

describe("Forgot your password?", () => {
  it("answers an unknown email and a known one alike; only the known one gets a link, naming FW_ORIGIN even under a forged Host", async () => {
    const known = freshEmail("known");
    await seedUser(users, known, PASSWORD);
    const unknown = freshEmail("nobody");
    const answers = [];
    for (const email of [known, unknown]) {
      const client = new TestClient(app.url);
      const answer = await client.submit("/password/forgot", { email });
      answers.push([answer.status, answer.location, /<p id="flash">([^<]*)</.exec((await client.follow(answer)).text)?.[1]]);
    }
    expect(answers[0]).toEqual([303, "/login", RESET_SENT]);
    expect(answers[1]).toEqual(answers[0]);
    // A forged Host and X-Forwarded-Host: the link still names the configured origin.
    const page = new TestClient(app.url);
    const form = (await page.get("/password/forgot")).forms()[0];
    const body = new URLSearchParams({ ...form?.fields, email: known }).toString();
    const raw = await rawRequest(
      app.port,
      `POST /password/forgot HTTP/1.1\r\nHost: evil.example\r\nX-Forwarded-Host: evil.example\r\nCookie: ${page.cookies.header()}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(raw).toMatch(/^HTTP\/1.1 303/);
    const mail = await mailTo(known, "Choose a new password");
    expect(linkOf(mail, "Choose a new password")).toMatch(/^\/password\/reset\?token=[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);
    expect(JSON.stringify(await readMailbox(dir))).not.toContain("evil.example");
    expect(await mailsTo(unknown)).toEqual([]);
  });

  it("never waits for the mail server: with one that never answers, a known email is answered as an unknown one", async () => {
    const known = freshEmail("stuck");
    await seedUser(stuckUsers, known, PASSWORD);
    const asked = await new TestClient(stuckApp.url).submit("/password/forgot", { email: known });
    expect([asked.status, asked.location]).toEqual([303, "/login"]);
    expect(stuck.held.map((mail) => [mail.subject, mail.to])).toEqual([["Choose a new password", [known]]]);
    const signedUp = await new TestClient(stuckApp.url).submit("/signup", { email: freshEmail("stuck-new"), password: PASSWORD });
    expect([signedUp.status, signedUp.location]).toEqual([303, "/login"]);
  });

  it("refuses an empty or malformed email with 422 beside the field", async () => {
    const refused = await new TestClient(app.url).submit("/password/forgot", { email: "not an email" });
    expect([refused.status, refused.refusal().fields]).toEqual([422, { email: "Email must be an email address, like ada@example.com." }]);
  });
});

describe("the reset link", () => {
  async function resetLink(email: string): Promise<string> {
    const before = (await readMailbox(dir)).length;
    expect((await new TestClient(app.url).submit("/password/forgot", { email })).status).toBe(303);
    for (let tries = 0; tries < 250; tries++) {
      const mails = (await readMailbox(dir)).filter((mail) => mail.to.includes(email) && mail.subject === "Choose a new password");
      if ((await readMailbox(dir)).length > before && mails[0] !== undefined) return linkOf(mails[0], "Choose a new password");
      await new Promise((done) => setTimeout(done, 20));
    }
    throw new Error(`no reset mail to ${email}`);
  }

  it("takes the token out of the URL, asks for a strong password, changes it once, signs in here and out everywhere else", async () => {
    const email = freshEmail("reset");
    await seedUser(users, email, PASSWORD);
    const elsewhere = await signedIn(email);
    expect(await who(elsewhere)).toBe(email);
    const link = await resetLink(email);
    const visitor = new TestClient(app.url);
    const opened = await visitor.get(link);
    expect([opened.status, opened.location]).toEqual([303, "/password/reset"]);
    expect(opened.headers.get("referrer-policy")).toBe("no-referrer");
    const form = await visitor.get("/password/reset");
    expect(form.status).toBe(200);
    expect(form.text).toContain(`For ${email}.`);
    const weak = await visitor.submit("/password/reset", { password: "short" });
    expect([weak.status, weak.refusal().fields]).toEqual([422, { password: "Password must be at least 12 characters long." }]);
    const done = await visitor.submit("/password/reset", { password: NEW_PASSWORD });
    expect([done.status, done.location]).toEqual([303, "/"]);
    expect(await who(visitor)).toBe(email);
    expect(await who(elsewhere)).toBe("signed out");
    await expect(new TestClient(app.url).signIn(email, PASSWORD)).rejects.toThrow(/failed/);
    await signedIn(email, NEW_PASSWORD);
    // Used once: the same link again does not work.
    const again = new TestClient(app.url);
    await again.get(link);
    const dead = await again.get("/password/reset");
    expect(dead.status).toBe(400);
    expect(dead.text).toContain("This password reset link does not work");
  });

  it("a newer reset (or sign out everywhere) ends the links sent before: they are bound to the session epoch", async () => {
    const email = freshEmail("epoch");
    await seedUser(users, email, PASSWORD);
    const first = await resetLink(email);
    const second = await resetLink(email);
    const visitor = new TestClient(app.url);
    await visitor.get(second);
    expect((await visitor.submit("/password/reset", { password: NEW_PASSWORD })).status).toBe(303);
    const late = new TestClient(app.url);
    await late.get(first);
    expect((await late.get("/password/reset")).status).toBe(400);
    // Sign out everywhere changes the epoch too.
    const third = await resetLink(email);
    const signed = await signedIn(email, NEW_PASSWORD);
    expect((await signed.submit("/account", {}, { action: "/account/sign-out-everywhere" })).location).toBe("/login");
    const after = new TestClient(app.url);
    await after.get(third);
    expect((await after.get("/password/reset")).status).toBe(400);
  });

  it("refuses tampered, expired, mixed and other flows' tokens alike, with 400 and what to do", async () => {
    const email = freshEmail("tamper");
    const user = await seedUser(users, email, PASSWORD);
    const link = await resetLink(email);
    const token = link.slice(link.indexOf("=") + 1);
    const [selector, verifier] = token.split(".") as [string, string];
    const flipped = `${selector}.${verifier.slice(0, -1)}${verifier.endsWith("A") ? "B" : "A"}`;
    const expired = freshToken({ purpose: "reset-password", userId: user.id, email: user.email, data: "", epoch: user.sessionEpoch, expiresAt: Date.now() - 1 });
    await tokens.save(expired.record);
    const other = freshToken({ purpose: "confirm-signup", userId: 0, email: user.email, data: user.passwordHash, epoch: "", expiresAt: Date.now() + 60_000 });
    await tokens.save(other.record);
    const otherVerifier = other.token.split(".")[1] as string;
    for (const bad of [flipped, expired.token, other.token, `${selector}.${otherVerifier}`, "x", `${token}x`]) {
      const visitor = new TestClient(app.url);
      await visitor.get(`/password/reset?token=${encodeURIComponent(bad)}`);
      const page = await visitor.get("/password/reset");
      expect([bad, page.status]).toEqual([bad, 400]);
      expect(page.text).toContain("Ask for a new password link");
    }
    // The real one still works after all that.
    const visitor = new TestClient(app.url);
    await visitor.get(link);
    expect((await visitor.submit("/password/reset", { password: NEW_PASSWORD })).status).toBe(303);
  });

  it("without a link, the reset page is a 400, not a form", async () => {
    expect((await new TestClient(app.url).get("/password/reset")).status).toBe(400);
  });
});

describe("confirming a sign-up", () => {
  it("sign-up makes no account until the link is followed; following it confirms and signs in, once", async () => {
    const email = freshEmail("new");
    const visitor = new TestClient(app.url);
    const answer = await visitor.submit("/signup", { email, password: PASSWORD });
    expect([answer.status, answer.location]).toEqual([303, "/login"]);
    expect(/<p id="flash">([^<]*)</.exec((await visitor.follow(answer)).text)?.[1]).toBe(CHECK_EMAIL.replaceAll("'", "&#39;"));
    await expect(new TestClient(app.url).signIn(email, PASSWORD)).rejects.toThrow(/failed/);
    const link = linkOf(await mailTo(email, "Confirm your email"), "Confirm and sign in");
    const phone = new TestClient(app.url);
    expect((await phone.get(link)).location).toBe("/confirm");
    const page = await phone.get("/confirm");
    expect(page.text).toContain(`Confirm ${email} to finish signing up`);
    const confirmed = await phone.submit("/confirm", {});
    expect([confirmed.status, confirmed.location]).toEqual([303, "/"]);
    expect(await who(phone)).toBe(email);
    expect((await phone.get("/mine")).status).toBe(200);
    await signedIn(email);
    const again = new TestClient(app.url);
    await again.get(link);
    expect((await again.get("/confirm")).status).toBe(400);
  });

  it("an email with an account gets the same answer and a mail saying so; its password is unchanged", async () => {
    const email = freshEmail("taken");
    await seedUser(users, email, PASSWORD);
    const answer = await new TestClient(app.url).submit("/signup", { email, password: NEW_PASSWORD });
    expect([answer.status, answer.location]).toEqual([303, "/login"]);
    const mail = await mailTo(email, "You already have an account");
    expect(linkOf(mail, "choose a new password")).toBe("/password/forgot");
    await signedIn(email, PASSWORD);
    await expect(new TestClient(app.url).signIn(email, NEW_PASSWORD)).rejects.toThrow(/failed/);
  });
});

describe("password strength (zxcvbn-ts), on every form that sets one", () => {
  it.each([
    ["passwordpass", "This is similar to a commonly used password."],
    ["qwertyuiopas", "This is similar to a commonly used password."],
    ["zxcvbnmasdfg", "This is similar to a commonly used password."],
    ["asdfghjkl;'zx", "Straight rows of keys on your keyboard are easy to guess."],
  ])("sign-up refuses %j (passed by the short list before), saying why and what would pass", async (password, why) => {
    const refused = await new TestClient(app.url).submit("/signup", { email: freshEmail("weak"), password });
    expect(refused.status).toBe(422);
    const said = refused.refusal().fields["password"] ?? "";
    expect(said).toContain(`This password is too easy to guess. ${why}`);
    expect(said).toContain("Four or more words that do not belong together pass");
  });

  it("the reset form refuses a weak one too, and a strong one passes", async () => {
    const email = freshEmail("strength");
    await seedUser(users, email, PASSWORD);
    expect((await new TestClient(app.url).submit("/password/forgot", { email })).status).toBe(303);
    const visitor = new TestClient(app.url);
    await visitor.get(linkOf(await mailTo(email, "Choose a new password"), "Choose a new password"));
    const weak = await visitor.submit("/password/reset", { password: "passwordpass" });
    expect([weak.status, weak.refusal().fields["password"]?.startsWith("This password is too easy to guess.")]).toEqual([422, true]);
    expect((await visitor.submit("/password/reset", { password: NEW_PASSWORD })).status).toBe(303);
  });
});

describe("account settings", () => {
  it("is for the signed-in: nobody is sent to sign in", async () => {
    expect((await new TestClient(app.url).get("/account")).location).toBe("/login?next=%2Faccount");
  });

  it("changes the password when the current one is given, keeps this session, ends the others, and tells the owner", async () => {
    const email = freshEmail("change");
    await seedUser(users, email, PASSWORD);
    const here = await signedIn(email);
    const there = await signedIn(email);
    const wrong = await here.submit("/account", { current: "not my password", password: NEW_PASSWORD }, { action: "/account/password" });
    expect([wrong.status, wrong.refusal().fields]).toEqual([422, { current: "This is not your current password." }]);
    const weak = await here.submit("/account", { current: PASSWORD, password: "tiny" }, { action: "/account/password" });
    expect(weak.status).toBe(422);
    const changed = await here.submit("/account", { current: PASSWORD, password: NEW_PASSWORD }, { action: "/account/password" });
    expect([changed.status, changed.location]).toEqual([303, "/account"]);
    expect(await who(here)).toBe(email);
    expect(await who(there)).toBe("signed out");
    await mailTo(email, "Your password was changed");
  });

  it("changes the email through a link sent to the new address, telling the old one", async () => {
    const email = freshEmail("old");
    const next = freshEmail("new-address");
    await seedUser(users, email, PASSWORD);
    const here = await signedIn(email);
    const asked = await here.submit("/account", { email: next, current: PASSWORD }, { action: "/account/email" });
    expect([asked.status, asked.location]).toEqual([303, "/account"]);
    await mailTo(email, "A change of your email was asked for");
    const link = linkOf(await mailTo(next, "Confirm your new email"), "Confirm the new email");
    expect(await who(here)).toBe(email); // nothing changed yet
    expect((await here.get(link)).location).toBe("/account/email/confirm");
    const confirmed = await here.submit("/account/email/confirm", {});
    expect([confirmed.status, confirmed.location]).toEqual([303, "/account"]);
    expect(await who(here)).toBe(next);
    await signedIn(next);
    await expect(new TestClient(app.url).signIn(email, PASSWORD)).rejects.toThrow(/failed/);
    await mailTo(email, "Your email was changed");
  });

  it("deletes the account when the current password is given", async () => {
    const email = freshEmail("leaving");
    await seedUser(users, email, PASSWORD);
    const here = await signedIn(email);
    expect((await here.submit("/account", { current: "wrong wrong wrong" }, { action: "/account/delete" })).status).toBe(422);
    const gone = await here.submit("/account", { current: PASSWORD }, { action: "/account/delete" });
    expect([gone.status, gone.location]).toEqual([303, "/"]);
    expect(await who(here)).toBe("signed out");
    await expect(new TestClient(app.url).signIn(email, PASSWORD)).rejects.toThrow(/failed/);
    await mailTo(email, "Your account was deleted");
  });
});

describe("limits", () => {
  it("the account forms are limited per client address, as sign-in is (429 with Retry-After)", async () => {
    const limited = await serve({ ...appWith(new Mailer({ from: "Shop <no-reply@shop.example>", transport: new MailboxTransport(join(dir, "limited")) }), new InMemoryUsers(), new InMemoryTokens()), origin: ORIGIN, allowedHosts: ["*"] });
    try {
      const client = new TestClient(limited.url);
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) statuses.push((await client.submit("/password/forgot", { email: `someone${i}@example.com` })).status);
      expect(statuses.every((code) => code === 303)).toBe(true);
      const refused = await client.submit("/password/forgot", { email: "one-more@example.com" });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });
});

// Issue 39: an outside audit's findings on the account flows (items 2 to 6).

describe("issue 39, item 2: the settings forms count per client address, as the other account forms", () => {
  it("21 changes of email from one address: 20 are sent, the 21st is 429 and mails nobody", async () => {
    const email = freshEmail("cannon");
    await seedUser(users, email, PASSWORD);
    const here = await signedIn(email);
    const targets = Array.from({ length: 21 }, (_, i) => freshEmail(`target${i}`));
    const statuses: number[] = [];
    for (const target of targets.slice(0, 20)) statuses.push((await here.submit("/account", { email: target, current: PASSWORD }, { action: "/account/email" })).status);
    expect(statuses).toEqual(Array.from({ length: 20 }, () => 303));
    const refused = await here.submit("/account", { email: targets[20] as string, current: PASSWORD }, { action: "/account/email" });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    await mailTo(targets[19] as string, "Confirm your new email");
    expect(await mailsTo(targets[20] as string)).toEqual([]);
  });

  it.each([
    ["change password", "/account/password", { current: PASSWORD, password: NEW_PASSWORD }],
    ["change email", "/account/email", { current: PASSWORD, email: "elsewhere@example.com" }],
    ["delete the account", "/account/delete", { current: PASSWORD }],
    ["sign out everywhere", "/account/sign-out-everywhere", {}],
  ])("%s counts in the same budget: once the address sent 20 account forms, it is 429 and nothing changes", async (_name, action, fields) => {
    const email = freshEmail("budget");
    await seedUser(users, email, PASSWORD);
    const here = await signedIn(email);
    for (let i = 0; i < 20; i++) expect((await new TestClient(app.url).submit("/password/forgot", { email: freshEmail("nobody") })).status).toBe(303);
    const refused = await here.submit("/account", fields, { action });
    expect([refused.status, Number(refused.headers.get("retry-after")) > 0]).toEqual([429, true]);
    expect(await who(here)).toBe(email);
    await signedIn(email, PASSWORD);
  });
});

/** Emails a person can type that a mailer reads as another address (or as none): refused wherever an email is taken. */
const NOT_BARE = [
  "a(x)@d.example", // a comment: the mailer sends to a@d.example
  "x<a@d.example>", // a display name: the mailer sends to a@d.example
  "g:a@d.example;", // a group
  "a@d.example,x", // a list
  "<b>x</b>@example.com",
  '"a b"@d.example',
  "a..b@d.example",
  ".a@d.example",
  "a@-d.example",
  "a@d..example",
  "x\uff1ca@d.example\uff1e", // full-width brackets, which NFKC turns into < and >
];

describe("issue 39, item 3: an email is one bare address, and mail goes to exactly the stored one", () => {
  it.each(NOT_BARE)("sign-up refuses %j with 422 beside the field, and mails no one", async (typed) => {
    const refused = await new TestClient(app.url).submit("/signup", { email: typed, password: PASSWORD });
    expect([refused.status, refused.refusal().fields["email"]]).toEqual([422, "Email must be an email address, like ada@example.com."]);
    expect(await mailsTo("a@d.example")).toEqual([]);
  });

  it("the change of email refuses the same addresses", async () => {
    const email = freshEmail("changer");
    await seedUser(users, email, PASSWORD);
    const here = await signedIn(email);
    for (const typed of NOT_BARE) {
      const refused = await here.submit("/account", { email: typed, current: PASSWORD }, { action: "/account/email" });
      expect([typed, refused.status, refused.refusal().fields["email"]]).toEqual([typed, 422, "Email must be an email address, like ada@example.com."]);
    }
  });

  it.each([
    ["o'brien+news@example.com", "o'brien+news@example.com"],
    ["Ada.Lovelace@Example.COM", "ada.lovelace@example.com"],
    ["jos\u00e9@b\u00fccher.example", "jos\u00e9@b\u00fccher.example"],
    ["ADA\uff20EXAMPLE.COM", "ada@example.com"], // full-width, as some keyboards type it: NFKC makes it the address a person reads
  ])("sign-up takes %j and mails the address stored (%j)", async (typed, stored) => {
    const unique = stored.replace("@", `-${++counter}@`);
    const answer = await new TestClient(app.url).submit("/signup", { email: typed.replace(/@|\uff20/, (at) => `-${counter}${at}`), password: PASSWORD });
    expect([answer.status, answer.location]).toEqual([303, "/login"]);
    const mail = await mailTo(unique, "Confirm your email");
    expect(mail.to).toEqual([unique]);
  });
});

describe("issue 39, item 3, through a real SMTP server: the envelope is the address stored", () => {
  let smtp: TestSmtpServer;
  let smtpUsers: InMemoryUsers<UserFields>;
  let smtpApp: Served;
  beforeAll(async () => {
    smtp = await smtpServer();
    smtpUsers = new InMemoryUsers();
    smtpApp = await serve({ ...appWith(new Mailer({ from: "Shop <no-reply@shop.example>", transport: new SmtpTransport(smtp.url) }), smtpUsers, new InMemoryTokens()), origin: ORIGIN, allowedHosts: ["*"] });
  });
  afterAll(async () => {
    await smtpApp.close();
    await smtp.close();
  });

  async function received(to: string): Promise<Received> {
    for (let tries = 0; tries < 250; tries++) {
      const found = smtp.received.find((mail) => mail.to.includes(to));
      if (found !== undefined) return found;
      await new Promise((done) => setTimeout(done, 20));
    }
    throw new Error(`the SMTP server got nothing for ${to}; it got: ${JSON.stringify(smtp.received.map((mail) => mail.to))}`);
  }

  it("sign-up's confirmation is delivered to the address stored (RCPT TO), exactly", async () => {
    const answer = await new TestClient(smtpApp.url).submit("/signup", { email: "O'Brien+News@Example.com", password: PASSWORD });
    expect(answer.status).toBe(303);
    const mail = await received("o'brien+news@example.com");
    expect(mail.to).toEqual(["o'brien+news@example.com"]);
  });

  it("a stored address an older check let in (x<a@d.example>) is refused by fw/mail, never delivered to the address inside it", async () => {
    const reported: string[] = [];
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((line: string | Uint8Array) => reported.push(String(line)) > 0);
    try {
      await smtpUsers.create("x<a@d.example>", await hashPassword(PASSWORD));
      const here = new TestClient(smtpApp.url);
      await here.signIn("x<a@d.example>", PASSWORD);
      const asked = await here.submit("/account", { email: "fresh@d.example", current: PASSWORD }, { action: "/account/email" });
      expect(asked.status).toBe(303);
      await received("fresh@d.example");
      for (let tries = 0; tries < 250 && !reported.some((line) => line.includes("A change of your email was asked for")); tries++) await new Promise((done) => setTimeout(done, 20));
      expect(reported.join("")).toContain('fw/auth: the mail "A change of your email was asked for" could not be sent: fw/mail: envelope.to "x<a@d.example>" is not a bare email address');
      expect(smtp.received.flatMap((mail) => mail.to)).not.toContain("a@d.example");
    } finally {
      spy.mockRestore();
    }
  });
});

describe("issue 39, item 4: a change-of-email link works only for its own account", () => {
  it("signed in as someone else, the link is dead (GET and POST): neither account changes; the owner's browser then uses it", async () => {
    const owner = freshEmail("owner");
    const other = freshEmail("bystander");
    const next = freshEmail("owners-new");
    await seedUser(users, owner, PASSWORD);
    await seedUser(users, other, PASSWORD);
    const ownerBrowser = await signedIn(owner);
    const otherBrowser = await signedIn(other);
    expect((await ownerBrowser.submit("/account", { email: next, current: PASSWORD }, { action: "/account/email" })).status).toBe(303);
    const link = linkOf(await mailTo(next, "Confirm your new email"), "Confirm the new email");
    expect((await otherBrowser.get(link)).location).toBe("/account/email/confirm");
    const page = await otherBrowser.get("/account/email/confirm");
    expect(page.status).toBe(400);
    expect(page.text).toContain("This email confirmation link does not work");
    const csrf = /name="_csrf" value="([^"]+)"/.exec((await otherBrowser.get("/account")).text)?.[1] ?? "";
    const posted = await otherBrowser.post("/account/email/confirm", { _csrf: csrf });
    expect(posted.status).toBe(400);
    expect(posted.text).not.toContain("Your email is now");
    expect([await who(ownerBrowser), await who(otherBrowser)]).toEqual([owner, other]);
    // The link was not used up: its own account's browser confirms it.
    await ownerBrowser.get(link);
    const confirmed = await ownerBrowser.submit("/account/email/confirm", {});
    expect([confirmed.status, confirmed.location]).toEqual([303, "/account"]);
    expect(await who(ownerBrowser)).toBe(next);
  });

  it("a browser signed in as nobody confirms it (the link reached the new address), signs nobody in, and is sent to sign in", async () => {
    const owner = freshEmail("away");
    const next = freshEmail("away-new");
    await seedUser(users, owner, PASSWORD);
    const laptop = await signedIn(owner);
    expect((await laptop.submit("/account", { email: next, current: PASSWORD }, { action: "/account/email" })).status).toBe(303);
    const phone = new TestClient(app.url);
    await phone.get(linkOf(await mailTo(next, "Confirm your new email"), "Confirm the new email"));
    const confirmed = await phone.submit("/account/email/confirm", {});
    expect([confirmed.status, confirmed.location]).toEqual([303, "/login"]);
    expect(/<p id="flash">([^<]*)</.exec((await phone.follow(confirmed)).text)?.[1]).toBe(`The email of your account is now ${next}: sign in with it.`);
    expect(await who(phone)).toBe("signed out");
    expect(await who(laptop)).toBe(next);
  });
});

describe("issue 39, item 5: a pending change of email survives the guarded pages opened before its button", () => {
  it("follow the link, open a guarded page, come back: the confirmation still works", async () => {
    const email = freshEmail("wanderer");
    const next = freshEmail("wanderer-new");
    await seedUser(users, email, PASSWORD);
    const here = await signedIn(email);
    expect((await here.submit("/account", { email: next, current: PASSWORD }, { action: "/account/email" })).status).toBe(303);
    expect((await here.get(linkOf(await mailTo(next, "Confirm your new email"), "Confirm the new email"))).location).toBe("/account/email/confirm");
    expect((await here.get("/mine")).status).toBe(200);
    expect((await here.get("/account")).status).toBe(200);
    const page = await here.get("/account/email/confirm");
    expect([page.status, page.text.includes(`Use ${next} for your account`)]).toEqual([200, true]);
    const confirmed = await here.submit("/account/email/confirm", {});
    expect([confirmed.status, confirmed.location]).toEqual([303, "/account"]);
    expect(await who(here)).toBe(next);
  });
});

describe("issue 39, item 6: a new password with a control character is refused, on every form that sets one", () => {
  const CONTROL = "This password has a control character (such as NUL, a tab or a line break), which cannot be typed at a sign-in form: choose one of letters, digits, spaces and symbols.";

  it.each([
    ["NUL", "plum orbit\u0000velvet 9271"],
    ["a line break", "plum orbit\nvelvet 9271"],
    ["a tab", "plum orbit\tvelvet 9271"],
    ["DEL", "plum orbit\u007fvelvet 9271"],
  ])("sign-up refuses one with %s", async (_name, password) => {
    const refused = await new TestClient(app.url).submit("/signup", { email: freshEmail("control"), password });
    expect([refused.status, refused.refusal().fields["password"]]).toEqual([422, CONTROL]);
  });

  it("the reset form and the change of password refuse it too", async () => {
    const email = freshEmail("control-reset");
    await seedUser(users, email, PASSWORD);
    expect((await new TestClient(app.url).submit("/password/forgot", { email })).status).toBe(303);
    const visitor = new TestClient(app.url);
    await visitor.get(linkOf(await mailTo(email, "Choose a new password"), "Choose a new password"));
    const reset = await visitor.submit("/password/reset", { password: "plum orbit\u0000velvet 9271" });
    expect([reset.status, reset.refusal().fields["password"]]).toEqual([422, CONTROL]);
    const here = await signedIn(email);
    const changed = await here.submit("/account", { current: PASSWORD, password: "plum orbit\u0000velvet 9271" }, { action: "/account/password" });
    expect([changed.status, changed.refusal().fields["password"]]).toEqual([422, CONTROL]);
    await signedIn(email, PASSWORD);
  });
});
