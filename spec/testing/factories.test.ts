import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
// The built app's `fw/db` is fw's sources here (vitest.config.ts's aliases), and so is this
// startApp's: the database startApp makes the process's is the one the generated stores use.
import { startApp, type TestApp } from "../../runtime/testing/index.js";
import { runNode } from "../support/process.js";
import { noPostgresNotice, postgresBin, startCluster, type PostgresCluster } from "../support/postgres.js";
import { errorLines, FIXTURES, tspc } from "../support/tspc.js";

// Issue 43, item 7: factories made by the build from each model's type (src/.fw/factories.ts),
// inserting into the running test app's database through the model's store. The fixture's
// tables come from its own `db new`; its database is a throwaway PostgreSQL cluster, or, without
// PostgreSQL on the machine, the embedded one the app serves to the test's process.
const dir = join(FIXTURES, "factories-app");
const savedUrl = process.env["DATABASE_URL"];
let cluster: PostgresCluster | undefined;
let scratch: string;
let app: TestApp;

interface Author {
  id: number;
  name: string;
  email: string;
  born: number;
}
interface Post {
  id: number;
  author: number;
  title: string;
  category: string;
  published: boolean;
  createdAt: Date;
}
interface Comment {
  id: number;
  post: number;
  text: string;
}
interface Task {
  id: number;
  owner: number;
  title: string;
}
/** What a factory of the fixture offers, as the test reads it (the fixture's own tests are typed by its build). */
interface Factory<M> {
  build(overrides?: Partial<M>): Omit<M, "id">;
  insert(overrides?: Partial<M>): Promise<M>;
  insertMany(count: number, overrides?: Partial<M>): Promise<M[]>;
}
let factories: { Author: Factory<Author>; Post: Factory<Post>; Comment: Factory<Comment>; Task: Factory<Task>; Label: Factory<{ id: number; text: string }>; Receipt: Factory<{ id: number; note?: string }> };

beforeAll(async () => {
  rmSync(join(dir, "db"), { recursive: true, force: true });
  scratch = mkdtempSync(join(tmpdir(), "fw-factories-"));
  const bin = postgresBin();
  if (bin === undefined) noPostgresNotice();
  const [built] = await Promise.all([tspc(dir), bin === undefined ? undefined : startCluster(bin).then((c) => (cluster = c))]);
  if (built.code !== 0) throw new Error(`building factories-app failed:\n${built.output}`);
  const url = cluster?.url ?? `pglite:${join(scratch, "db")}`;
  const made = await runNode(join(dir, "dist/main.js"), ["db", "new", "create tables"], { DATABASE_URL: url, FW_ENV_FILES: "0" }, dir);
  if (made.code !== 0) throw new Error(`db new failed:\n${made.out}${made.err}`);
  ({ factories } = (await import(pathToFileURL(join(dir, "dist/.fw/factories.js")).href)) as { factories: typeof factories });
}, 240_000);

