// Issue 41, item 6: a user's own data. The fixture (spec/fixtures/account-data) is a notebooks
// app, not a blog: a Notebook (owned, its cover an image) goes with its owner's account, and its
// Pages (they name no user; each a text scan) go with the notebook; a Remark (public, a text
// sketch) stays, anonymised; an Invoice keeps the account from being deleted ("restrict"). Its
// tables come from the app's own `db new`. Served by fw/testing's startApp twice: on PGlite
// with the files on disk, and on a throwaway PostgreSQL cluster (the test reads its database)
// with the files on an S3-compatible server. Without PostgreSQL on the machine the second runs
// on PGlite too (and skips what needs the test to read the database), and says so.
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unzip } from "../support/zip.js";
import { openDatabase, type Database } from "../../runtime/db/index.js";
import { storageAt, type Storage } from "../../runtime/files/index.js";
import { freshPostgres, type FreshDatabase } from "../../runtime/testing/fresh-postgres.js";
import { startApp, testFile, type TestApp, type TestClient } from "../../runtime/testing/index.js";
import { startS3Server, type S3Server } from "../files/s3-server.js";
import { png, removeFolder, tempFolder } from "../files/support.js";
import { postgresBin, startCluster, type PostgresCluster } from "../support/postgres.js";
import { runNode } from "../support/process.js";
import { FIXTURES, tspc } from "../support/tspc.js";

const dir = join(FIXTURES, "account-data");
const PASSWORD = "plum orbit velvet 9271";
const READY = "Your data is ready to download";
let built = false;

async function buildOnce(): Promise<void> {
  if (built) return;
  rmSync(join(dir, "db"), { recursive: true, force: true });
  const result = await tspc(dir);
  if (result.code !== 0) throw new Error(`building account-data failed:\n${result.output}`);
  const scratch = tempFolder("fw-account-data-db-");
  try {
    const made = await runNode(join(dir, "dist/main.js"), ["db", "new", "create tables"], { DATABASE_URL: `pglite:${join(scratch, "db")}`, FW_ENV_FILES: "0" }, dir);
    if (made.code !== 0) throw new Error(`db new failed:\n${made.out}${made.err}`);
  } finally {
    removeFolder(scratch);
  }
  built = true;
}

interface Setup {
  readonly app: TestApp;
  readonly storage: Storage;
  /** The app's database, for what only the database shows (undefined on PGlite: the app holds it). */
  readonly db: Database | undefined;
}

