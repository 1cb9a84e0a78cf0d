import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve, sep } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpApp, Ok, publicUrl, Route, RouteTable, type Request } from "../../runtime/index.js";
import { composeMail } from "../../runtime/mail/compose.js";
import { textOf } from "../../runtime/mail/html-text.js";
import { Mailer, MailboxTransport, MailError, MailNotSent, readMailbox, SmtpTransport, type ComposedMail } from "../../runtime/mail/index.js";
import type { DevHook } from "../../runtime/server/dev-hook.js";
import { rawRequest, serve, TEST_SECRET, type Served } from "../support/serve.js";
import { smtpServer, type TestSmtpServer } from "../support/smtp-server.js";

// Issue 32, item 2: fw/mail. Messages are written with fw's JSX; in dev and tests they land in a
// mailbox folder (shown at /fw/mail), in production they go through SMTP (nodemailer), which
// these tests deliver to a real SMTP server started here (the smtp-server package).

const ORIGIN = "https://shop.example";
const FROM = "Shop <no-reply@shop.example>";

function welcome(name: string): ComposedMail {
  return composeMail(
    {
      to: "Ada Lovelace <ada@example.com>",
      subject: "Welcome to the shop",
      body: (
        <>
          <h1>Welcome, {name}</h1>
          <p>
            Confirm your email: <a href="/confirm/t0k3n?x=1&y=2">confirm it</a>.
          </p>
          <ul>
            <li>Browse <a href="https://elsewhere.example/catalogue">the catalogue</a></li>
            <li>Write to <a href="mailto:help@shop.example">help@shop.example</a></li>
          </ul>
          <p>
            <img src="/logo.png" alt="The shop" />
          </p>
        </>
      ),
    },
    { from: FROM, origin: ORIGIN, now: new Date("2025-01-02T03:04:05.000Z") },
  );
}

