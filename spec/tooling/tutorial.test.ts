// docs/tutorial.md, followed as a reader follows it (the convention is at the top of the tutorial):
// each ```<lang> file=<path>``` block is written whole into the app, each `sh` line is run (the
// commands below are the only ones known: any other fails the test, so a new command in the
// tutorial needs its stand-in here), and each `http` block is asked of the app last started and
// its answer checked. While `npm run dev` is on, files written since the app started are built
// and the app restarted before the next request, as `fw dev` does on save.
//
// Stand-ins for the network, as spec/dev/new-app.test.ts has them: the app is made inside this
// checkout (spec/fixtures/_tmp-tutorial-*), with `node_modules/fw` a link to the checkout and
// every other package (typia, typescript, @electric-sql/pglite…) found in the checkout's
// node_modules above it; so `npm pack` and `npm install` do nothing but check that what they
// would install is there. Needs `npm run build` first (the app runs fw's dist/, as an installed fw).
// A step done in the browser (signing up, reading the mailbox, following a link) has no block to
// follow: WALKS below does it by hand, as the page tells the reader, after that section's last block.
// SLOW: the embedded database is made twice (`db new`'s first open, and the test's fresh one),
// and the app is built fourteen times: two minutes on an idle 2-core machine, five or more when it
// is shared with other work, hence the 10-minute bound (the seconds each block took are printed at the end).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../runtime/db/index.js";
import { installedPgliteVersion, templateVersions } from "../../runtime/db/pglite-template.js";
import { TestClient, testFile } from "../../runtime/testing/client.js";
import { png } from "../files/support.js";
import { bootNode, runNode } from "../support/process.js";
import { FIXTURES, run as tspc } from "../support/tspc.js";
import { connect, type Client } from "../support/ws-client.js";

const FW = resolve("bin/fw.js");
const TUTORIAL = resolve("docs/tutorial.md");

/** One block of the tutorial the test acts on, in page order, with the `## ` heading it is under. */
type Step = { readonly section: string } & (
  | { readonly kind: "file"; readonly path: string; readonly text: string; readonly line: number }
  | { readonly kind: "sh"; readonly commands: readonly string[]; readonly line: number }
  | { readonly kind: "http"; readonly method: string; readonly path: string; readonly status: number; readonly headers: ReadonlyMap<string, string>; readonly contains: readonly string[]; readonly line: number }
);