afterAll(async () => {
  if (savedUrl === undefined) delete process.env["DATABASE_URL"];
  else process.env["DATABASE_URL"] = savedUrl;
  await cluster?.destroy();
  for (const made of ["db", ".fw"]) rmSync(join(dir, made), { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

async function count(table: string): Promise<number> {
  const { rows } = await app.database.query<{ n: string | number }>(`SELECT count(*) AS n FROM ${table}`);
  return Number(rows[0]?.n);
}

// The embedded database (the app serves it to this process), and PostgreSQL where the machine has it.
describe.each(["pglite", "postgres"] as const)("factories (issue 43, item 7) on %s", (engine) => {
  beforeAll(async () => {
    if (engine === "postgres" && cluster === undefined) return;
    // startApp makes a fresh database on the server DATABASE_URL names, or a fresh embedded one.
    if (engine === "postgres") process.env["DATABASE_URL"] = cluster?.url;
    else delete process.env["DATABASE_URL"];
    app = await startApp({ cwd: dir, main: "dist/main.js" });
  }, 240_000);
  afterAll(() => app?.close());
  beforeEach((context) => {
    if (engine === "postgres" && cluster === undefined) context.skip();
  });

  it("builds rows the model's own validation takes: the derived form accepts an author built by its factory", async () => {
    const author = factories.Author.build();
    expect(author.born).toBeGreaterThanOrEqual(1900);
    expect(author.born).toBeLessThanOrEqual(2020);
    expect(author.email).toMatch(/^[^@\s]+@[^@\s]+$/);
    expect([...author.name].length).toBeLessThanOrEqual(40);
    const created = await app.client().submit("/authors/new", { name: author.name, email: author.email, born: String(author.born) });
    expect(created.status, created.summary()).toBe(303);
  });

  it("inserts through the model's store into the running app's database: the row is on the derived Index and Show", async () => {
    const post = await factories.Post.insert({ title: "Paint the fence", category: "howto" });
    expect(post).toMatchObject({ title: "Paint the fence", category: "howto" });
    expect(typeof post.id).toBe("number");
    const visitor = app.client();
    expect((await visitor.get("/posts")).text).toContain("Paint the fence");
    const show = await visitor.get(`/posts/${post.id}`);
    expect(show.status).toBe(200);
    expect(show.text).toContain("Paint the fence");
  });

  it("makes each required reference on demand through its own factory, and uses one given", async () => {
    const [authors, posts] = [await count("authors"), await count("posts")];
    const comment = await factories.Comment.insert();
    // The comment's post was made, and that post's author.
    expect([await count("posts"), await count("authors")]).toEqual([posts + 1, authors + 1]);
    const { rows } = await app.database.query<{ author_id: string | number }>("SELECT author_id FROM posts WHERE id = $1", [comment.post]);
    expect(rows).toHaveLength(1);
    const post = await factories.Post.insert();
    const second = await factories.Comment.insert({ post: post.id, text: "Two coats" });
    expect(second).toMatchObject({ post: post.id, text: "Two coats" });
    expect(await count("posts")).toBe(posts + 2);
    expect((await app.client().get(`/posts/${post.id}`)).text).toContain("Two coats");
  });

  it("gives unique fields values no other row of the test has: 100 authors, 100 emails, all stored", async () => {
    const before = await count("authors");
    const authors = await factories.Author.insertMany(100);
    expect(new Set(authors.map((author) => author.email)).size).toBe(100);
    expect(await count("authors")).toBe(before + 100);
  });

  it("refuses overrides that make the row invalid, naming the field", () => {
    expect(() => factories.Post.build({ title: "" })).toThrow(/factories\.Post built a row that is not a valid Post \(title: expected [^;]*MinLength<1>[^;]*, got ""\)/);
    expect(() => factories.Post.build({ title: "x".repeat(81) })).toThrow(/title: expected [^;]*MaxLength<80>/);
  });

  it("refuses to insert a model the app keeps in memory: the row would be in the test's process, seen by no page", async () => {
    expect(factories.Label.build().text).toEqual(expect.any(String));
    await expect(factories.Label.insert()).rejects.toThrow("factories.Label.insert: Label has no table, so its rows live in the memory of the app's process");
  });

  it("refuses to insert a row whose required file field it cannot make: it is made through its form", async () => {
    expect(Object.keys(factories.Receipt.build())).not.toContain("scan");
    await expect(factories.Receipt.insert()).rejects.toThrow("factories.Receipt.insert: the field scan is a required file, and a factory makes no stored file");
  });

  it("an owned model's rows are the owner's given: none is made up, and the row is that user's alone", async () => {
    await expect(factories.Task.insert()).rejects.toThrow("factories.Task.insert needs the row's owner");
    const ann = app.client();
    await ann.signUp("ann@example.com", "correct horse battery");
    await ann.signIn("ann@example.com", "correct horse battery");
    const { rows } = await app.database.query<{ id: string | number }>("SELECT id FROM users WHERE email = $1", ["ann@example.com"]);
    const owner = Number(rows[0]?.id);
    const task = await factories.Task.insert({ owner, title: "Water the plants" });
    expect(task).toMatchObject({ owner, title: "Water the plants" });
    const list = await ann.get("/tasks");
    expect(list.text, list.summary()).toContain("Water the plants");
    const bob = app.client();
    await bob.signUp("bob@example.com", "another long secret");
    await bob.signIn("bob@example.com", "another long secret");
    expect((await bob.get("/tasks")).text).not.toContain("Water the plants");
    expect((await bob.get(`/tasks/${task.id}`)).status).toBe(404);
  });
});

describe("factories are checked by the build", () => {
  it("a factory for a type that is not a model with a store fails the test's build (a Form-only model has none)", async () => {
    const file = join(dir, "src/not-a-model.ts");
    writeFileSync(file, 'import { factories } from "./.fw/factories.js";\n\nexport const note = factories.Note.build();\n');
    try {
      const built = await tspc(dir);
      expect(built.code).not.toBe(0);
      expect(errorLines(built.output)).toEqual([expect.stringMatching(/^src\/not-a-model\.ts\(3,31\): error TS2339: Property 'Note' does not exist on type 'AppFactories'\.$/)]);
    } finally {
      rmSync(file, { force: true });
    }
  }, 240_000);
});