async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`waited 15 s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

let counter = 0;
async function member(app: TestApp, name: string): Promise<{ client: TestClient; email: string }> {
  const client = app.client();
  const email = `${name}-${++counter}@notebooks.example`;
  const made = await client.signUp(email, PASSWORD);
  expect(made.status, made.summary()).toBe(303);
  return { client, email };
}

/** Makes a row through its derived New form: its path. */
async function made(client: TestClient, path: string, fields: Parameters<TestClient["submit"]>[1]): Promise<string> {
  const answer = await client.submit(`${path}/new`, fields);
  expect(answer.status, answer.summary()).toBe(303);
  return answer.location as string;
}

/** The storage key of a row's file, read from its Show page. */
async function keyOf(client: TestClient, path: string, field: string): Promise<string> {
  const show = await client.get(path);
  const key = new RegExp(`/${field}/([0-9a-f]{32})`).exec(show.text)?.[1];
  if (key === undefined) throw new Error(`${path} shows no ${field}: ${show.text.slice(0, 600)}`);
  return key;
}

/** The link of the export's mail, as a path on the app. */
function linkOf(mail: { readonly links: readonly string[] }): string {
  const link = mail.links.find((href) => href.includes("token="));
  if (link === undefined) throw new Error("the mail has no link with a token");
  const url = new URL(link);
  return url.pathname + url.search;
}

/** Presses the download page's button as a browser does: the answer's status, headers and bytes. */
async function pressDownload(client: TestClient, page: string): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  // The session's CSRF token, from a page that always has a form (the download page may refuse).
  const csrf = /name="_csrf" value="([^"]+)"/.exec((await client.get("/account")).text)?.[1] ?? "";
  const cookie = client.cookies.header();
  const response = await fetch(client.url + page, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", ...(cookie === undefined ? {} : { cookie }) },
    body: new URLSearchParams({ _csrf: csrf }).toString(),
  });
  client.cookies.take(response.headers.getSetCookie());
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

async function deleteAccount(client: TestClient) {
  return client.submit("/account", { current: PASSWORD }, { action: "/account/delete" });
}

function scenarios(name: string, start: () => Promise<Setup>, stop: () => Promise<void>): void {
  describe(`issue 41: a user's own data (${name})`, () => {
    let setup: Setup;
    beforeAll(async () => {
      await buildOnce();
      setup = await start();
    }, 240_000);
    afterAll(stop);

    it("deleting an account deletes its notebooks and their pages, and their files at once (not the hourly sweep); its remarks stay without an author, files kept; nobody else's is touched", async () => {
      const { client: ann } = await member(setup.app, "ann");
      const { client: bob } = await member(setup.app, "bob");
      const notebook = await made(ann, "/notebooks", { title: "Field notes", cover: testFile("cover.png", png(64, 48), "image/png") });
      const page = await made(ann, "/pages", { notebook: notebook.split("/").pop() as string, text: "Day one", scan: testFile("scan.txt", "scanned words", "text/plain") });
      const remark = await made(ann, "/remarks", { text: "Nice work", sketch: testFile("sketch.txt", "a sketch", "text/plain") });
      const bobs = await made(bob, "/notebooks", { title: "Bob's", cover: testFile("bob.png", png(20, 20), "image/png") });
      const keys = { cover: await keyOf(ann, notebook, "cover"), scan: await keyOf(ann, page, "scan"), sketch: await keyOf(ann, remark, "sketch"), bob: await keyOf(bob, bobs, "cover") };
      for (const key of Object.values(keys)) expect(await setup.storage.exists(key)).toBe(true);

      const deleted = await deleteAccount(ann);
      expect([deleted.status, deleted.location]).toEqual([303, "/"]);
      await eventually("the files of the deleted rows to be deleted", async () => !(await setup.storage.exists(keys.cover)) && !(await setup.storage.exists(keys.scan)));
      expect((await bob.get(notebook)).status).toBe(404);
      expect((await bob.get(page)).status).toBe(404);
      const kept = await bob.get(remark);
      expect([kept.status, kept.text.includes("Nice work")]).toEqual([200, true]);
      expect(await setup.storage.exists(keys.sketch)).toBe(true);
      expect(await setup.storage.exists(keys.bob)).toBe(true);
      expect((await bob.get(`${remark}/edit`)).status).toBe(403); // nobody owns it now
    });

    it("a user named beside the owner (the invoice's `readonly approver?: Id<User>`) is a foreign key to the users with its own rule, in the app's migration", () => {
      const sql = readdirSync(join(dir, "db/migrations")).map((name) => readFileSync(join(dir, "db/migrations", name), "utf8")).join("\n");
      expect(sql).toMatch(/"approver_id" bigint CONSTRAINT "invoices_approver_id_fkey" REFERENCES "users" \("id"\) ON DELETE SET NULL/);
      expect(sql).toMatch(/"customer_id" bigint NOT NULL CONSTRAINT "invoices_customer_id_fkey" REFERENCES "users" \("id"\) ON DELETE RESTRICT/);
    });

    it("an account holding an invoice is not deleted: 409 names the app's own model (invoices, not the notebooks that would go), and nothing changed, files included; the invoice's approver is never a form field", async () => {
      const { client: carl, email } = await member(setup.app, "carl");
      expect((await carl.get("/invoices/new")).text).not.toContain('name="approver"');
      const notebook = await made(carl, "/notebooks", { title: "Kept", cover: testFile("kept.png", png(30, 30), "image/png") });
      await made(carl, "/invoices", { amount: "120" });
      const cover = await keyOf(carl, notebook, "cover");
      const refused = await deleteAccount(carl);
      expect(refused.status).toBe(409);
      expect(refused.refusal().alerts).toEqual(["Your account cannot be deleted while your invoices name it: delete them first."]);
      // The delete job would run within a second or two of a commit: there was none.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      expect(await setup.storage.exists(cover)).toBe(true);
      expect((await carl.get(notebook)).status).toBe(200);
      await setup.app.client().signIn(email, PASSWORD);
    });

    it("Download my data: a zip of the JSON of every row naming the user, and their files, mailed as a link that works once, for them alone", async () => {
      const { client: dora, email } = await member(setup.app, "dora");
      const { client: eve } = await member(setup.app, "eve");
      const notebook = await made(dora, "/notebooks", { title: "Dora's sketches", cover: testFile("dora.png", png(40, 30), "image/png") });
      await made(dora, "/pages", { notebook: notebook.split("/").pop() as string, text: "Not mine to name", scan: testFile("page.txt", "page scan", "text/plain") });
      const remark = await made(dora, "/remarks", { text: "Dora remarks", sketch: testFile("idea.txt", "dora's idea", "text/plain") });
      await made(dora, "/invoices", { amount: "42" });
      await made(eve, "/notebooks", { title: "Eve's secrets", cover: testFile("eve.png", png(10, 10), "image/png") });

      const account = await dora.get("/account");
      expect(account.text).toContain("<h2>Download your data</h2>");
      const asked = await dora.submit("/account", {}, { action: "/account/data" });
      expect([asked.status, asked.location]).toEqual([303, "/account"]);
      expect((await dora.follow(asked)).text).toContain(`We are gathering your data. We mail a link to ${email} when it is ready`);
      // Asked again at once: joined with the first (being made) or told it was made; never a second export.
      const again = await dora.follow(await dora.submit("/account", {}, { action: "/account/data" }));
      expect(again.text).toMatch(/Your data is being gathered already|We mailed a link to your data/);
      const mail = await setup.app.mail({ to: email, subject: READY, timeoutMs: 20_000 });
      expect(mail.text).toMatch(/a zip of JSON and the files you uploaded/);
      const link = linkOf(mail);
      const page = link.split("?")[0] as string;
      expect(page).toMatch(/^\/account\/data\/[A-Za-z0-9_-]{22}$/);
      const third = await dora.follow(await dora.submit("/account", {}, { action: "/account/data" }));
      expect(third.text).toContain(`We mailed a link to your data to ${email} at`);

      // Attacks: the link forwarded to another signed-in member; the export's id without the link; nobody signed in.
      const moved = await eve.get(link);
      expect([moved.status, moved.location, moved.headers.get("referrer-policy")]).toEqual([303, page, "no-referrer"]);
      expect((await eve.get(page)).status).toBe(403);
      expect((await pressDownload(eve, page)).status).toBe(403);
      const stranger = setup.app.client();
      expect((await stranger.post(page, {})).status).toBe(403); // no CSRF token: refused before anything
      const signedOut = await stranger.get(page);
      expect([signedOut.status, signedOut.location]).toEqual([303, `/login?next=${encodeURIComponent(page)}`]);
      const other = await member(setup.app, "mallory");
      expect((await other.client.get(page)).status).toBe(404);

      // Dora follows her link: a page with a button; pressing it sends the zip.
      await dora.get(link);
      const shown = await dora.get(page);
      expect(shown.status).toBe(200);
      expect(shown.text).toContain("Download my data");
      const sent = await pressDownload(dora, page);
      expect(sent.status).toBe(200);
      expect(sent.headers.get("content-type")).toBe("application/zip");
      expect(sent.headers.get("content-disposition")).toMatch(/^attachment; filename="my-data-\d{4}-\d{2}-\d{2}\.zip"$/);
      expect(sent.headers.get("cache-control")).toBe("no-store");
      const entries = await unzip(sent.bytes);
      const data = JSON.parse((entries.get("data.json") as Buffer).toString("utf8")) as {
        account: { email: string };
        models: Record<string, Record<string, unknown>[]>;
      };
      expect(data.account.email).toBe(email);
      expect(Object.keys(data.models).sort()).toEqual(["Invoice", "Notebook", "Remark"]);
      expect(data.models["Notebook"]?.map((n) => n["title"])).toEqual(["Dora's sketches"]);
      expect(data.models["Remark"]?.map((r) => r["text"])).toEqual(["Dora remarks"]);
      expect(data.models["Invoice"]?.map((i) => i["amount"])).toEqual([42]);
      const json = (entries.get("data.json") as Buffer).toString("utf8");
      expect(json).not.toContain("Eve's secrets");
      expect(json).not.toContain("passwordHash");
      expect(json).not.toMatch(/"key":/);
      const cover = data.models["Notebook"]?.[0]?.["cover"] as { file: string; name: string };
      const sketch = data.models["Remark"]?.[0]?.["sketch"] as { file: string };
      expect(cover.file).toMatch(/^files\/notebooks\/\d+\/cover\/dora\.png$/);
      expect([...entries.keys()].sort()).toEqual(["data.json", cover.file, sketch.file].sort());
      expect(entries.get(sketch.file)?.toString()).toBe("dora's idea");
      const served = await dora.get(`${notebook}/cover/${await keyOf(dora, notebook, "cover")}`);
      expect(served.status).toBe(200);
      const original = Buffer.from(await (await fetch(`${setup.app.url}${notebook}/cover/${await keyOf(dora, notebook, "cover")}`, { headers: { cookie: dora.cookies.header() ?? "" } })).arrayBuffer());
      expect(entries.get(cover.file)?.equals(original)).toBe(true);
      expect(remark).toBeDefined();

      // Once: the link again is refused, and the export is gone.
      expect((await pressDownload(dora, page)).status).toBe(404);
      await dora.get(link);
      expect((await dora.get(page)).status).toBe(404);
      expect((await setup.app.mails({ to: email })).filter((m) => m.subject === READY)).toHaveLength(1);
    });

    it("the link of an account deleted since does not work (404), and the export's archive goes with the account", async () => {
      const { client: fay, email } = await member(setup.app, "fay");
      await made(fay, "/notebooks", { title: "Leaving", cover: testFile("leave.png", png(12, 12), "image/png") });
      await fay.submit("/account", {}, { action: "/account/data" });
      const link = linkOf(await setup.app.mail({ to: email, subject: READY, timeoutMs: 20_000 }));
      const archive = setup.db === undefined ? undefined : await archiveKey(setup.db, link);
      if (archive !== undefined) expect(await setup.storage.exists(archive)).toBe(true);
      expect((await deleteAccount(fay)).status).toBe(303);
      const { client: gus } = await member(setup.app, "gus");
      await gus.get(link);
      expect((await gus.get(link.split("?")[0] as string)).status).toBe(404);
      if (archive !== undefined) await eventually("the archive of the deleted account's export to be deleted", async () => !(await setup.storage.exists(archive)));
    });

    it.skipIf(name.startsWith("PGlite"))("an expired export's link is refused (404), and the hourly sweep deletes the export and its archive", async () => {
      const db = setup.db as Database;
      const { client: hal, email } = await member(setup.app, "hal");
      await made(hal, "/notebooks", { title: "Old", cover: testFile("old.png", png(12, 12), "image/png") });
      await hal.submit("/account", {}, { action: "/account/data" });
      const link = linkOf(await setup.app.mail({ to: email, subject: READY, timeoutMs: 20_000 }));
      const archive = (await archiveKey(db, link)) as string;
      const id = (link.split("?")[0] as string).split("/").pop();
      await db.query(`UPDATE fw_users_exports SET expires_ms = 0 WHERE id = $1`, [id]);
      await hal.get(link);
      expect((await hal.get(link.split("?")[0] as string)).status).toBe(404);
      await db.query("UPDATE fw_job_schedules SET next_at = now() - interval '1 second' WHERE name = 'fw.account.exports.sweep'");
      await eventually("the sweep to delete the expired export", async () => (await db.query(`SELECT 1 FROM fw_users_exports WHERE id = $1`, [id])).rows.length === 0);
      await eventually("the expired export's archive to be deleted", async () => !(await setup.storage.exists(archive)));
    });
  });
}