/** The blocks of a tutorial page the test follows: `file=` blocks, `sh` and `http`; others are prose. */
function stepsOf(markdown: string): Step[] {
  const steps: Step[] = [];
  for (const match of markdown.matchAll(/^```([^\n]*)\n([\s\S]*?)^```[ \t]*$/gm)) {
    const info = (match[1] ?? "").trim().split(/\s+/);
    const body = match[2] ?? "";
    const before = markdown.slice(0, match.index);
    const line = before.split("\n").length;
    const section = [...before.matchAll(/^## (.*)$/gm)].at(-1)?.[1] ?? "";
    const file = info.find((word) => word.startsWith("file="));
    if (file !== undefined) {
      steps.push({ kind: "file", path: file.slice("file=".length), text: body, line, section });
    } else if (info[0] === "sh") {
      const commands = body
        .split("\n")
        .map((text) => text.replace(/\s+#.*$/, "").replace(/^#.*$/, "").trim())
        .filter((text) => text !== "");
      steps.push({ kind: "sh", commands, line, section });
    } else if (info[0] === "http") {
      steps.push({ ...httpCheck(body, line), kind: "http", line, section });
    }
  }
  return steps;
}

/** `GET /path`, a blank line, `303 See Other`, header lines, then `…text…` lines the body contains. */
function httpCheck(body: string, line: number): Omit<Extract<Step, { kind: "http" }>, "kind" | "line" | "section"> {
  const lines = body.split("\n").filter((text) => text.trim() !== "");
  const request = /^([A-Z]+) (\/\S*)$/.exec(lines[0] ?? "");
  const answer = /^(\d{3})\b/.exec(lines[1] ?? "");
  if (request === null || answer === null) throw new Error(`docs/tutorial.md:${line}: an http block starts with "GET /path", then the status line ("200 OK")`);
  const headers = new Map<string, string>();
  const contains: string[] = [];
  for (const text of lines.slice(2)) {
    if (text.startsWith("…")) contains.push(text.replace(/^…/, "").replace(/…$/, ""));
    else {
      const header = /^([A-Za-z-]+): (.*)$/.exec(text);
      if (header === null) throw new Error(`docs/tutorial.md:${line}: "${text}" is neither a header line ("name: value") nor a body piece ("…text…")`);
      headers.set((header[1] as string).toLowerCase(), header[2] as string);
    }
  }
  return { method: request[1] as string, path: request[2] as string, status: Number(answer[1]), headers, contains };
}

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** What the reader has going: the app's folder, the app last started, and whether `fw dev` is on. */
class Reader {
  app = "";
  env: Record<string, string | undefined> = { FW_SECRET: undefined, NODE_ENV: undefined, DATABASE_URL: undefined, FW_ORIGIN: undefined, FW_ALLOWED_HOSTS: undefined, SMTP_URL: undefined, FW_MAILBOX: undefined, FW_STORAGE: undefined };
  served: ReturnType<typeof bootNode> | undefined;
  devLoop = false;
  /** Files written since the app last started (`fw dev` would rebuild and restart). */
  saved = false;
  /** The name of the migration `db new` wrote last (`find_tasks`), which `db migrate` and `db rollback` must name. */
  written = "";
  /** Files written since the last build (a build of unchanged files is skipped: tsc would emit the same). */
  unbuilt = true;
  /** How long each block took, printed at the end: where the minute goes. */
  readonly timings: string[] = [];
  readonly log: string[] = [];

  constructor(readonly home: string) {}

  async stop(): Promise<void> {
    if (this.served === undefined) return;
    this.served.child.kill("SIGTERM");
    await this.served.exited;
    this.served = undefined;
  }

  async build(where: string): Promise<void> {
    if (!this.unbuilt) return;
    const built = await tspc(this.app);
    this.unbuilt = false;
    expect(built.output, `${where}: the app's build`).toBe("");
    expect(built.code).toBe(0);
  }

  async boot(main: string, args: readonly string[], where: string): Promise<void> {
    await this.stop();
    // bootNode spreads these over process.env: an undefined value unsets the variable (spawn
    // skips it), so the app sees no FW_SECRET, NODE_ENV or DATABASE_URL the reader did not set.
    const served = bootNode(join(this.app, main), args, this.env as Record<string, string>, this.app);
    this.served = served;
    try {
      await served.url;
    } catch (error) {
      throw new Error(`${where}: the app did not start: ${String(error)}`);
    }
    this.saved = false;
  }

  /** `node <script> args` in the app, which must exit 0. */
  async node(script: string, args: readonly string[], where: string, env: Record<string, string> = {}): Promise<string> {
    const ran = await runNode(script, args, { ...this.env, ...env }, this.app);
    expect(ran.code, `${where}: ${script} ${args.join(" ")}\n${ran.out}${ran.err}`).toBe(0);
    return ran.out + ran.err;
  }

  /** Every command the tutorial runs, and what the test does for it. */
  async sh(command: string, where: string): Promise<void> {
    this.log.push(command);
    let match: RegExpExecArray | null;
    if (command === "npm install && npm pack") {
      // The checkout is built (npm test builds it first; pack would run the same build).
      expect(existsSync(resolve("dist/runtime/index.js")), "run `npm run build` first").toBe(true);
    } else if ((match = /^node bin\/fw\.js new (\.\.\/[\w-]+) --fw \.\/fw-[\d.]+\.tgz$/.exec(command)) !== null) {
      // `fw new` from this checkout, without --fw: the app names the checkout; fw is then linked.
      this.app = resolve(this.home, "checkout", match[1] as string);
      const made = await runNode(FW, ["new", this.app], this.env, join(this.home, "checkout"));
      expect(made.code, `${where}: fw new\n${made.out}${made.err}`).toBe(0);
      expect(made.out).toContain("src/models/Item.ts");
      mkdirSync(join(this.app, "node_modules"));
      symlinkSync(resolve("."), join(this.app, "node_modules", "fw"), "dir");
    } else if ((match = /^cd (\.\.\/[\w-]+)$/.exec(command)) !== null) {
      expect(resolve(this.home, "checkout", match[1] as string), `${where}: cd into the app`).toBe(this.app);
    } else if (command === "npm install") {
      // What the app's package.json names is found from the app (the checkout's node_modules).
      this.resolvable(["fw", "typia", "typescript", "ts-patch", "rolldown"], where);
    } else if ((match = /^npm install ([@\w/.-]+)$/.exec(command)) !== null) {
      this.resolvable([match[1] as string], where);
    } else if ((match = /^npm install --save-exact (@?[\w/.-]+)@(\d[\w.-]*)$/.exec(command)) !== null) {
      // A pinned version: the one installed (the checkout's), and for PGlite the one fw's template of a new database was made for.
      const [name, version] = [match[1] as string, match[2] as string];
      this.resolvable([name], where);
      if (name === "@electric-sql/pglite") {
        expect(version, `${where}: the tutorial pins the PGlite fw's template was made for`).toBe(templateVersions()[0]);
        expect(installedPgliteVersion(), `${where}: the checkout's PGlite`).toBe(version);
      }
    } else if (command === "node dist/tools/counts.js") {
      // Beside \`fw dev\` (a second terminal), on the build it made: the script calls the app it serves.
      // FW_ORIGIN stands in for http://127.0.0.1:3000, the port the reader's fw dev serves on.
      const url = await this.serving(where);
      const out = await this.node("dist/tools/counts.js", [], where, { FW_ORIGIN: url.origin });
      expect(out, `${where}: what the script printed`).toMatch(/^\d+ open, \d+ done\n$/);
    } else if ((match = /^rm ((?:src\/[\w/.-]+ ?)+)$/.exec(command)) !== null) {
      for (const file of (match[1] as string).split(" ")) {
        expect(existsSync(join(this.app, file)), `${where}: rm ${file}: there is no such file`).toBe(true);
        rmSync(join(this.app, file));
      }
      this.unbuilt = true;
    } else if (command === "npm run dev") {
      // `fw dev` builds, then runs `node dist/main.js dev`, restarting it after each save.
      await this.build(where);
      await this.boot("dist/main.js", ["dev"], where);
      this.devLoop = true;
    } else if (command === "npm run build") {
      await this.build(where);
    } else if ((match = /^node dist\/main\.js db new (\w+)$/.exec(command)) !== null) {
      const out = await this.node("dist/main.js", ["db", "new", match[1] as string], where);
      expect(out, `${where}: db new`).toContain(`_${match[1]}.sql`);
      this.written = match[1] as string;
    } else if (command === "node dist/main.js db migrate") {
      const out = await this.node("dist/main.js", ["db", "migrate"], where);
      expect(out, `${where}: db migrate applies the migration db new wrote`).toMatch(new RegExp(`^fw: applied \\d{4}_${this.written}(\\.sql)?$`, "m"));
    } else if (command === "node dist/main.js db rollback") {
      const out = await this.node("dist/main.js", ["db", "rollback"], where);
      expect(out, `${where}: db rollback undoes the migration db new wrote`).toMatch(new RegExp(`^fw: rolled back \\d{4}_${this.written}(\\.sql)?$`, "m"));
    } else if (command === "npm test") {
      // The app's `test` script: tspc -p . && node --test dist/tests/*.test.js
      await this.build(where);
      const tests = readdirSync(join(this.app, "dist/tests")).filter((file) => file.endsWith(".test.js"));
      const ran = await runNode("--test", tests.map((file) => `dist/tests/${file}`), this.env, this.app);
      expect(ran.out, `${where}: the app's tests\n${ran.out}${ran.err}`).toMatch(/^# fail 0$/m);
      expect(ran.out).not.toMatch(/^# pass 0$/m);
      expect(ran.code).toBe(0);
    } else if (command === "npm run bundle") {
      await this.node(FW, ["bundle"], where);
    } else if (command === `export FW_SECRET="$(node -e "console.log(require('crypto').randomBytes(32).toString('base64url'))")"`) {
      this.env = { ...this.env, FW_SECRET: (await runNode("-e", ["console.log(require('crypto').randomBytes(32).toString('base64url'))"])).out.trim() };
    } else if ((match = /^export FW_ORIGIN=(\S+)$/.exec(command)) !== null) {
      this.env = { ...this.env, FW_ORIGIN: match[1] as string };
    } else if ((match = /^export SMTP_URL=(smtps?:\/\/\S+)$/.exec(command)) !== null) {
      // Read at boot (a production boot without it refuses to start); the pages asked for after it send no mail.
      this.env = { ...this.env, SMTP_URL: match[1] as string };
    } else if (command === 'export FW_STORAGE="file://$HOME/tasks-files"') {
      // The reader's home folder: the test's own (the shell would expand $HOME there).
      this.env = { ...this.env, FW_STORAGE: `file://${join(this.home, "tasks-files")}` };
    } else if (command === "node dist/bundle/main.js db migrate") {
      await this.node("dist/bundle/main.js", ["db", "migrate"], where);
    } else if (command === "NODE_ENV=production node dist/bundle/main.js") {
      this.env = { ...this.env, NODE_ENV: "production" };
      this.devLoop = false;
      await this.boot("dist/bundle/main.js", [], where);
    } else {
      throw new Error(`${where}: the tutorial runs \`${command}\`, which spec/tooling/tutorial.test.ts does not know: add what it does to Reader.sh`);
    }
  }

  /** Each package is in a node_modules the app resolves from (its own, or one above it), as after `npm install`. */
  resolvable(names: readonly string[], where: string): void {
    for (const name of names) {
      let found = false;
      for (let dir = this.app; !found; dir = dirname(dir)) {
        found = existsSync(join(dir, "node_modules", name, "package.json"));
        if (dirname(dir) === dir) break;
      }
      expect(found, `${where}: ${name} is not installed`).toBe(true);
    }
  }

  /** The app the reader is running, rebuilt and restarted first when `fw dev` would have: its address. */
  async serving(where: string): Promise<URL> {
    if (this.devLoop && (this.saved || this.served === undefined)) {
      await this.build(where); // fw dev: rebuilt on save, restarted with the new build
      await this.boot("dist/main.js", ["dev"], where);
    }
    expect(this.served, `${where}: no app is running (run \`npm run dev\` before an http block)`).toBeDefined();
    return new URL(await (this.served as NonNullable<Reader["served"]>).url);
  }

  async http(step: Extract<Step, { kind: "http" }>, where: string): Promise<void> {
    const url = await this.serving(where);
    // With FW_ORIGIN set the app answers its host alone: ask by that name, as its visitors do.
    if (this.env["FW_ORIGIN"] !== undefined) url.hostname = new URL(this.env["FW_ORIGIN"]).hostname;
    const answer = await fetch(`${url.origin}${step.path}`, { method: step.method, redirect: "manual" });
    const text = await answer.text();
    expect(answer.status, `${where}: ${step.method} ${step.path}\n${text.slice(0, 2000)}`).toBe(step.status);
    for (const [name, value] of step.headers) expect(answer.headers.get(name), `${where}: ${name}`).toBe(value);
    for (const piece of step.contains) expect(text, `${where}: ${step.method} ${step.path}`).toContain(piece);
  }
}

/** Commands the tutorial runs in a second terminal while `fw dev` goes on serving. */
const BESIDE_DEV: ReadonlySet<string> = new Set(["node dist/tools/counts.js"]);

/** Resolves once `condition` holds, asking every 50 ms; after `boundMs`, fails saying `what` it waited for. */
async function waitFor(condition: () => boolean | Promise<boolean>, what: () => string, boundMs = 15_000): Promise<void> {
  const until = Date.now() + boundMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error(what());
    await new Promise((done) => setTimeout(done, 50));
  }
}

/**
 * The newest message to `to` titled `subject` in the dev mailbox, read as the page tells the
 * reader to read it: `/fw/mail`'s list (fw/auth mails after it answers, through a job: it is
 * waited for), then the message's page; its link with a token, whole.
 */
async function mailedLink(browser: TestClient, to: string, subject: string, where: string): Promise<string> {
  const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const row = new RegExp(`<td>${escape(to)}</td>\\s*<td><a href="(/fw/mail/[^"]+)">${escape(subject)}</a>`);
  let list = "";
  await waitFor(
    async () => row.test((list = (await browser.get("/fw/mail")).text)),
    () => `${where}: no mail "${subject}" to ${to} in /fw/mail, which shows:\n${list.slice(0, 3000)}`,
  );
  const page = (await browser.get(row.exec(list)?.[1] as string)).text;
  const links = [.../<ul class="fw-mail-links">([\s\S]*?)<\/ul>/.exec(page)?.[1]?.matchAll(/href="([^"]+)"/g) ?? []].map((m) => (m[1] as string).replaceAll("&amp;", "&"));
  const link = links.find((href) => /[?&]token=/.test(href));
  expect(link, `${where}: the links of "${subject}" on its /fw/mail page: ${links.join(", ")}`).toBeDefined();
  return link as string;
}

/** A link's path and query, as a browser asks for it. */
function pathOf(link: string): string {
  const url = new URL(link);
  return url.pathname + url.search;
}

/** A browser signed up as the page tells the reader (step 8 on): the form, the mailed link, "Confirm and sign in". */
async function signedUp(origin: string, email: string, password: string, where: string): Promise<TestClient> {
  const browser = new TestClient(origin);
  const signedUp = await browser.submit("/signup", { email, password });
  expect(signedUp.status, `${where}: sign-up: ${signedUp.summary()}`).toBe(303);
  const opened = await browser.get(pathOf(await mailedLink(browser, email, "Confirm your email", where)));
  const confirmed = await browser.submit(opened.location ?? "/confirm", {}, { action: "/confirm" });
  expect(confirmed.location, `${where}: Confirm and sign in: ${confirmed.summary()}`).toBe("/");
  return browser;
}

/** A token with the scope tasks:write, made on /account as step 10 tells the reader ("Create token" shows it once). */
async function apiToken(browser: TestClient, password: string, where: string): Promise<string> {
  const form = (await browser.get("/account")).forms().find((f) => f.action === "/account/tokens");
  expect(form, `${where}: /account has the API tokens form`).toBeDefined();
  const fields = new URLSearchParams({ ...form?.fields, name: "add-task", current: password });
  fields.append("scope", "tasks:write");
  const made = await fetch(`${browser.url}/account/tokens`, { method: "POST", headers: { cookie: browser.cookies.header() ?? "", "content-type": "application/x-www-form-urlencoded" }, body: fields });
  const shown = await made.text();
  const token = /<code class="fw-token">(fwt_[^<]+)<\/code>/.exec(shown)?.[1];
  expect(token, `${where}: Create token shows the token: ${made.status} ${shown.slice(0, 1500)}`).toBeDefined();
  return token as string;
}

/** The next message on a live socket that `fits`, skipping the others; fails after 15 s naming what it waited for. */
async function liveMessage(socket: Client, fits: (text: string) => boolean, what: string): Promise<string> {
  const seen: string[] = [];
  const bound = new Promise<never>((_, fail) => setTimeout(() => fail(new Error(`${what}: no such message on the live socket, which sent:\n${seen.join("\n").slice(-3000)}`)), 15_000).unref());
  for (;;) {
    const text = await Promise.race([socket.next(), bound]);
    seen.push(text);
    if (fits(text)) return text;
  }
}

/** A PDF small enough to write out: what file-type reads as application/pdf. */
const PDF = Buffer.from("%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n", "latin1");

/** The id in a task's address (`/tasks/7`), as the page's links and forms use it. */
function taskId(location: string | undefined, where: string): string {
  const id = /^\/tasks\/(\d+)$/.exec(location ?? "")?.[1];
  expect(id, `${where}: ${location} is a task's page`).toBeDefined();
  return id as string;
}

/**
 * What the reader does in the browser in a section, after its blocks: a file on a task in step 7,
 * "Try it" in step 8, the two windows of step 9, an API token in step 10, the night of step 11,
 * an admin made with `db grant` in step 12, tags and search in step 14, end to end on the app `fw dev` runs. Each walk names
 * its section by the start of its heading.
 */
const WALKS: ReadonlyMap<string, (reader: Reader, where: string) => Promise<void>> = new Map([
  [
    "7. A file on each task",
    async (reader: Reader, where: string) => {
      const url = await reader.serving(where);
      // No mail yet (step 8 adds it): sign up, then sign in.
      const ann = new TestClient(url.origin);
      expect((await ann.signUp("files@example.com", "correct horse battery")).status, `${where}: sign-up`).toBe(303);
      await ann.signIn("files@example.com", "correct horse battery");
      const form = (await ann.get("/tasks/new")).text;
      expect(form, `${where}: the New task form`).toContain('enctype="multipart/form-data"');
      expect(form).toContain('<input type="file" id="task-attachment" name="attachment" accept="application/pdf,text/plain" data-fw-max-bytes="5000000">');
      // A photo renamed .pdf is refused beside the field; an empty title keeps the file for the form shown again.
      const photo = await ann.submit("/tasks/new", { title: "A photo", attachment: testFile("photo.pdf", png(8, 8), "application/pdf") });
      expect(photo.status, `${where}: a PNG named .pdf`).toBe(422);
      expect(photo.refusal().fields["attachment"]).toMatch(/^Attachment must be a file of type /);
      const untitled = await ann.submit("/tasks/new", { title: "", attachment: testFile("quote.pdf", PDF, "application/pdf") });
      expect(untitled.status, `${where}: an empty title`).toBe(422);
      expect(untitled.text).toContain(`quote.pdf (${PDF.length} bytes) is kept: choose another file to replace it.`);
      // Saved: the task's page links the file with its name and size; it downloads as it was uploaded.
      const made = await ann.submit("/tasks/new", { title: "Call the plumber", attachment: testFile("quote.pdf", PDF, "application/pdf") });
      expect(made.status, `${where}: a task with a PDF: ${made.summary()}`).toBe(303);
      const at = made.location as string;
      const link = new RegExp(`<a href="(${at}/attachment/([0-9a-f]{32}))" download>quote\\.pdf</a> \\(${PDF.length} bytes\\)`).exec((await ann.get(at)).text);
      expect(link, `${where}: the task's page links the file`).not.toBeNull();
      const [, href, key] = link as unknown as [string, string, string];
      const file = await ann.get(href);
      expect([file.status, file.headers.get("content-type"), file.headers.get("content-disposition")]).toEqual([200, "application/pdf", `attachment; filename="quote.pdf"; filename*=UTF-8''quote.pdf`]);
      // In dev the file is kept in the app's .fw/files.
      const stored = join(reader.app, ".fw", "files", key.slice(0, 2), key);
      expect(existsSync(stored), `${where}: ${stored}`).toBe(true);
      // Another user gets a 404 for it.
      const bob = new TestClient(url.origin);
      await bob.signUp("files-bob@example.com", "another long secret");
      await bob.signIn("files-bob@example.com", "another long secret");
      expect((await bob.get(href)).status, `${where}: another user`).toBe(404);
      // Edit shows it, with a box to remove it; removed, it is deleted by a job once saved.
      const edit = (await ann.get(`${at}/edit`)).text;
      expect(edit).toContain(`<a href="${href}">quote.pdf</a>`);
      expect(edit).toContain("Remove the file");
      expect((await ann.submit(`${at}/edit`, { "_remove.attachment": "true" }, { action: at })).status, `${where}: Remove the file`).toBe(303);
      expect((await ann.get(at)).text).not.toContain("quote.pdf");
      await waitFor(
        () => !existsSync(stored),
        () => `${where}: the removed file is still in .fw/files`,
      );
    },
  ],
  [
    "9. A live page",
    async (reader: Reader, where: string) => {
      const url = await reader.serving(where);
      const browser = await signedUp(url.origin, "live@example.com", "correct horse battery", where);
      const first = await browser.submit("/tasks/new", { title: "Water the plants" });
      const firstId = taskId(first.location, where);
      // The second window: the page as its script opens it, over the socket, with the session's cookie.
      const page = await browser.get("/tasks/open");
      expect(page.text, `${where}: the live page's root`).toContain('data-fw-live="/fw/live/tasks.Open"');
      const csrf = /data-fw-csrf="([^"]+)"/.exec(page.text)?.[1];
      expect(csrf, `${where}: the live page's CSRF token`).toBeDefined();
      const socket = await connect(url.origin, `/fw/live/tasks.Open?path=${encodeURIComponent("/tasks/open")}`, { headers: { cookie: browser.cookies.header() ?? "" } });
      try {
        await liveMessage(socket, (text) => text.includes("Water the plants"), `${where}: the page's first render`);
        // A task added in the first window appears in the second.
        await browser.submit("/tasks/new", { title: "Buy paint" });
        await liveMessage(socket, (text) => text.includes("Buy paint"), `${where}: the new task, without a reload`);
        // Done: the task leaves the page, and is stored as done.
        socket.socket.send(JSON.stringify({ t: "e", n: 1, e: "finish", c: csrf, v: [["id", firstId]] }));
        const answered = JSON.parse(await liveMessage(socket, (text) => (JSON.parse(text) as { n?: unknown }).n === 1, `${where}: the answer to Done`)) as { t: string; m?: string };
        expect(answered.t, `${where}: the answer to Done: ${answered.m}`).toBe("r"); // a render, not an error ("err")
        const open = (await browser.get("/tasks/open")).text;
        expect(open).not.toContain("Water the plants");
        expect(open).toContain("Buy paint");
        expect((await browser.get(`/tasks/${firstId}`)).status).toBe(200);
      } finally {
        socket.socket.close();
      }
    },
  ],
  [
    "10. A JSON API",
    async (reader: Reader, where: string) => {
      // "Try it" under "An API token for a script that adds tasks": a token made on /account, the script with it, then revoked.
      const url = await reader.serving(where);
      const password = "correct horse battery";
      const browser = await signedUp(url.origin, "script@example.com", password, where);
      const token = await apiToken(browser, password, where);
      const env = { TASKS_TOKEN: token, FW_ORIGIN: url.origin };
      const out = await reader.node("dist/tools/add-task.js", ["Buy milk"], where, env);
      expect(out, `${where}: the script`).toMatch(/^added task \d+: Buy milk$/m);
      expect((await browser.get("/tasks")).text, `${where}: the task is the token owner's`).toContain("Buy milk");
      expect((await browser.get("/account")).text, `${where}: its last use`).not.toMatch(/<td>add-task<\/td>.*<td>never<\/td>/s);
      const revoked = await browser.submit("/account", { token: token.slice(4, 26) }, { action: "/account/tokens/revoke" });
      expect(revoked.location, `${where}: Revoke`).toBe("/account");
      const refused = await runNode("dist/tools/add-task.js", ["Again"], { ...reader.env, ...env }, reader.app);
      expect(refused.code, `${where}: the script with a revoked token`).not.toBe(0);
      expect(refused.out + refused.err, `${where}: the script with a revoked token`).toContain("403");
    },
  ],
  [
    "11. A job that runs every night",
    async (reader: Reader, where: string) => {
      const email = "nightly@example.com";
      const password = "correct horse battery";
      const browser = await signedUp((await reader.serving(where)).origin, email, password, where);
      const done = taskId((await browser.submit("/tasks/new", { title: "Old news", done: "true" })).location, where);
      const open = taskId((await browser.submit("/tasks/new", { title: "Still to do" })).location, where);
      // The night, without waiting for it: with the app stopped, its schedule (written at boot)
      // is made due; the next boot runs the job once, as after a night no process served.
      await reader.stop();
      const db = await openDatabase({ cwd: reader.app, env: {} });
      try {
        const moved = await db.query("UPDATE fw_job_schedules SET next_at = now() - interval '1 minute' WHERE name = 'ClearDone'");
        expect(moved.rowCount, `${where}: ClearDone's schedule`).toBe(1);
      } finally {
        await db.close();
      }
      const url = await reader.serving(where);
      const output = (): string => (reader.served?.output().err ?? "") + (reader.served?.output().out ?? "");
      await waitFor(
        () => /^fw\/jobs: ClearDone #\d+ ran in \d+ ms$/m.test(output()),
        () => `${where}: the terminal does not show ClearDone's run:\n${output().slice(-3000)}`,
      );
      const again = new TestClient(url.origin);
      await again.signIn(email, password);
      expect((await again.get(`/tasks/${done}`)).status, `${where}: the done task is gone`).toBe(404);
      expect((await again.get(`/tasks/${open}`)).status, `${where}: the open one is kept`).toBe(200);
    },
  ],
  [
    "12. An admin who sees every task",
    async (reader: Reader, where: string) => {
      const url = await reader.serving(where);
      const password = "correct horse battery";
      // You and a second user (another browser), a task each, a comment on theirs.
      const yourBrowser = await signedUp(url.origin, "you@example.com", password, where);
      const annBrowser = await signedUp(url.origin, "ann@example.com", password, where);
      const yours = taskId((await yourBrowser.submit("/tasks/new", { title: "Sort the mail" })).location, where);
      const theirs = taskId((await annBrowser.submit("/tasks/new", { title: "Junk task" })).location, where);
      expect((await annBrowser.submit(`/comments/new?task=${theirs}`, { text: "Nobody reads this" })).status, `${where}: a comment on their task`).toBe(303);
      expect((await yourBrowser.get("/tasks")).text, `${where}: before the grant, your list is yours`).not.toContain("Junk task");
      expect((await yourBrowser.get(`/tasks/${theirs}`)).status, `${where}: before the grant`).toBe(404);
      // The command, as the page shows it. The reader runs it beside `fw dev`, whose supervisor holds
      // the embedded database and serves it to the command (spec/dev/drift.test.ts runs db commands
      // so); this test's stand-in for `fw dev` is the app alone, which holds the database itself:
      // it is stopped for the command and started again (on another port: both sign in there).
      await reader.stop();
      const granted = await reader.node("dist/main.js", ["db", "grant", "admin", "you@example.com"], where);
      expect(granted, `${where}: db grant`).toContain("fw: you@example.com holds admin: admin");
      const again = await reader.serving(where);
      const you = new TestClient(again.origin);
      await you.signIn("you@example.com", password);
      const ann = new TestClient(again.origin);
      await ann.signIn("ann@example.com", password);
      // Your next request reads the role: every task, listed by the query.
      const list = (await you.get("/tasks")).text;
      expect(list, `${where}: the admin's /tasks`).toContain("Sort the mail");
      expect(list, `${where}: the admin's /tasks`).toContain("Junk task");
      expect((await you.get("/tasks/open")).text, `${where}: the admin's /tasks/open`).toContain("Junk task");
      const page = await you.get(`/tasks/${theirs}`);
      expect(page.status, `${where}: their task's page, for the admin`).toBe(200);
      expect(page.text, `${where}: its comments follow it`).toContain("Nobody reads this");
      expect(page.text, `${where}: Delete and no Edit`).toContain('class="fw-destroy">Delete</a>');
      expect(page.text).not.toContain('class="fw-edit"');
      expect((await you.get(`/tasks/${yours}`)).text, `${where}: the admin's own task`).toContain('class="fw-edit">Edit</a>');
      // Their Edit page is a 403, and so is an Update sent anyway (the admin's own edit form, posted to their task): unchanged.
      expect((await you.get(`/tasks/${theirs}/edit`)).status, `${where}: the admin's Edit of their task`).toBe(403);
      const form = (await you.get(`/tasks/${yours}/edit`)).forms().find((f) => f.action === `/tasks/${yours}`);
      expect(form, `${where}: the admin's own Edit form`).toBeDefined();
      const update = await you.post(`/tasks/${theirs}`, { ...form?.fields, title: "Taken over" });
      expect(update.status, `${where}: an Update of their task: ${update.summary()}`).toBe(403);
      // Done on /tasks/open, which lists their task to the admin: refused too.
      const open = await you.get("/tasks/open");
      const csrf = /data-fw-csrf="([^"]+)"/.exec(open.text)?.[1];
      const socket = await connect(again.origin, `/fw/live/tasks.Open?path=${encodeURIComponent("/tasks/open")}`, { headers: { cookie: you.cookies.header() ?? "" } });
      try {
        await liveMessage(socket, (text) => text.includes("Junk task"), `${where}: the admin's live /tasks/open`);
        socket.socket.send(JSON.stringify({ t: "e", n: 1, e: "finish", c: csrf, v: [["id", theirs]] }));
        const answered = JSON.parse(await liveMessage(socket, (text) => (JSON.parse(text) as { n?: unknown }).n === 1, `${where}: the answer to Done`)) as { t: string; m?: string };
        expect(answered.t, `${where}: Done on their task: ${JSON.stringify(answered)}`).toBe("err");
      } finally {
        socket.socket.close();
      }
      expect((await ann.get("/tasks/open")).text, `${where}: their task, still open`).toContain("Junk task");
      // The other user: as before.
      const annList = (await ann.get("/tasks")).text;
      expect(annList, `${where}: the other user's /tasks`).toContain("Junk task");
      expect(annList, `${where}: the other user's /tasks`).not.toContain("Sort the mail");
      expect((await ann.get(`/tasks/${yours}`)).status, `${where}: the admin's task, to the other user`).toBe(404);
      // The script of step 10 adds a task as its token's owner, through AllRows<Task>.
      const token = await apiToken(ann, password, where);
      const added = await reader.node("dist/tools/add-task.js", ["Buy milk"], where, { TASKS_TOKEN: token, FW_ORIGIN: again.origin });
      expect(added, `${where}: the script`).toMatch(/^added task \d+: Buy milk$/m);
      expect((await ann.get("/tasks")).text, `${where}: the script's task is the token's owner's`).toContain("Buy milk");
      // The admin deletes their task (the Delete page's button): gone, its comment with it.
      const deleted = await you.submit(`/tasks/${theirs}/delete`, {}, { action: `/tasks/${theirs}` });
      expect(deleted.status, `${where}: the admin's Delete of their task: ${deleted.summary()}`).toBe(303);
      expect((await ann.get(`/tasks/${theirs}`)).status, `${where}: their task, deleted`).toBe(404);
      expect((await ann.get("/comments")).text).not.toContain("Nobody reads this");
      // db roles says what a user holds (the app stopped for it, as for the grant).
      await reader.stop();
      expect(await reader.node("dist/main.js", ["db", "roles", "you@example.com"], where), `${where}: db roles`).toContain("you@example.com: admin");
      expect(await reader.node("dist/main.js", ["db", "roles", "ann@example.com"], where), `${where}: db roles`).toContain("ann@example.com: no roles");
    },
  ],
  [
    "14. Finding a task",
    async (reader: Reader, where: string) => {
      // The migration the page shows, abridged: what db new wrote (its statements, and the down's).
      const migration = readFileSync(join(reader.app, "db", "migrations", readdirSync(join(reader.app, "db", "migrations")).find((file) => file.endsWith("_find_tasks.sql")) ?? "none"), "utf8");
      const [up, down] = migration.split(/^-- fw:down\b.*$/m) as [string, string | undefined];
      for (const statement of ['CREATE TABLE "tags"', 'ALTER TABLE "tasks" ADD COLUMN "fw_search" tsvector', 'CREATE INDEX "tasks_fw_search_idx" ON "tasks" USING gin ("fw_search")', 'CREATE TABLE "tasks_tags"', 'CREATE INDEX "tasks_tags_tag_id_task_id_idx" ON "tasks_tags" ("tag_id", "task_id")']) {
        expect(up, `${where}: the migration's up\n${migration}`).toContain(statement);
      }
      for (const statement of ['DROP TABLE "tasks_tags"', 'ALTER TABLE "tasks" DROP COLUMN "fw_search"', 'DROP TABLE "tags"']) expect(down, `${where}: the migration's down\n${migration}`).toContain(statement);
      const url = await reader.serving(where);
      const password = "correct horse battery";
      const ann = await signedUp(url.origin, "finder@example.com", password, where);
      // Two tags on /tags/new; the same name twice is refused beside the field.
      const tagId = (location: string | undefined): string => {
        const id = /^\/tags\/(\d+)$/.exec(location ?? "")?.[1];
        expect(id, `${where}: ${location} is a tag's page`).toBeDefined();
        return id as string;
      };
      const garden = tagId((await ann.submit("/tags/new", { name: "garden" })).location);
      const errands = tagId((await ann.submit("/tags/new", { name: "errands" })).location);
      const twice = await ann.submit("/tags/new", { name: "garden" });
      expect(twice.status, `${where}: a second "garden": ${twice.summary()}`).toBe(422);
      expect(twice.refusal().fields["name"], `${where}: a second "garden"`).toBe("Another tag already has this owner and name: they must differ from every other tag's together. Change one of them.");
      // The task form picks them in a <select multiple>; a task with one, a task with the other.
      const form = (await ann.get("/tasks/new")).text;
      expect(form, `${where}: the task form's tags`).toMatch(/<select id="task-tags" name="tags" multiple[^>]*>[\s\S]*?<option value="\d+">errands<\/option>[\s\S]*?<\/select>/);
      const fence = taskId((await ann.submit("/tasks/new", { title: "Paint the fence", notes: "Two coats, the garden side first", tags: garden })).location, where);
      const nails = taskId((await ann.submit("/tasks/new", { title: "Buy nails", tags: errands })).location, where);
      expect((await ann.get(`/tasks/${fence}`)).text, `${where}: the task's page links its tag`).toContain(`<a href="/tags/${garden}">garden</a>`);
      expect((await ann.get(`/tags/${garden}`)).text, `${where}: the tag's page lists its tasks`).toContain(`<a href="/tasks/${fence}">`);
      // The filter: the tag's tasks alone, under its name; the search box: a word from the middle of the title, marked.
      const tagged = await ann.get(`/tasks?tags=${garden}`);
      expect(tagged.status, `${where}: /tasks?tags=${garden}: ${tagged.summary()}`).toBe(200);
      expect(tagged.text).toContain("Tasks of garden");
      expect(tagged.text).toContain("Paint the fence");
      expect(tagged.text).not.toContain("Buy nails");
      expect((await ann.get(`/tasks?tags=${errands}`)).text, `${where}: /tasks?tags=${errands}`).toContain(`<a href="/tasks/${nails}">`);
      const found = await ann.get("/tasks?q=fence");
      expect(found.text, `${where}: /tasks?q=fence`).toContain("Paint the <mark>fence</mark>");
      expect(found.text, `${where}: /tasks?q=fence`).not.toContain("Buy nails");
      expect((await ann.get("/tasks?q=painting")).text, `${where}: stemmed: "painting" finds "Paint"`).toContain("<mark>Paint</mark> the fence");
      // Search-box syntax: a phrase, a word left out; tsquery's own operators are no error.
      expect((await ann.get(`/tasks?q=${encodeURIComponent('"the fence" -nails')}`)).text).toContain("Paint the <mark>fence</mark>");
      expect((await ann.get(`/tasks?q=${encodeURIComponent("fence & !(")}`)).status, `${where}: tsquery syntax in the box`).toBe(200);
      // Bad filter values: a 400 naming the parameter, never a 500.
      for (const bad of ["garden", "1.5", "-3", `${garden}&tags=${errands}`]) {
        const refused = await ann.get(`/tasks?tags=${bad}`);
        expect(refused.status, `${where}: /tasks?tags=${bad}: ${refused.summary()}`).toBe(400);
        expect(refused.text, `${where}: /tasks?tags=${bad}`).toContain("tags");
      }
      // Another user (step 12's Ann: sign-ups from one address are rate-limited, and the walks
      // before made many): neither the task nor the tag's name, and the form refuses the tag.
      const bob = new TestClient(url.origin);
      await bob.signIn("ann@example.com", password);
      const theirs = (await bob.get(`/tasks?tags=${garden}`)).text;
      expect(theirs, `${where}: another user's /tasks?tags=${garden}`).not.toContain("Paint the fence");
      expect(theirs, `${where}: another user's /tasks?tags=${garden}`).not.toContain("garden");
      expect((await bob.get("/tasks?q=fence")).text, `${where}: another user's search`).not.toContain("Paint the");
      const taken = await bob.submit("/tasks/new", { title: "Mine now", tags: garden });
      expect(taken.status, `${where}: another user's tag on a task: ${taken.summary()}`).toBe(422);
      expect(taken.refusal().fields["tags"]).toBe("There is no such tag.");
    },
  ],
  [
    "8. Accounts by mail",
    async (reader: Reader, where: string) => {
      const url = await reader.serving(where);
      const email = "reader@example.com";
      const [first, second] = ["correct horse battery", "granite lantern 4471 ferry"];
      // Sign up: no account yet, a mail to confirm it (delivered by the DeliverMail job).
      const browser = new TestClient(url.origin);
      const signedUp = await browser.submit("/signup", { email, password: first });
      expect(signedUp.status, `${where}: sign-up: ${signedUp.summary()}`).toBe(303);
      const confirm = await mailedLink(browser, email, "Confirm your email", where);
      expect(confirm.startsWith(`${url.origin}/confirm?token=`), `${where}: ${confirm} names the address fw dev serves on (${url.origin})`).toBe(true);
      const opened = await browser.get(pathOf(confirm));
      expect(opened.location, `${where}: the confirmation link: ${opened.summary()}`).toBe("/confirm");
      const confirmed = await browser.submit("/confirm", {}, { action: "/confirm" }); // "Confirm and sign in"
      expect(confirmed.location, `${where}: Confirm and sign in: ${confirmed.summary()}`).toBe("/");
      const home = (await browser.follow(confirmed)).text;
      expect(home).toContain("Your email is confirmed, and you are signed in.");
      expect(home).toContain(`<a href="/account">${email}</a>`); // the layout names who is signed in, a link to the settings
      const settings = await browser.get("/account");
      expect(settings.status, `${where}: the settings page: ${settings.summary()}`).toBe(200);
      // Sign out, and in with the password.
      await browser.signOut("/");
      await browser.signIn(email, first);
      // Forgot your password? (signed out, in another browser): the link, a new password.
      const other = new TestClient(url.origin);
      expect((await other.get("/login")).text).toContain('<a href="/password/forgot">Forgot your password?</a>');
      const asked = await other.submit("/password/forgot", { email });
      expect(asked.location, `${where}: Forgot your password?: ${asked.summary()}`).toBe("/login");
      const reset = await mailedLink(other, email, "Choose a new password", where);
      expect((await other.get(pathOf(reset))).location, `${where}: the reset link`).toBe("/password/reset");
      const changed = await other.submit("/password/reset", { password: second });
      expect(changed.location, `${where}: the new password: ${changed.summary()}`).toBe("/");
      expect((await other.get("/tasks/open")).status, `${where}: signed in with the new password`).toBe(200);
      // The link works once; the first browser's session ended; the old password is refused, the new one signs in.
      await other.get(pathOf(reset));
      expect((await other.get("/password/reset")).text).toContain("This password reset link does not work");
      expect((await browser.get("/tasks/open")).location, `${where}: the other session is signed out`).toBe("/login?next=%2Ftasks%2Fopen");
      const third = new TestClient(url.origin);
      expect((await third.submit("/login", { email, password: first })).status, `${where}: the old password`).toBe(422);
      await third.signIn(email, second);
      // The terminal showed each mail going through its job, as the page says.
      const output = (): string => {
        const { out, err } = reader.served?.output() ?? { out: "", err: "" };
        return out + err;
      };
      const lines = [`fw/mail: "Confirm your email" to ${email}`, `fw/mail: "Choose a new password" to ${email}`];
      await waitFor(
        () => lines.every((line) => output().includes(line)) && (output().match(/^fw\/jobs: DeliverMail #\d+ ran in \d+ ms$/gm) ?? []).length >= 2,
        () => `${where}: the terminal does not show both mails delivered by DeliverMail jobs:\n${output().slice(-3000)}`,
      );
      // "Your own data": a task, Send me my data, the mailed link, Download my data (JSON: no file);
      // then the account deleted with its password though it has a task (without the step's
      // onDelete, a 409 naming the tasks), and its password signs nobody in.
      const leaving = "leaving@example.com";
      const mine = new TestClient(url.origin);
      expect((await mine.submit("/signup", { email: leaving, password: first })).status, `${where}: sign-up of ${leaving}`).toBe(303);
      await mine.get(pathOf(await mailedLink(mine, leaving, "Confirm your email", where)));
      expect((await mine.submit("/confirm", {}, { action: "/confirm" })).location, `${where}: ${leaving} confirmed`).toBe("/");
      const task = taskId((await mine.submit("/tasks/new", { title: "Paint the fence" })).location, where);
      const requested = await mine.submit("/account", {}, { action: "/account/data" });
      expect(requested.location, `${where}: Send me my data: ${requested.summary()}`).toBe("/account");
      const link = pathOf(await mailedLink(mine, leaving, "Your data is ready to download", where));
      const page = (await mine.get(link)).location as string;
      expect((await mine.get(page)).text, `${where}: the download page`).toContain("Download my data");
      const sent = await mine.submit(page, {}, { action: page });
      expect([sent.status, sent.headers.get("content-type")], `${where}: Download my data: ${sent.summary()}`).toEqual([200, "application/json"]);
      const data = JSON.parse(sent.text) as { account: { email: string }; models: Record<string, { id: number; title: string }[]> };
      expect(data.account.email).toBe(leaving);
      expect(data.models["Task"]?.map((t) => [String(t.id), t.title])).toEqual([[task, "Paint the fence"]]);
      const deleted = await mine.submit("/account", { current: first }, { action: "/account/delete" });
      expect(deleted.location, `${where}: Delete my account: ${deleted.summary()}`).toBe("/");
      expect((await new TestClient(url.origin).submit("/login", { email: leaving, password: first })).status, `${where}: the deleted account's password`).toBe(422);
    },
  ],
]);

describe("docs/tutorial.md", () => {
  const steps = stepsOf(readFileSync(TUTORIAL, "utf8"));

  it("has the sections whose browser steps this test does by hand", () => {
    for (const section of WALKS.keys()) expect(steps.some((step) => step.section.startsWith(section)), `docs/tutorial.md has no "## ${section}…" with blocks`).toBe(true);
  });

  it("has blocks for the test to follow: files, commands and pages", () => {
    expect(steps.filter((step) => step.kind === "file").length).toBeGreaterThan(5);
    expect(steps.filter((step) => step.kind === "http").length).toBeGreaterThan(5);
    expect(steps.flatMap((step) => (step.kind === "sh" ? step.commands : []))).toEqual(expect.arrayContaining(["npm run dev", "npm test", "npm run bundle"]));
  });

  it("works as written: every file builds, every command runs, every page answers as shown", async () => {
    const home = mkdtempSync(join(FIXTURES, "_tmp-tutorial-"));
    made.push(home);
    mkdirSync(join(home, "checkout"));
    const reader = new Reader(home);
    try {
      for (const [index, step] of steps.entries()) {
        const where = `docs/tutorial.md:${step.line}`;
        const started = Date.now();
        if (step.kind === "file") {
          expect(reader.app, `${where}: a file before the app exists`).not.toBe("");
          mkdirSync(dirname(join(reader.app, step.path)), { recursive: true });
          writeFileSync(join(reader.app, step.path), step.text);
          reader.saved = true;
          reader.unbuilt = true;
        } else if (step.kind === "sh") {
          // A command runs in the terminal, with fw dev stopped (Ctrl-C) where the page says so;
          // those the page runs in a second terminal leave it serving.
          if (!step.commands.every((command) => BESIDE_DEV.has(command))) await reader.stop();
          for (const command of step.commands) await reader.sh(command, where);
        } else {
          await reader.http(step, where);
        }
        if (step.kind !== "file") reader.timings.push(`${step.line}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
        // The section's last block: what the reader then does in the browser, if this test knows it.
        const walk = [...WALKS].find(([section]) => step.section.startsWith(section))?.[1];
        if (walk !== undefined && steps[index + 1]?.section !== step.section) {
          const walked = Date.now();
          await walk(reader, `${where} (${step.section}, done in the browser)`);
          reader.timings.push(`${step.line} walk: ${((Date.now() - walked) / 1000).toFixed(1)} s`);
        }
      }
      console.log(`docs/tutorial.md, seconds by block (line: time): ${reader.timings.join(", ")}`);
      // The page's last app, production from the bundle: it did not print a stack or a warning about a missing package.
      expect(reader.served?.output().err ?? "").not.toContain("Cannot find package");
    } finally {
      await reader.stop();
    }
  }, 600_000);
});
