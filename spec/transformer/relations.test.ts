import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Visitor } from "../support/browser.js";
import { postgresBin, startCluster, type PostgresCluster } from "../support/postgres.js";
import { bootNode, runNode } from "../support/process.js";
import { PRODUCTION_ENV } from "../support/serve.js";
import { fieldSpecIn, tableSpecIn } from "../support/generated-specs.js";
import { FIXTURES, tspc, type Built } from "../support/tspc.js";

// Issue 29: references come from the types. A field `Id<M>` of another derived model becomes a
// reference (a picker, a link, a foreign key with the companion's `onDelete` rule); `Unique`
// and `unique` make unique indexes; the mistakes are coded build errors (items 1, 6, 8).
let built: Built;
let broken: Built;
let routes = "";

beforeAll(async () => {
  [built, broken] = await Promise.all([tspc(join(FIXTURES, "relations")), tspc(join(FIXTURES, "relation-errors"))]);
  routes = readFileSync(join(FIXTURES, "relations/src/.fw/routes.ts"), "utf8");
}, 240_000);

/** The generated `const tableN: TableSpec = {…}` of a table, parsed. */
const tableSpec = (name: string) => tableSpecIn<{ columns: { field: string; column: string; references?: unknown; unique?: boolean }[]; unique?: string[][] }>(routes, name);

/** The generated FieldSpec of one field of one model. */
const fieldSpec = (model: string, field: string): Record<string, unknown> => fieldSpecIn(routes, model, field);