describe("composing a message", () => {
  it("renders the JSX body into a whole document titled by the subject, escaped, app paths absolute on the origin", () => {
    const mail = welcome("<Ada & co>");
    expect(mail.html).toMatch(/^<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">.*<title>Welcome to the shop<\/title><\/head><body>/);
    expect(mail.html).toContain("<h1>Welcome, &lt;Ada &amp; co&gt;</h1>");
    expect(mail.html).toContain('href="https://shop.example/confirm/t0k3n?x=1&amp;y=2"');
    expect(mail.html).toContain('src="https://shop.example/logo.png"');
    expect(mail.html).toContain('href="https://elsewhere.example/catalogue"'); // another site's link is left alone
    expect(mail).toMatchObject({ from: FROM, to: ["Ada Lovelace <ada@example.com>"], cc: [], bcc: [], subject: "Welcome to the shop", date: "2025-01-02T03:04:05.000Z", headers: {} });
    expect(mail.id).toMatch(/^<[0-9a-f-]{36}@shop\.example>$/);
  });

  it("derives the text part: blocks on their own lines, list items, links as text (url), images as their alt", () => {
    expect(welcome("Ada").text).toBe(
      [
        "Welcome, Ada",
        "",
        "Confirm your email: confirm it (https://shop.example/confirm/t0k3n?x=1&y=2).",
        "",
        "- Browse the catalogue (https://elsewhere.example/catalogue)",
        "- Write to help@shop.example",
        "",
        "The shop",
      ].join("\n"),
    );
    expect(textOf("<ol><li>one</li><li>two<br>lines</li></ol><pre>  kept\n  as is</pre><p>a   b\n c &#x263A; &nbsp;d</p>")).toBe("1. one\n2. two\nlines\n\n  kept\n  as is\n\na b c \u263a d");
    expect(textOf('<p><a href="https://x.example/">https://x.example/</a></p><style>p{}</style><!-- hidden -->')).toBe("https://x.example/");
  });

  it("keeps a text part given, and a body that is a whole document as written", () => {
    const mail = composeMail({ to: "a@example.com", subject: "s", text: "plain", body: <html><body><p>x</p></body></html> }, { from: FROM, origin: ORIGIN });
    expect(mail.text).toBe("plain");
    expect(mail.html).toBe("<!DOCTYPE html><html><body><p>x</p></body></html>");
  });

  it.each([
    [{ to: "ada@example.com\r\nBcc: all@example.com" }, /to "ada@example.com\\r\\nBcc: all@example.com" is not an email address/],
    [{ to: "not an address" }, /to "not an address" is not an email address/],
    [{ to: [] as string[] }, /has no recipient/],
    [{ subject: "Hi\nBcc: all@example.com" }, /the subject .* has a line break/],
    [{ subject: " " }, /the subject is empty/],
    [{ headers: { "X-Ok": "1", Subject: "other" } }, /the header Subject is written from the message's fields/],
    [{ headers: { "X-Bad": "a\r\nBcc: all@example.com" } }, /the header X-Bad must be one line of text/],
    [{ headers: { "Bad Name": "x" } }, /"Bad Name" is not a header name/],
    [{ replyTo: "x@y\n.z" }, /replyTo .* is not an email address/],
    // Issue 39: an address a mailer would read as another one (a comment, a group, a list, markup).
    [{ to: "a(x)@d.example" }, /to "a\(x\)@d\.example" is not an email address/],
    [{ to: "g:a@d.example;" }, /to "g:a@d\.example;" is not an email address/],
    [{ to: "a@d.example,x" }, /to "a@d\.example,x" is not an email address/],
    [{ to: "<b>x</b>@example.com" }, /to "<b>x<\/b>@example\.com" is not an email address/],
    [{ to: "Ada <a(x)@d.example>" }, /to "Ada <a\(x\)@d\.example>" is not an email address/],
    [{ envelope: { to: ["Ada <ada@example.com>"] } }, /envelope\.to "Ada <ada@example\.com>" is not a bare email address/],
    [{ envelope: { from: "x<a@d.example>" } }, /envelope\.from "x<a@d\.example>" is not a bare email address/],
  ])("refuses %j (a line break would write headers of its own; an address a mailer reads as another would go elsewhere), naming the field", (change, message) => {
    const mail = { to: "ada@example.com", subject: "Hello", body: <p>hi</p>, ...change };
    expect(() => composeMail(mail, { from: FROM, origin: ORIGIN })).toThrow(MailError);
    expect(() => composeMail(mail, { from: FROM, origin: ORIGIN })).toThrow(message);
  });
});

describe("the envelope: the exact mailboxes a message goes to (issue 39)", () => {
  it("is read once from the checked addresses (the bare address of each), or given whole; a display name is never read as an address", () => {
    const mail = composeMail(
      { to: ['"Lovelace, Ada" <ada@example.com>', "bob@example.com"], cc: "Carol <carol@example.com>", bcc: "audit@example.com", subject: "Hi", body: <p>hi</p> },
      { from: FROM, origin: ORIGIN },
    );
    expect(mail.envelope).toEqual({ from: "no-reply@shop.example", to: ["ada@example.com", "bob@example.com", "carol@example.com", "audit@example.com"] });
    const given = composeMail({ to: "Ada <ada@example.com>", envelope: { to: ["o'brien+list@example.com"] }, subject: "Hi", body: <p>hi</p> }, { from: FROM, origin: ORIGIN });
    expect(given.envelope).toEqual({ from: "no-reply@shop.example", to: ["o'brien+list@example.com"] });
    expect(given.to).toEqual(["Ada <ada@example.com>"]);
  });
});

describe("the mailbox transport (dev and tests)", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "fw-mailbox-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("keeps each message with its headers as SMTP would send them; the same message delivered twice is one", async () => {
    const transport = new MailboxTransport(dir);
    const mail = welcome("Ada");
    await transport.deliver(mail);
    await transport.deliver(mail); // a job that ran again
    const [entry, ...rest] = await readMailbox(dir);
    expect(rest).toEqual([]);
    expect(entry).toMatchObject({ id: mail.id, subject: mail.subject, html: mail.html, text: mail.text });
    const headers = new Map(entry?.sent.map(([name, value]) => [name.toLowerCase(), value]));
    expect(headers.get("message-id")).toBe(mail.id);
    expect(headers.get("subject")).toBe("Welcome to the shop");
    expect(headers.get("to")).toBe("Ada Lovelace <ada@example.com>");
    expect(headers.get("content-type")).toMatch(/^multipart\/alternative; boundary=/);
    expect(readdirSync(dir).sort()).toEqual([`${entry?.key}.eml`, `${entry?.key}.json`]);
  });
});

