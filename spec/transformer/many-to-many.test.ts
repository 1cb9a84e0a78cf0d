import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Visitor } from "../support/browser.js";
import { postgresBin, startCluster, type PostgresCluster } from "../support/postgres.js";
import { bootNode, runNode } from "../support/process.js";
import { PRODUCTION_ENV } from "../support/serve.js";
import { fieldSpecIn, tableSpecIn } from "../support/generated-specs.js";
import { FIXTURES, tspc, type Built } from "../support/tspc.js";

// Issue 43, item 5: a field typed as a list of references (`tags: Id<Tag>[]`) is a many-to-many
// relation: a multi-select in forms and, for a table model, a join table (`posts_tags`) that
// `db new` writes; a list of anything else is TS91114 at the field.
let built: Built;
let broken: Built;
let routes = "";
const dir = join(FIXTURES, "many-to-many");

beforeAll(async () => {
  [built, broken] = await Promise.all([tspc(dir), tspc(join(FIXTURES, "list-errors"))]);
  routes = readFileSync(join(dir, "src/.fw/routes.ts"), "utf8");
}, 240_000);

/** The generated `const tableN: TableSpec = {…}` of a table, parsed. */
const tableSpec = (name: string) => tableSpecIn<Record<string, unknown>>(routes, name);

/** The generated FieldSpec of one field of one model. */
const fieldSpec = (model: string, field: string): Record<string, unknown> => fieldSpecIn(routes, model, field);

describe("issue 43, item 5: a list of references is a many-to-many relation", () => {
  it("builds; the field is a `references` input naming the listed model (required or optional, in a table or in memory)", () => {
    expect(built.code, built.output).toBe(0);
    expect(fieldSpec("Post", "tags")).toEqual({ name: "tags", label: "Tags", optional: false, input: "references", describe: "a list of tags", reference: { model: "Tag", path: "/tags", onDelete: "cascade" } });
    expect(fieldSpec("Post", "related")).toMatchObject({ optional: true, input: "references", reference: { model: "Post" } });
    expect(fieldSpec("Note", "labels")).toMatchObject({ optional: true, input: "references", reference: { model: "Label", path: "/labels" } });
    // A readonly list is set by handlers alone: server-set, never in a form.
    expect(fieldSpec("Post", "featured")).toMatchObject({ optional: true, input: "references", serverSet: "readOnly", reference: { model: "Tag" } });
  });

  it("a table model's list is no column but a join table <table>_<field> of (<model>_id, <target>_id); a list of its own rows names the second after the field", () => {
    const posts = tableSpec("posts");
    expect(posts["columns"]).toEqual([{ field: "title", column: "title", type: "text", nullable: false, maxLength: 200 }]);
    expect(posts["links"]).toEqual([
      { field: "tags", table: "posts_tags", from: "post_id", to: "tag_id", target: { table: "tags", column: "id" } },
      { field: "related", table: "posts_related", from: "post_id", to: "related_id", target: { table: "posts", column: "id" } },
      { field: "featured", table: "posts_featured", from: "post_id", to: "tag_id", target: { table: "tags", column: "id" } },
    ]);
  });

  it("db new writes the join tables after the tables they join, each with its primary key, cascading foreign keys and the index on the listed column; the down drops them first", async () => {
    rmSync(join(dir, "db"), { recursive: true, force: true });
    rmSync(join(dir, ".fw/db"), { recursive: true, force: true });
    try {
      const made = await runNode(join(dir, "dist/main.js"), ["db", "new", "create tables"], { ...PRODUCTION_ENV }, dir);
      expect(made.code, made.err).toBe(0);
      const sql = readFileSync(join(dir, "db/migrations/0001_create_tables.sql"), "utf8");
      const up = sql.split(/^-- fw:down/m)[0] ?? sql;
      const created = [...up.matchAll(/^CREATE TABLE "(\w+)"/gm)].map((m) => m[1]);
      expect(created.slice(-3).sort()).toEqual(["posts_featured", "posts_related", "posts_tags"]);
      expect(created.indexOf("tags")).toBeLessThan(created.indexOf("posts_tags"));
      expect(up).toContain(
        [
          'CREATE TABLE "posts_tags" (',
          '  "post_id" bigint NOT NULL CONSTRAINT "posts_tags_post_id_fkey" REFERENCES "posts" ("id") ON DELETE CASCADE,',
          '  "tag_id" bigint NOT NULL CONSTRAINT "posts_tags_tag_id_fkey" REFERENCES "tags" ("id") ON DELETE CASCADE,',
          '  CONSTRAINT "posts_tags_pkey" PRIMARY KEY ("post_id", "tag_id")',
          ");",
          `COMMENT ON TABLE "posts_tags" IS 'fw/db: the join table of posts.tags';`,
          'CREATE INDEX "posts_tags_tag_id_post_id_idx" ON "posts_tags" ("tag_id", "post_id");',
        ].join("\n"),
      );
      expect(sql).toMatch(/DROP TABLE "posts_tags";[\s\S]*DROP TABLE "posts";/);
      // Applied, the database matches the models: a second db new finds nothing to change (drift sees the join tables).
      expect((await runNode(join(dir, "dist/main.js"), ["db", "migrate"], { ...PRODUCTION_ENV }, dir)).code).toBe(0);
      const none = await runNode(join(dir, "dist/main.js"), ["db", "new", "nothing"], { ...PRODUCTION_ENV }, dir);
      expect(none.code, none.err).toBe(0);
      expect(readFileSync(join(dir, "db/migrations/0002_nothing.sql"), "utf8")).not.toMatch(/CREATE|ALTER|DROP/);
    } finally {
      rmSync(join(dir, "db"), { recursive: true, force: true });
      rmSync(join(dir, ".fw/db"), { recursive: true, force: true });
    }
  }, 120_000);
});

