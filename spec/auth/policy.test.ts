// Issue 41, item 2: a policy on a model. spec/fixtures/policy-app: Post (owner `author`):
// everyone reads published posts, a draft only its author and admins; editors and the author
// edit; admins alone delete. Entry (no owner): anyone reads and signs, admins alone change or
// delete. Served by fw/testing's startApp (dev: the migration applied, an admin and an editor
// seeded), on PGlite and on a throwaway PostgreSQL.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type TestApp, type TestClient } from "../../runtime/testing/index.js";
import { postgresBin, startCluster, type PostgresCluster } from "../support/postgres.js";
import { runNode } from "../support/process.js";
import { FIXTURES, tspc } from "../support/tspc.js";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";

const dir = join(FIXTURES, "policy-app");
const PASSWORD = "plum orbit velvet 9271";
let built = false;

async function buildOnce(): Promise<void> {
  if (built) return;
  rmSync(join(dir, "db"), { recursive: true, force: true });
  const result = await tspc(dir);
  if (result.code !== 0) throw new Error(`building policy-app failed:\n${result.output}`);
  const scratch = mkdtempSync(join(tmpdir(), "fw-policy-db-"));
  try {
    const made = await runNode(join(dir, "dist/main.js"), ["db", "new", "create tables"], { DATABASE_URL: `pglite:${join(scratch, "db")}`, FW_ENV_FILES: "0" }, dir);
    if (made.code !== 0) throw new Error(`db new failed:\n${made.out}${made.err}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  built = true;
}

let counter = 0;
async function member(app: TestApp, name: string): Promise<TestClient> {
  const client = app.client();
  const email = `${name}-${process.pid}-${++counter}@policy.example`;
  expect((await client.signUp(email, PASSWORD)).status).toBe(303);
  await client.signIn(email, PASSWORD);
  return client;
}

async function staff(app: TestApp, role: "admin" | "editor"): Promise<TestClient> {
  const client = app.client();
  await client.signIn(`${role}@policy.example`, PASSWORD);
  return client;
}

function scenarios(name: string, start: () => Promise<TestApp>, stop: () => Promise<void>): void {
  describe(`41.2 A model's policy (${name})`, () => {
    let app: TestApp;
    beforeAll(async () => {
      await buildOnce();
      app = await start();
    }, 240_000);
    afterAll(stop);

    it("reads are filtered in the query: everyone the published posts, an author their drafts too, an admin every post; a draft is a 404 to the rest", async () => {
      const ann = await member(app, "ann");
      const draft = await ann.submit("/posts/new", { title: `draft ${counter}`, published: "" });
      const open = await ann.submit("/posts/new", { title: `open ${counter}`, published: "true" });
      expect([draft.status, open.status]).toEqual([303, 303]);
      const titles = async (client: TestClient): Promise<string> => (await client.get("/pages/titles")).text;
      const anonymous = app.client();
      expect(await titles(anonymous)).toContain(`open ${counter}`);
      expect(await titles(anonymous)).not.toContain(`draft ${counter}`);
      expect(await titles(ann)).toContain(`draft ${counter}`);
      expect(await titles(await staff(app, "admin"))).toContain(`draft ${counter}`);
      expect(await titles(await staff(app, "editor"))).not.toContain(`draft ${counter}`);
      expect((await anonymous.get(draft.location as string)).status).toBe(404);
      expect((await (await member(app, "bob")).get(draft.location as string)).status).toBe(404);
      expect((await ann.get(draft.location as string)).status).toBe(200);
      expect((await anonymous.get("/posts")).text).not.toContain(`draft ${counter}`);
      // Every row is reached only by asking for it by name: AllRows<Post>.
      const [seen, every] = ((await anonymous.get("/pages/count")).text.match(/^(\d+) of (\d+)$/) ?? []).slice(1).map(Number);
      expect(every).toBeGreaterThan(seen as number);
    });

    it("writes are checked before they happen: another member's post is 403 to edit and unchanged; an editor edits it; only an admin deletes, and only an admin sees Delete", async () => {
      const ann = await member(app, "writer");
      const made = await ann.submit("/posts/new", { title: "Ann's", published: "true" });
      const at = made.location as string;
      const bob = await member(app, "other");
      expect((await bob.get(`${at}/edit`)).status).toBe(403);
      await bob.get(at);
      const csrf = /name="_csrf" value="([^"]+)"/.exec((await bob.get("/posts/new")).text)?.[1] as string;
      const refused = await bob.post(at, { _csrf: csrf, _method: "PUT", title: "Bob's now", published: "true" });
      expect(refused.status).toBe(403);
      expect((await ann.get(at)).text).toContain("Ann&#39;s");
      const editor = await staff(app, "editor");
      expect((await editor.submit(`${at}/edit`, { title: "Edited" })).status).toBe(303);
      expect((await ann.get(at)).text).toContain("Edited");
      // The Index shows Edit on the rows the viewer may change alone (each row asked): the author on theirs,
      // not on another's published post; an editor (a role, every row) on both; nobody signed in on none.
      const theirs = (await bob.submit("/posts/new", { title: "Bob's", published: "true" })).location as string;
      const edits = async (client: TestClient): Promise<string[]> => [...(await client.get("/posts?size=100")).text.matchAll(/<a href="(\/posts\/\d+)\/edit">Edit<\/a>/g)].map((m) => m[1] as string).filter((one) => one === at || one === theirs).sort();
      expect(await edits(ann)).toEqual([at]);
      expect(await edits(bob)).toEqual([theirs]);
      expect(await edits(editor)).toEqual([at, theirs].sort());
      expect(await edits(app.client())).toEqual([]);
      // Destroy is the admins': the author sees no Delete and is refused.
      expect((await ann.get(at)).text).not.toContain('class="fw-destroy"');
      expect((await ann.get(`${at}/delete`)).status).toBe(403);
      const admin = await staff(app, "admin");
      expect((await admin.get(at)).text).toContain('class="fw-destroy"');
      expect((await admin.submit(`${at}/delete`, {})).status).toBe(303);
      expect((await ann.get(at)).status).toBe(404);
    });

    it("an action no clause opens to anyone needs a sign-in; Create stamps the signed-in author, whatever the form says", async () => {
      const anonymous = app.client();
      expect((await anonymous.get("/posts/new")).status).toBe(303);
      const ann = await member(app, "stamp");
      const page = await ann.get("/posts/new");
      expect(page.text).not.toContain('name="author"');
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] as string;
      const made = await ann.post("/posts", { _csrf: csrf, title: "Mine", published: "", author: "1" });
      expect(made.status).toBe(303);
      // A draft: readable by its author (stamped from the session, not the form's author=1).
      expect((await ann.get(made.location as string)).status).toBe(200);
      expect((await app.client().get(made.location as string)).status).toBe(404);
    });

    it("a model with no owner: anyone signs the guestbook; an admin alone changes or deletes an entry (a member 403, nobody signed in to sign-in)", async () => {
      const anonymous = app.client();
      const signed = await anonymous.submit("/entries/new", { text: "hello" });
      expect(signed.status, signed.summary()).toBe(303);
      const at = signed.location as string;
      expect((await anonymous.get(at)).text).toContain("hello");
      expect((await anonymous.get(`${at}/edit`)).status).toBe(303);
      expect((await (await member(app, "guest")).get(`${at}/edit`)).status).toBe(403);
      const admin = await staff(app, "admin");
      expect((await admin.submit(`${at}/edit`, { text: "tidied" })).status).toBe(303);
      expect((await admin.submit(`${at}/delete`, {})).status).toBe(303);
      expect((await anonymous.get(at)).status).toBe(404);
    });
  });
}