describe("SMTP (production): delivered to a real SMTP server started in the test", () => {
  let smtp: TestSmtpServer;
  beforeAll(async () => {
    smtp = await smtpServer({ refuse: "gone@example.com" });
  });
  afterAll(() => smtp.close());

  it("sends both parts, the Message-ID and the envelope, signed in with the URL's user and password", async () => {
    const transport = new SmtpTransport(`smtp://shop:${encodeURIComponent("s3cret pass")}@127.0.0.1:${smtp.port}`);
    try {
      const mail = composeMail({ to: "ada@example.com", bcc: "audit@example.com", subject: "Your receipt", body: <p>Thanks for order 42.</p> }, { from: FROM, origin: ORIGIN });
      await transport.deliver(mail);
      const [got] = smtp.received.splice(0);
      expect(got?.user).toBe("shop");
      expect(got?.from).toBe("no-reply@shop.example");
      expect(got?.to).toEqual(["ada@example.com", "audit@example.com"]);
      expect(got?.raw).toContain(`Message-ID: ${mail.id}`);
      expect(got?.raw).toContain("Subject: Your receipt");
      expect(got?.raw).not.toMatch(/^Bcc:/im); // the envelope carries it, the message does not show it
      expect(got?.raw).toMatch(/Content-Type: multipart\/alternative/);
      // Quoted-printable, as the server received it: soft line breaks and "=" written as =3D.
      const decoded = (got?.raw ?? "").replace(/=\r\n/g, "").replace(/=3D/g, "=");
      expect(decoded).toMatch(/Content-Type: text\/plain[^]*\r\n\r\nThanks for order 42\.\r\n[^]*Content-Type: text\/html[^]*<body><p>Thanks for order 42\.<\/p><\/body>/);
    } finally {
      await transport.close();
    }
  });

  it("delivers to the envelope exactly, and writes a display name as one name (nodemailer parses no address text of fw's)", async () => {
    const transport = new SmtpTransport(`smtp://shop:${encodeURIComponent("s3cret pass")}@127.0.0.1:${smtp.port}`);
    try {
      await transport.deliver(composeMail({ to: "Lovelace, Ada <ada@example.com>", subject: "Named", body: <p>hi</p> }, { from: FROM, origin: ORIGIN }));
      await transport.deliver(composeMail({ to: "Ada <ada@example.com>", envelope: { to: ["o'brien+list@example.com"] }, subject: "Listed", body: <p>hi</p> }, { from: FROM, origin: ORIGIN }));
      const [named, listed] = smtp.received.splice(0);
      expect(named?.to).toEqual(["ada@example.com"]);
      expect(named?.raw).toMatch(/^To: "Lovelace, Ada" <ada@example\.com>\r$/m);
      expect([listed?.from, listed?.to]).toEqual(["no-reply@shop.example", ["o'brien+list@example.com"]]);
      expect(listed?.raw).toMatch(/^To: Ada <ada@example\.com>\r$/m);
    } finally {
      await transport.close();
    }
  });

  it("a refused recipient rejects with MailNotSent naming the server (no password) and its answer", async () => {
    const transport = new SmtpTransport(`smtp://shop:${encodeURIComponent("s3cret pass")}@127.0.0.1:${smtp.port}`);
    try {
      const mail = composeMail({ to: "gone@example.com", subject: "Hello", body: <p>hi</p> }, { from: FROM, origin: ORIGIN });
      const failure = await transport.deliver(mail).then(() => undefined, (error: unknown) => error);
      expect(failure).toBeInstanceOf(MailNotSent);
      expect(String((failure as Error).message)).toContain(`SMTP at smtp://shop@127.0.0.1:${smtp.port} did not take the message`);
      expect(String((failure as Error).message)).toContain("No such user here");
      expect(String((failure as Error).message)).not.toContain("s3cret");
    } finally {
      await transport.close();
    }
  });

  it("a wrong password rejects with the server's answer", async () => {
    const transport = new SmtpTransport(`smtp://shop:wrong@127.0.0.1:${smtp.port}`);
    try {
      const mail = composeMail({ to: "ada@example.com", subject: "Hello", body: <p>hi</p> }, { from: FROM, origin: ORIGIN });
      await expect(transport.deliver(mail)).rejects.toThrow(/did not take the message .*Invalid username or password/);
    } finally {
      await transport.close();
    }
  });
});