describe("issue 43, item 5: a list of rows that are not a model of the same storage is TS91114 at the field", () => {
  const line = (file: string, text: RegExp): void => {
    const found = broken.output.split("\n").filter((l) => l.startsWith(`src/models/${file}(`) && l.includes("error TS91114: fw: ") && text.test(l));
    expect(found, broken.output).toHaveLength(1);
  };

  it("a table model listing an in-memory model's rows, or a type that is no model; an in-memory model listing a table model's", () => {
    expect(broken.code).not.toBe(0);
    line("Thing.ts", /the field `stickers: Id<Sticker>\[\]` of Thing lists rows of Sticker, which has no table, while Thing's rows are in the table things.*Give Sticker a table/);
    line("Thing.ts", /the field `ghosts: Id<Ghost>\[\]` of Thing lists rows of Ghost, which is not a derived model.*make the field a plain `number\[\]`/);
    line("Memo.ts", /the field `crates: Id<Crate>\[\]` of Memo lists rows of Crate, whose rows are in the table crates, while Memo's are in memory.*Give Memo a table too/);
  });

  it("a required readonly list is TS91013, as any required readonly field (no form sets it, so a new row would lack it)", () => {
    const found = broken.output.split("\n").filter((l) => l.startsWith("src/models/Board.ts(") && l.includes("error TS91013: fw: ") && /the field `pinned` of the model Board is `readonly`.*Make it optional/.test(l));
    expect(found, broken.output).toHaveLength(1);
  });

  it("the models in error get no routes; nothing else fails", () => {
    const others = broken.output.split("\n").filter((l) => / error TS\d+/.test(l) && !l.includes("error TS91114: fw: ") && !l.includes("error TS91013: fw: "));
    expect(others, broken.output).toEqual([]);
    expect(readFileSync(join(FIXTURES, "list-errors/src/.fw/routes.ts"), "utf8")).not.toMatch(/\.(Thing|Memo|Board)\.options/);
  });
});



// The fixture served as built (the build above, reused), its pages end to end through the
// generated table, on PGlite and on a real PostgreSQL: the multi-select, the labels, the
// reverse list on a tag's Show, the Index's filter by a tag, and a tag that does not exist.
describe("issue 43, item 5: the many-to-many fixture served through its generated table", () => {
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
  }, 120_000);
  afterAll(async () => {
    await cluster?.destroy();
    clean();
  }, 60_000);

  const engines = (): { name: string; env: Record<string, string> }[] => [
    { name: "PGlite", env: { ...PRODUCTION_ENV } },
    ...(cluster === undefined ? [] : [{ name: "PostgreSQL", env: { ...PRODUCTION_ENV, DATABASE_URL: cluster.url } }]),
  ];

  it("a multi-select of tags, the labels on Index and Show, the posts of a tag on its Show, /posts?tags=N, and a 422 for a tag that does not exist", async () => {
    for (const engine of engines()) {
      const migrated = await runNode(main, ["db", "migrate"], engine.env, dir);
      expect(migrated.code, `${engine.name}: ${migrated.err}`).toBe(0);
      const app = bootNode(main, [], engine.env, dir);
      try {
        const visitor = new Visitor(await app.url);
        await visitor.get("/tags/new");
        const tag = async (name: string): Promise<string> => (await visitor.post("/tags", { name })).location?.split("/").pop() as string;
        const [news, howto, misc] = [await tag("news"), await tag("howto"), await tag("misc")];
        const form = (await visitor.get("/posts/new")).html;
        expect(form).not.toContain('name="featured"');
        expect(form, engine.name).toContain(`<select id="post-tags" name="tags" multiple size="3"><option value="${howto}">howto</option><option value="${misc}">misc</option><option value="${news}">news</option></select>`);
        const created = await visitor.post("/posts", { title: "Hello", tags: [news, misc] });
        expect(created.status, `${engine.name}: ${created.html}`).toBe(303);
        const post = created.location as string;
        const id = post.split("/").pop() as string;
        const show = (await visitor.get(post)).html;
        expect(show, engine.name).toContain(`<dt>Tags</dt><dd><a href="/tags/${news}">news</a>, <a href="/tags/${misc}">misc</a></dd>`);
        await visitor.get("/posts/new");
        expect((await visitor.post("/posts", { title: "Other", tags: [howto] })).status).toBe(303);
        await visitor.get("/posts/new");
        expect((await visitor.post("/posts", { title: "Bare" })).status, engine.name).toBe(303);
        const index = (await visitor.get("/posts")).html;
        expect(index).toContain(`<td>Hello</td><td><a href="/tags/${news}">news</a>, <a href="/tags/${misc}">misc</a></td>`);
        // The Index filtered by a tag: the posts it lists, the heading naming it; a bad value is a 400 naming the parameter.
        const filtered = (await visitor.get(`/posts?tags=${news}`)).html;
        expect(filtered).toContain("<h1>Posts of news</h1>");
        expect(filtered).toContain("<td>Hello</td>");
        expect(filtered).not.toContain("<td>Other</td>");
        const bad = await visitor.get("/posts?tags=news");
        expect(bad.status).toBe(400);
        expect(bad.html).toContain("filtered by tags (?tags=)");
        // The reverse list on the tag's Show: the posts of the tag.
        const tagShow = (await visitor.get(`/tags/${misc}`)).html;
        // Two lists of Post name tags (tags, and the readonly featured): a section each, named by the field.
        expect(tagShow, engine.name).toContain(`<section class="fw-related" id="posts-tags"><h2>Posts (tags)</h2>`);
        expect(tagShow).toContain(`<section class="fw-related" id="posts-featured"><h2>Posts (featured)</h2><p class="fw-empty">No posts (featured) yet.</p></section>`);
        expect(tagShow).toContain(`<a href="/posts/new?tags=${misc}" class="fw-new">Add a post</a>`);
        expect(tagShow).toContain("<td>Hello</td>");
        expect(tagShow).not.toContain("<td>Other</td>");
        // A tag no row has: 422 beside the field, nothing written; the edit form keeps the chosen ones.
        const edit = (await visitor.get(`${post}/edit`)).html;
        expect(edit).toContain(`<option value="${misc}" selected>misc</option>`);
        const missing = await visitor.post(post, { _method: "PUT", title: "Hello", tags: [news, "999"] });
        expect(missing.status, engine.name).toBe(422);
        expect(missing.html).toContain("There is no such tag.");
        // A value that is no number is a tag's name (or its start), as typed in the search input past 100 tags.
        await visitor.get(`${post}/edit`);
        expect((await visitor.post(post, { _method: "PUT", title: "Hello", tags: "news" })).status, engine.name).toBe(303);
        expect((await visitor.get(post)).html).toContain(`<dt>Tags</dt><dd><a href="/tags/${news}">news</a></dd>`);
        // Update replaces the set; deleting a tag takes it out of the list.
        await visitor.get(`${post}/edit`);
        expect((await visitor.post(post, { _method: "PUT", title: "Hello", tags: [howto] })).status).toBe(303);
        expect((await visitor.get(post)).html).toContain(`<dt>Tags</dt><dd><a href="/tags/${howto}">howto</a></dd>`);
        await visitor.get(`/tags/${howto}`);
        expect((await visitor.post(`/tags/${howto}`, { _method: "DELETE" })).status, engine.name).toBe(303);
        expect((await visitor.get(post)).html).toContain("<dt>Tags</dt><dd></dd>");
        // Past the picker's 100 rows: the chosen tags as ticked boxes beside a text input of numbers.
        await visitor.get("/tags/new");
        for (let n = 0; n < 100; n++) await tag(`tag ${String(n).padStart(3, "0")}`);
        await visitor.get(`${post}/edit`);
        expect((await visitor.post(post, { _method: "PUT", title: "Hello", tags: `${news}, ${misc}` })).status, engine.name).toBe(303);
        const large = (await visitor.get(`${post}/edit`)).html;
        expect(large, engine.name).not.toContain(`<select id="post-tags"`);
        expect(large).toContain(`<label class="fw-chosen-row"><input type="checkbox" name="tags" value="${misc}" checked> misc</label><label class="fw-chosen-row"><input type="checkbox" name="tags" value="${news}" checked> news</label><input id="post-tags" name="tags"`);
        expect(large).toContain(`<input id="post-tags" name="tags" aria-describedby="post-tags-hint" type="search" value="" autocomplete="off" data-fw-pick="/fw/pick/tags">`);
        expect(large).toContain(`<script src="/fw/picker.js`);
        // Unticking misc and typing another tag's number: the set becomes news and that one.
        const last = (await visitor.post("/tags", { name: "zzz" })).location?.split("/").pop() as string;
        await visitor.get(`${post}/edit`);
        expect((await visitor.post(post, { _method: "PUT", title: "Hello", tags: [news, ` ${last} `] })).status).toBe(303);
        expect((await visitor.get(post)).html).toContain(`<dt>Tags</dt><dd><a href="/tags/${news}">news</a>, <a href="/tags/${last}">zzz</a></dd>`);
        // Or typing the start of its name (what /fw/picker.js suggests from): one match is taken, several are a 422 saying so.
        await visitor.get(`${post}/edit`);
        expect((await visitor.post(post, { _method: "PUT", title: "Hello", tags: [news, "MIS"] })).status, engine.name).toBe(303);
        expect((await visitor.get(post)).html).toContain(`<dt>Tags</dt><dd><a href="/tags/${news}">news</a>, <a href="/tags/${misc}">misc</a></dd>`);
        const several = await visitor.post(post, { _method: "PUT", title: "Hello", tags: [news, "tag 01"] });
        expect(several.status).toBe(422);
        expect(several.html).toContain(`Several tags match &quot;tag 01&quot;: choose one.`);
        const none = await visitor.post(post, { _method: "PUT", title: "Hello", tags: [news, "nothing like it"] });
        expect(none.status).toBe(422);
        expect(none.html).toContain("There is no such tag.");
        expect(none.html).toContain(`<label class="fw-chosen-row"><input type="checkbox" name="tags" value="${news}" checked> news</label>`);
        expect(none.html).toContain(`value="nothing like it"`);
        expect(Number(id)).toBeGreaterThan(0);
      } finally {
        app.child.kill("SIGTERM");
        await app.exited;
      }
    }
  }, 180_000);
});