describe("issue 29: a reference is a field typed Id<M> of another derived model", () => {
  it("builds, and the field is a reference in the form's spec: its model, its path, the on-delete rule (restrict unless said)", () => {
    expect(built.code, built.output).toBe(0);
    expect(fieldSpec("Post", "author")).toEqual({ name: "author", label: "Author", optional: false, input: "reference", describe: "an author", reference: { model: "Author", path: "/authors", onDelete: "restrict" } });
    expect(fieldSpec("Comment", "post")).toMatchObject({ input: "reference", reference: { model: "Post", path: "/posts", onDelete: "cascade" } });
    expect(fieldSpec("Comment", "seeAlso")).toMatchObject({ optional: true, input: "reference", reference: { onDelete: "set null" } });
    // In memory too: two in-memory models.
    expect(fieldSpec("Label", "tag")).toMatchObject({ input: "reference", reference: { model: "Tag", path: "/tags", onDelete: "cascade" } });
  });

  it("a table model's reference is a foreign key column named field_id, with the rule; restrict is the default and not written", () => {
    expect(tableSpec("posts").columns.find((c) => c.field === "author")).toEqual({ field: "author", column: "author_id", type: "bigint", nullable: false, references: { table: "authors", column: "id" } });
    const comments = tableSpec("comments").columns;
    expect(comments.find((c) => c.field === "post")?.references).toEqual({ table: "posts", column: "id", onDelete: "cascade" });
    expect(comments.find((c) => c.field === "seeAlso")).toMatchObject({ column: "see_also_id", nullable: true, references: { table: "posts", column: "id", onDelete: "set null" } });
  });

  it("Unique on a field makes a unique column; the companion's unique lists fields that are unique together (as columns in the table)", () => {
    expect(tableSpec("authors").columns[0]).toMatchObject({ field: "name", unique: true });
    expect(fieldSpec("Author", "name")).toMatchObject({ unique: true });
    expect(fieldSpec("Tag", "name")).toMatchObject({ unique: true });
    expect(tableSpec("reviews").unique).toEqual([["post_id", "reviewer"]]);
    expect(routes).toMatch(/const model\d+: ModelSpec<m\d+\.Review> = \{[^}]*unique: \[\["post","reviewer"\]\],/);
  });

  it("every model's routes share one Relations, made per table; in-memory models share one InMemoryDatabase", () => {
    expect(routes).toContain("  const relations = new Relations();");
    expect(routes.match(/resourceRoutes\(model\d+, store\d+, \{[^}]*relations, (referenced: true, )?(guard: [^,]+, )?source:/g)).toHaveLength(6);
    // The models others point at mount a pick endpoint (their forms' search-as-you-type), and the table the picker's script.
    expect(routes.match(/resourceRoutes\(model\d+, store\d+, \{[^}]*referenced: true, (guard: [^,]+, )?source: "src\/models\/(\w+)\.ts"/g)?.map((line) => /(\w+)\.ts"$/.exec(line)?.[1]).sort()).toEqual(["Author", "Post", "Tag"]);
    expect(routes).toContain("    pickerScriptRoute(),");
    expect(routes).toContain("const memory = new InMemoryDatabase();");
    expect(routes).toContain("return table === undefined ? memory.store<A>(model) : new SqlStore<A>(processDatabase(), table);");
  });
});

describe("issue 29, item 8: relation mistakes are build errors naming the model, the field and the fix", () => {
  const line = (file: string, code: number, text: RegExp): void => {
    const found = broken.output.split("\n").filter((l) => l.startsWith(`src/models/${file}(`) && l.includes(`error TS${code}: fw: `) && text.test(l));
    expect(found, broken.output).toHaveLength(1);
  };

  it("Id<M> in a table model where M has no table, or is no model; an in-memory model pointing at a table model (TS91040)", () => {
    expect(broken.code).not.toBe(0);
    line("Book.ts", 91040, /the field `shelf: Id<Shelf>` of Book points at Shelf, which has no table, while Book's rows are in the table books.*Give Shelf a table/);
    line("Book.ts", 91040, /the field `publisher: Id<Publisher>` of Book points at Publisher, which is not a model with a table.*make the field a plain `number`/);
    line("Note.ts", 91040, /the field `room: Id<Room>` of Note points at Room, whose rows are in the table rooms, while Note's are in memory.*Give Note a table too/);
  });

  it("an on-delete rule on a field that is not a reference, or set null on a required one (TS91041)", () => {
    line("Book.ts", 91041, /the onDelete of Book names `title`, which is not a reference field.*its references are room/);
    line("Book.ts", 91041, /says "set null" for `room`, which is required.*Make it optional \(`room\?: Id<Room>`\)/);
  });

  it("readableWith naming a field that is not a reference, or making a circle (TS91042)", () => {
    line("Book.ts", 91042, /the readableWith of Book names `title`, which is not a reference field.*readableWith: "room"/);
    line("Chapter.ts", 91042, /the readableWith declarations make a circle \(Chapter → Page → Chapter\).*Drop readableWith from one of these models/);
    line("Page.ts", 91042, /the readableWith declarations make a circle \(Page → Chapter → Page\)/);
  });

  it("Unique on a type that cannot be compared, and a composite unique naming an unknown or long field (TS91043)", () => {
    line("Book.ts", 91043, /the field `blurb` of Book is Unique but a LongText/);
    line("Book.ts", 91043, /the field `inPrint` of Book is Unique but a boolean/);
    line("Book.ts", 91043, /the unique of Book cannot hold: `nope` is not one of its fields/);
    line("Book.ts", 91043, /the unique of Book cannot hold: `blurb` is a long text/);
  });

  it("issue 43: a model's sort the build cannot read (not a literal) (TS91111)", () => {
    line("Room.ts", 91111, /the sort of Room must be a string literal the build can read: sort: "-createdAt"/);
  });

  it("issue 43: a model's search naming a field twice, or a language the build cannot read (TS91112)", () => {
    line("Room.ts", 91112, /the search of Room names `name`, which is listed twice: search reads text \(name\)/);
    line("Room.ts", 91112, /the searchLanguage of Room must be a string literal the build can read: searchLanguage: "english"/);
  });

  it("the broken models get no routes, so nothing fails later in the generated module; TypeScript adds its own errors for the typed options", () => {
    const others = broken.output.split("\n").filter((l) => / error TS\d+/.test(l) && !/ error TS91(04\d|11[12]): fw: /.test(l));
    expect(others.every((l) => /^src\/models\/Book\.ts\(\d+,\d+\): error TS2322: /.test(l)), broken.output).toBe(true);
    expect(readFileSync(join(FIXTURES, "relation-errors/src/.fw/routes.ts"), "utf8")).not.toMatch(/\.(Book|Note|Chapter|Page|Room)\.options/);
  });
});

// The fixture served as built (the build above, reused: no second tspc), its pages end to end
// through the generated table (issue 29, items 2-4), on PGlite and on a real PostgreSQL.
describe("issue 29: the relations fixture served through its generated table", () => {
  const dir = join(FIXTURES, "relations");
  const main = join(dir, "dist/main.js");
  let cluster: PostgresCluster | undefined;
  const clean = () => {
    rmSync(join(dir, "db"), { recursive: true, force: true });
    rmSync(join(dir, ".fw/db"), { recursive: true, force: true });
  };

  beforeAll(async () => {
    clean();
    const bin = postgresBin();
    if (bin !== undefined) cluster = await startCluster(bin);
    expect(built.code, built.output).toBe(0);
    const made = await runNode(main, ["db", "new", "create tables"], { ...PRODUCTION_ENV }, dir);
    expect(made.code, made.err).toBe(0);
    // The tables come in the order their foreign keys need (authors, posts, then what points at posts).
    const sql = readFileSync(join(dir, "db/migrations/0001_create_tables.sql"), "utf8");
    const created = [...sql.matchAll(/^CREATE TABLE "(\w+)"/gm)].map((m) => m[1]);
    expect(created.indexOf("authors")).toBeLessThan(created.indexOf("posts"));
    expect(created.indexOf("posts")).toBeLessThan(Math.min(created.indexOf("comments"), created.indexOf("reviews")));
  }, 120_000);
  afterAll(async () => {
    await cluster?.destroy();
    clean();
  }, 60_000);

  const engines = (): { name: string; env: Record<string, string> }[] => [
    { name: "PGlite", env: { ...PRODUCTION_ENV } },
    ...(cluster === undefined ? [] : [{ name: "PostgreSQL", env: { ...PRODUCTION_ENV, DATABASE_URL: cluster.url } }]),
  ];

  it("pickers, labels, lists of referencing rows, the 422s and the 409 of a restricted delete, on each engine", async () => {
    for (const engine of engines()) {
      const migrated = await runNode(main, ["db", "migrate"], engine.env, dir);
      expect(migrated.code, `${engine.name}: ${migrated.err}`).toBe(0);
      const app = bootNode(main, [], engine.env, dir);
      try {
        const visitor = new Visitor(await app.url);
        await visitor.get("/authors/new");
        const author = (await visitor.post("/authors", { name: "Ada" })).location?.split("/").pop() as string;
        const form = (await visitor.get("/posts/new")).html;
        expect(form, engine.name).toContain(`<select id="post-author" name="author" required><option value="" selected>Choose…</option><option value="${author}">Ada</option></select>`);
        const post = (await visitor.post("/posts", { title: "Hello", author, published: "true" })).location as string;
        const id = post.split("/").pop() as string;
        expect((await visitor.post("/comments", { post: id, body: "first!" })).status, engine.name).toBe(303);
        const missing = await visitor.post("/comments", { post: "999", body: "lost" });
        expect(missing.status, engine.name).toBe(422);
        expect(missing.html).toContain("There is no such post.");
        const show = (await visitor.get(post)).html;
        expect(show).toContain(`<dt>Author</dt><dd><a href="/authors/${author}">Ada</a></dd>`);
        expect(show).toContain(`<section class="fw-related" id="comments"><h2>Comments</h2>`);
        expect(show).toContain("<td>first!</td>");
        expect(show).toContain(`<a href="/comments/new?post=${id}" class="fw-new">Add a comment</a>`);
        expect(show).toContain(`<a href="/comments/new?seeAlso=${id}" class="fw-new">Add a comment</a>`);
        await visitor.get("/reviews/new");
        expect((await visitor.post("/reviews", { post: id, reviewer: "Rex", stars: "4" })).status).toBe(303);
        const twice = await visitor.post("/reviews", { post: id, reviewer: "Rex", stars: "5" });
        expect(twice.status, engine.name).toBe(422);
        expect(twice.html).toContain("Another review already has this post and reviewer");
        expect((await visitor.get(`${post}/delete`)).html).toContain(`This post cannot be deleted: <a href="/reviews?post=${id}">1 review</a> still points at it.`);
        await visitor.get("/posts/new");
        const refused = await visitor.post(post, { _method: "DELETE" });
        expect(refused.status, engine.name).toBe(409);
        expect(JSON.parse((await visitor.get("/fw/pick/posts?q=hel")).html)).toEqual([{ key: Number(id), label: "Hello" }]);
        // In memory: a label's tag is picked the same way.
        await visitor.get("/tags/new");
        const tag = (await visitor.post("/tags", { name: "news" })).location?.split("/").pop() as string;
        expect((await visitor.get("/labels/new")).html).toContain(`<option value="${tag}">news</option>`);
      } finally {
        app.child.kill("SIGTERM");
        await app.exited;
      }
    }
  }, 180_000);
});