/** The storage key of the archive of the export a link names. */
async function archiveKey(db: Database, link: string): Promise<string | undefined> {
  const id = (link.split("?")[0] as string).split("/").pop();
  const { rows } = await db.query(`SELECT archive ->> 'key' AS key FROM fw_users_exports WHERE id = $1`, [id]);
  return rows[0]?.["key"] === undefined ? undefined : String(rows[0]["key"]);
}

let diskFolder: string | undefined;
let diskApp: TestApp | undefined;
scenarios(
  "PGlite, files on disk",
  async () => {
    diskFolder = tempFolder("fw-account-data-disk-");
    const storage = `file://${diskFolder}`;
    const saved = process.env["DATABASE_URL"];
    delete process.env["DATABASE_URL"];
    try {
      diskApp = await startApp({ cwd: dir, main: "dist/main.js", env: { FW_STORAGE: storage } });
      return { app: diskApp, storage: storageAt(storage), db: undefined };
    } finally {
      if (saved !== undefined) process.env["DATABASE_URL"] = saved;
    }
  },
  async () => {
    await diskApp?.close();
    if (diskFolder !== undefined) removeFolder(diskFolder);
  },
);

let cluster: PostgresCluster | undefined;
let fresh: FreshDatabase | undefined;
let s3: S3Server | undefined;
let s3App: TestApp | undefined;
let s3Db: Database | undefined;
const bin = postgresBin();
scenarios(
  bin === undefined ? "PGlite (no PostgreSQL on this machine), files on S3" : "PostgreSQL, files on S3",
  async () => {
    s3 = await startS3Server();
    if (bin !== undefined) {
      cluster = await startCluster(bin);
      fresh = await freshPostgres(cluster.url);
    }
    const saved = process.env["DATABASE_URL"];
    delete process.env["DATABASE_URL"];
    try {
      const env = { FW_STORAGE: s3.url, AWS_ACCESS_KEY_ID: "S3RVER", AWS_SECRET_ACCESS_KEY: "S3RVER", AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" };
      s3App = await startApp({ cwd: dir, main: "dist/main.js", env: fresh === undefined ? env : { ...env, DATABASE_URL: fresh.url } });
      if (fresh !== undefined) s3Db = await openDatabase({ url: fresh.url, log: () => undefined });
      return { app: s3App, storage: storageAt(s3.url), db: s3Db };
    } finally {
      if (saved !== undefined) process.env["DATABASE_URL"] = saved;
    }
  },
  async () => {
    await s3App?.close();
    await s3Db?.close();
    await fresh?.drop();
    await s3?.close();
    await cluster?.destroy();
    rmSync(join(dir, "db"), { recursive: true, force: true });
    rmSync(join(dir, ".fw"), { recursive: true, force: true });
  },
);