let pgliteApp: TestApp | undefined;
scenarios(
  "PGlite",
  async () => {
    const saved = process.env["DATABASE_URL"];
    delete process.env["DATABASE_URL"];
    try {
      pgliteApp = await startApp({ cwd: dir, main: "dist/main.js" });
      return pgliteApp;
    } finally {
      if (saved !== undefined) process.env["DATABASE_URL"] = saved;
    }
  },
  async () => {
    await pgliteApp?.close();
  },
);

const bin = postgresBin();
let cluster: PostgresCluster | undefined;
let pgApp: TestApp | undefined;
scenarios(
  bin === undefined ? "PGlite again (no PostgreSQL on this machine)" : "PostgreSQL",
  async () => {
    if (bin !== undefined) cluster = await startCluster(bin);
    const saved = process.env["DATABASE_URL"];
    if (cluster !== undefined) process.env["DATABASE_URL"] = cluster.url;
    else delete process.env["DATABASE_URL"];
    try {
      pgApp = await startApp({ cwd: dir, main: "dist/main.js" });
      return pgApp;
    } finally {
      if (saved === undefined) delete process.env["DATABASE_URL"];
      else process.env["DATABASE_URL"] = saved;
    }
  },
  async () => {
    await pgApp?.close();
    await cluster?.destroy();
    rmSync(join(dir, "db"), { recursive: true, force: true });
    rmSync(join(dir, ".fw"), { recursive: true, force: true });
  },
);