/** A dev hook that does nothing (no supervisor): enough for `serve({ dev: true })` in process. */
const QUIET_HOOK: DevHook = { sockets: [], decorate: (html) => html, buildFailure: () => undefined, beforeListen: async () => {}, started: () => {}, close: () => {} };

/** A reset link sent by a handler (a GET, to keep the test short): the link is an app path, which fw/mail makes absolute. */
function resetRoutes(mailer: Mailer): RouteTable {
  return RouteTable.of(
    Route.get("/reset", async (request: Request) => {
      await mailer.send({ to: request.query.get("email") ?? "", subject: "Reset your password", body: <p><a href="/reset/t0k3n">Choose a new password</a></p> });
      return Ok(`sent; publicUrl says ${publicUrl("/x")}`);
    }),
  );
}

describe("Mailer in an app: boot, the dev mailbox page, production's settings", () => {
  const saved = { smtp: process.env["SMTP_URL"], mailbox: process.env["FW_MAILBOX"], origin: process.env["FW_ORIGIN"] };
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "fw-mail-app-"));
    delete process.env["SMTP_URL"];
    delete process.env["FW_MAILBOX"];
    delete process.env["FW_ORIGIN"];
  });
  afterAll(() => {
    for (const [name, value] of [["SMTP_URL", saved.smtp], ["FW_MAILBOX", saved.mailbox], ["FW_ORIGIN", saved.origin]] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(root, { recursive: true, force: true });
  });

  it("production: a forged Host cannot put its name in a link: the link names FW_ORIGIN", async () => {
    const mailbox = join(root, "forged");
    const mailer = new Mailer({ from: FROM, transport: new MailboxTransport(mailbox) });
    const app = await serve({ routes: resetRoutes(mailer), parts: [mailer], origin: ORIGIN, allowedHosts: ["*"] });
    try {
      const answer = await rawRequest(app.port, "GET /reset?email=ada%40example.com HTTP/1.1\r\nHost: evil.example\r\nX-Forwarded-Host: evil.example\r\nConnection: close\r\n\r\n");
      expect(answer).toMatch(/^HTTP\/1.1 200/);
      expect(answer).toContain("publicUrl says https://shop.example/x");
      const [mail] = await readMailbox(mailbox);
      expect(mail?.html).toContain('<a href="https://shop.example/reset/t0k3n">');
      expect(mail?.text).toBe("Choose a new password (https://shop.example/reset/t0k3n)");
      expect(JSON.stringify(mail)).not.toContain("evil.example");
    } finally {
      await app.close();
    }
  });

  it("dev: the mailbox page lists the message, shows it sandboxed with its text, links and headers; Delete empties it", async () => {
    const mailer = new Mailer({ from: FROM });
    const app = await devApp(mailer);
    try {
      // The dev origin is the address served: the link works from the developer's browser.
      expect(await sendReset(app, "ada@example.com")).toBe(`sent; publicUrl says ${app.url}/x`);
      const list = await (await app.get("/fw/mail")).text();
      expect(list).toContain("Every message this app sent in dev (1 message)");
      const key = /href="\/fw\/mail\/([0-9]{13}-[0-9a-f]{16})"/.exec(list)?.[1] as string;
      expect(key).toBeDefined();
      const page = await (await app.get(`/fw/mail/${key}`)).text();
      expect(page).toContain('sandbox="allow-popups allow-popups-to-escape-sandbox"');
      expect(page).toContain("srcdoc=\"&lt;!DOCTYPE html&gt;&lt;html lang=&quot;en&quot;&gt;&lt;head&gt;&lt;base target=&quot;_blank&quot;&gt;");
      expect(page).toContain(`<a href="${app.url}/reset/t0k3n" target="_blank" rel="noopener noreferrer">${app.url}/reset/t0k3n</a>`);
      expect(page).toMatch(/<th scope="row"[^>]*>Message-ID<\/th><td>&lt;[0-9a-f-]{36}@shop\.example&gt;<\/td>/);
      const raw = await app.get(`/fw/mail/${key}/raw`);
      expect(raw.headers.get("content-type")).toBe("text/plain; charset=utf-8");
      expect(await raw.text()).toContain("Subject: Reset your password");
      expect((await app.get("/fw/mail/0000000000000-0123456789abcdef")).status).toBe(404);
      expect((await app.get("/fw/mail/..%2F..%2Fetc")).status).toBeGreaterThanOrEqual(400);
      expect((await app.get("/fw/mail/not-a-key")).status).toBe(404);
      // Delete every message: a form with the page's CSRF token.
      const cookie = (await app.get("/fw/mail")).headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
      const token = /name="_csrf" value="([^"]+)"/.exec(await (await app.get("/fw/mail", { headers: { cookie } })).text())?.[1] as string;
      expect((await app.post("/fw/mail/clear", { _csrf: token }, { headers: { cookie } })).status).toBe(303);
      expect(await (await app.get("/fw/mail")).text()).toContain("No mail yet.");
      expect(app.err.join("\n")).toContain('fw/mail: "Reset your password" to ada@example.com: see /fw/mail');
    } finally {
      await app.close();
    }
  });

  it("production has no mailbox page, needs SMTP_URL and FW_ORIGIN, each named with where to set it", async () => {
    const boot = async (options: { origin?: string }): Promise<string> => {
      const mailer = new Mailer({ from: FROM });
      const failed = await serve({ routes: resetRoutes(mailer), parts: [mailer], allowedHosts: ["*"], ...options }).then(
        async (app) => {
          await app.close();
          return "booted";
        },
        (error: unknown) => String((error as Error).message),
      );
      return failed;
    };
    expect(await boot({})).toMatch(/^FW_ORIGIN is not set: fw\/mail builds the links in mail on the app's public address/);
    expect(await boot({ origin: ORIGIN })).toMatch(/^SMTP_URL is not set: fw\/mail sends the app's mail through this SMTP server in production\. /);
    process.env["SMTP_URL"] = "https://smtp.example.com";
    try {
      expect(await boot({ origin: ORIGIN })).toBe("SMTP_URL (https://smtp.example.com) is not an SMTP URL: write smtps://user:password@smtp.example.com (TLS, port 465) or smtp://user:password@smtp.example.com:587 (STARTTLS); percent-encode a password's special characters.");
      process.env["SMTP_URL"] = "smtp://127.0.0.1:2525";
      const mailer = new Mailer({ from: FROM });
      const app = await serve({ routes: resetRoutes(mailer), parts: [mailer], origin: ORIGIN });
      try {
        expect(mailer.transport.description).toBe("SMTP at smtp://127.0.0.1:2525");
        expect(await rawRequest(app.port, "GET /fw/mail HTTP/1.1\r\nHost: shop.example\r\nConnection: close\r\n\r\n")).toMatch(/^HTTP\/1.1 404/);
      } finally {
        await app.close();
      }
    } finally {
      delete process.env["SMTP_URL"];
    }
  });

  it("a Mailer that never booted says how to give it to the app; a bad `from` stops the boot", async () => {
    await expect(new Mailer({ from: FROM, origin: ORIGIN }).send({ to: "a@example.com", subject: "s", body: <p /> })).rejects.toThrow("give it to the app (HttpApp's `parts: [mailer]`), or give it a `transport`");
    const bad = new Mailer({ from: "no-reply" });
    await expect(serve({ routes: RouteTable.empty, parts: [bad], origin: ORIGIN })).rejects.toThrow(/the Mailer's from "no-reply" is not an email address/);
  });

  it("the outbox seam: send hands the composed message (plain data) on, and deliver sends it later", async () => {
    const queued: ComposedMail[] = [];
    const mailbox = join(root, "outbox");
    const mailer = new Mailer({ from: FROM, origin: ORIGIN, transport: new MailboxTransport(mailbox), outbox: async (mail) => void queued.push(JSON.parse(JSON.stringify(mail)) as ComposedMail) });
    const sent = await mailer.send({ to: "a@example.com", subject: "Later", body: <p><a href="/x">x</a></p> });
    expect(await readMailbox(mailbox)).toEqual([]);
    expect(queued).toEqual([sent]);
    await mailer.deliver(queued[0] as ComposedMail);
    expect((await readMailbox(mailbox)).map((mail) => [mail.id, mail.html])).toEqual([[sent.id, sent.html]]);
  });

  it("sendThrough names the outbox after the mailer is made (a job's `enqueue` or a function), once", async () => {
    // The mailer's module cannot import the job that delivers its mail (the job imports the
    // mailer): the app's main wires them, `mailer.sendThrough(jobs.DeliverMail)`.
    const mailbox = join(root, "send-through");
    const mailer = new Mailer({ from: FROM, origin: ORIGIN, transport: new MailboxTransport(mailbox) });
    const now = await mailer.send({ to: "a@example.com", subject: "Before", body: <p>at once</p> });
    expect((await readMailbox(mailbox)).map((mail) => mail.id)).toEqual([now.id]); // no outbox yet: delivered at once
    const enqueued: ComposedMail[] = [];
    const job = { name: "DeliverMail", enqueue: async (payload: ComposedMail, _options?: { delayMs?: number }) => void enqueued.push(payload) };
    mailer.sendThrough(job);
    const later = await mailer.send({ to: "a@example.com", subject: "After", body: <p>later</p> });
    expect(enqueued).toEqual([later]);
    expect(await readMailbox(mailbox)).toHaveLength(1); // not delivered: queued
    expect(() => mailer.sendThrough(async () => undefined)).toThrow(/already has an outbox.*in one place/);
    const given = new Mailer({ from: FROM, origin: ORIGIN, transport: new MailboxTransport(mailbox), outbox: async () => undefined });
    expect(() => given.sendThrough(job)).toThrow(MailError);
    const functions: string[] = [];
    const plain = new Mailer({ from: FROM, origin: ORIGIN, transport: new MailboxTransport(mailbox) });
    plain.sendThrough(async (mail) => void functions.push(mail.subject));
    await plain.send({ to: "a@example.com", subject: "Through a function", body: <p /> });
    expect(functions).toEqual(["Through a function"]);
  });

  /** The app in dev, in process, in its own folder (the dev mailbox is .fw/mail under the working directory). */
  async function devApp(mailer: Mailer): Promise<Served> {
    const cwd = process.cwd();
    const folder = mkdtempSync(join(root, "dev-"));
    process.chdir(folder);
    try {
      return await serve({ routes: resetRoutes(mailer), parts: [mailer] }, { dev: true, devHook: QUIET_HOOK });
    } finally {
      process.chdir(cwd);
    }
  }

  async function sendReset(app: Served, email: string): Promise<string> {
    return (await app.get(`/reset?email=${encodeURIComponent(email)}`)).text();
  }
});

describe("fw/mail is optional", () => {
  const RUNTIME = resolve("runtime");
  const MAIL = join(RUNTIME, "mail");
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? files(join(dir, entry.name)) : /\.tsx?$/.test(entry.name) ? [join(dir, entry.name)] : []));

  it("nothing outside runtime/mail and runtime/testing imports it, and it loads nodemailer only when it composes MIME or sends", () => {
    const offending = files(RUNTIME)
      .filter((file) => !file.startsWith(MAIL + sep) && !file.startsWith(join(RUNTIME, "testing") + sep))
      .flatMap((file) => [...readFileSync(file, "utf8").matchAll(/from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g)].map((m) => [file, m[1] ?? m[2] ?? ""] as const))
      .filter(([file, spec]) => spec === "fw/mail" || (spec.startsWith(".") && resolve(file, "..", spec).startsWith(MAIL + sep)))
      .map(([file, spec]) => `${relative(RUNTIME, file)} imports ${spec}`);
    expect(offending).toEqual([]);
    const eager = files(MAIL).filter((file) => /from\s*["']nodemailer/.test(readFileSync(file, "utf8").replace(/import type[^;]*;/g, "")));
    expect(eager).toEqual([]);
  });
});
