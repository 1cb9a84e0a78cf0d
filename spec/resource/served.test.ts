import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Visitor } from "../support/browser.js";
import { runNode } from "../support/process.js";
import { PRODUCTION_ENV } from "../support/serve.js";
import { servedFixture } from "../support/tspc.js";

const fixture = servedFixture("resource", { ...PRODUCTION_ENV });
const dir = fixture.dir;

const validPost = { title: "Hello", body: "Long <b>text</b>", category: "howto", published: "true" };

describe("4.4 The seven derived routes of a model, served through the generated table", () => {
  it("Index, then New: a blank form; /posts/new reaches New, never Show", async () => {
    const visitor = new Visitor(fixture.url);
    const index = await visitor.get("/posts");
    expect(index.status).toBe(200);
    expect(index.html).toContain("No posts yet.");
    expect(index.html).toContain('<a href="/posts/new" class="fw-new">New post</a>');
    const blank = await visitor.get("/posts/new");
    expect(blank.status).toBe(200);
    expect(blank.html).toContain('<form method="post" action="/posts"');
    expect(blank.html).toContain('value=""');
  });

  it("Create with invalid input: 422, the form re-rendered with the values typed and the errors beside their fields", async () => {
    const visitor = new Visitor(fixture.url);
    await visitor.get("/posts/new");
    const failed = await visitor.post("/posts", { title: "", body: "kept <i>", category: "nonsense", rating: "7" });
    expect(failed.status).toBe(422);
    expect(failed.html).toContain('<textarea id="post-body" name="body" required maxlength="10000" rows="6">kept &lt;i&gt;</textarea>');
    expect(failed.html).toContain("Category could not be read as one of news, howto, misc.");
    expect(failed.html).not.toContain("Post created");
  });

  it("an empty form is answered with every field's problem at once; empty required text is 'is required' (issue 22, item 5)", async () => {
    const visitor = new Visitor(fixture.url);
    await visitor.get("/posts/new");
    // What a browser sends for the blank New form: every text input and the select, empty.
    const failed = await visitor.post("/posts", { title: "", body: "", summary: "", category: "", rating: "9", publishedOn: "" });
    expect(failed.status).toBe(422);
    for (const message of ["Title is required.", "Body is required.", "Category is required.", "Rating must be at most 5."]) expect(failed.html).toContain(message);
    expect(failed.html).not.toContain("Summary is required");
  });

  it("a required string without rules is refused empty too, as its rendered `required` says (Note.text: string)", async () => {
    const visitor = new Visitor(fixture.url);
    const blank = await visitor.get("/notes/new");
    expect(blank.html).toMatch(/name="text" type="text" value="" required/);
    const failed = await visitor.post("/notes", { text: "" });
    expect(failed.status).toBe(422);
    expect(failed.html).toContain("Text is required.");
    expect((await visitor.post("/notes", { text: " " })).status).toBe(303);
  });

  it("Create with valid input: 303 to Show, the flash shown once, the post on the index", async () => {
    const visitor = new Visitor(fixture.url);
    await visitor.get("/posts/new");
    const created = await visitor.post("/posts", validPost);
    expect(created.status).toBe(303);
    expect(created.location).toMatch(/^\/posts\/\d+$/);
    const show = await visitor.get(created.location as string);
    expect(show.html).toContain('<p class="flash">Post created.</p>');
    expect(show.html).toContain("<dt>Title</dt><dd>Hello</dd>");
    expect(show.html).toContain("<dt>Body</dt><dd>Long &lt;b&gt;text&lt;/b&gt;</dd>");
    expect(show.html).toContain("<dt>Published</dt><dd>Yes</dd>");
    const again = await visitor.get(created.location as string);
    expect(again.html).toContain("<dt>Title</dt><dd>Hello</dd>");
    expect(again.html).not.toContain("Post created.");
    const index = await visitor.get("/posts");
    expect(index.html).toContain("<td>Hello</td>");
    expect(index.html).toMatch(/<th scope="col"><a href="\/posts\?sort=title">Title<\/a><\/th><th scope="col"><a href="\/posts\?sort=body">Body<\/a><\/th>/);
  });

  it("Edit shows the filled form; Update through _method=PUT changes the row", async () => {
    const visitor = new Visitor(fixture.url);
    await visitor.get("/posts/new");
    const at = (await visitor.post("/posts", validPost)).location as string;
    const edit = await visitor.get(`${at}/edit`);
    expect(edit.html).toContain('<input type="hidden" name="_method" value="PUT">');
    expect(edit.html).toContain('name="title" type="text" value="Hello"');
    const updated = await visitor.post(at, { _method: "PUT", ...validPost, title: "Changed" });
    expect(updated.status).toBe(303);
    expect(updated.location).toBe(at);
    const shown = (await visitor.get(at)).html;
    expect(shown).toContain("<dd>Changed</dd>");
    expect(shown).toContain('<p class="flash">Post updated.</p>');
    const invalid = await visitor.post(at, { _method: "PUT", ...validPost, title: "" });
    expect(invalid.status).toBe(422);
    expect(invalid.html).toContain("Title is required.");
  });

  it("Show's heading is the row's first text field, its long text keeps its line breaks; Index shows one line of it (issue 22, item 6)", async () => {
    const visitor = new Visitor(fixture.url);
    await visitor.get("/posts/new");
    const body = `First line of a long body ${"x".repeat(100)}\r\nsecond <line>`;
    const at = (await visitor.post("/posts", { ...validPost, title: "A & B", body })).location as string;
    const show = await visitor.get(at);
    expect(show.html).toContain("<title>A &amp; B</title>");
    expect(show.html).toContain("<h1>A &amp; B</h1>");
    expect(show.html).toContain(`<dd>First line of a long body ${"x".repeat(100)}<br>second &lt;line&gt;</dd>`);
    const index = await visitor.get("/posts");
    const cell = `<td>First line of a long body ${"x".repeat(80 - 26)}…</td>`;
    expect(index.html).toContain(cell);
    expect(index.html).not.toContain("second &lt;line&gt;");
  });

  it("Destroy asks first, without JavaScript: Show links to a confirm page whose one button sends the DELETE", async () => {
    const visitor = new Visitor(fixture.url);
    await visitor.get("/posts/new");
    const at = (await visitor.post("/posts", validPost)).location as string;
    const show = await visitor.get(at);
    expect(show.html).toContain(`<a href="${at}/delete" class="fw-destroy">Delete</a>`);
    expect(show.html).not.toContain('value="DELETE"');
    const confirm = await visitor.get(`${at}/delete`);
    expect(confirm.status).toBe(200);
    expect(confirm.html).toContain("<h1>Delete Hello?</h1>");
    expect(confirm.html).toContain(`<form method="post" action="${at}" class="fw-destroy"><input type="hidden" name="_method" value="DELETE">`);
    expect(confirm.html).toContain(`<a href="${at}" class="fw-cancel">Cancel</a>`);
    expect((await visitor.get(at)).status).toBe(200); // asking deleted nothing
    expect((await fetch(`${fixture.url}/posts/987654/delete`)).status).toBe(404);
    expect((await fetch(`${fixture.url}/notes/1/delete`)).status).toBe(404); // Notes mount no Destroy: no confirm page either
  });

  it("Destroy through _method=DELETE: 303 to the index with a flash; the row is gone (404)", async () => {
    const visitor = new Visitor(fixture.url);
    await visitor.get("/posts/new");
    const at = (await visitor.post("/posts", validPost)).location as string;
    await visitor.get(`${at}/delete`);
    const deleted = await visitor.post(at, { _method: "DELETE" });
    expect(deleted.status).toBe(303);
    expect(deleted.location).toBe("/posts");
    expect((await visitor.get("/posts")).html).toContain('<p class="flash">Post deleted.</p>');
    expect((await visitor.get(at)).status).toBe(404);
  });

  it("CSRF: a create without the token is refused with 403 and stores nothing", async () => {
    const visitor = new Visitor(fixture.url);
    await visitor.get("/posts/new");
    const before = (await visitor.get("/")).html;
    const refused = await visitor.post("/posts", validPost, false);
    expect(refused.status).toBe(403);
    expect((await visitor.get("/")).html).toBe(before);
  });

  it("an id that does not decode → 400; an unknown id → 404", async () => {
    expect((await fetch(`${fixture.url}/posts/abc`)).status).toBe(400);
    expect((await fetch(`${fixture.url}/posts/-1`)).status).toBe(400);
    expect((await fetch(`${fixture.url}/posts/987654`)).status).toBe(404);
    expect((await fetch(`${fixture.url}/posts/987654/edit`)).status).toBe(404);
  });

  it("issue 39, item 8: a text's limit counts characters (code points), in fw's check and typia's: 40 emoji fit a MaxLength<40>, 41 do not", async () => {
    const visitor = new Visitor(fixture.url);
    await visitor.get("/posts/new");
    const fits = await visitor.post("/posts", { ...validPost, summary: "\u{1F600}".repeat(40) });
    expect(fits.status).toBe(303);
    expect((await visitor.get(fits.location as string)).html).toContain("\u{1F600}".repeat(40));
    await visitor.get("/posts/new");
    const over = await visitor.post("/posts", { ...validPost, summary: "\u{1F600}".repeat(41) });
    expect(over.status).toBe(422);
    expect(over.html).toContain("Summary must be at most 40 characters long (this one has 41).");
  });

  it("issue 39, item 8: a key is read in digits alone: 0x1, 1e0, 1.0, 01, +1 and a space are a 400, not the row; so is one past uint32", async () => {
    const visitor = new Visitor(fixture.url);
    await visitor.get("/posts/new");
    const at = (await visitor.post("/posts", validPost)).location as string;
    const id = Number(at.split("/").pop());
    expect((await fetch(`${fixture.url}${at}`)).status).toBe(200);
    for (const spelled of [`0x${id.toString(16)}`, `${id}e0`, `${id}.0`, `0${id}`, `+${id}`, `%20${id}`, `${id}%20`]) {
      const answer = await fetch(`${fixture.url}/posts/${spelled}`);
      expect([spelled, answer.status]).toEqual([spelled, 400]);
      expect(await answer.text()).toContain("The path parameter &quot;id&quot; is not a valid Id&lt;Post&gt;.");
    }
    expect((await fetch(`${fixture.url}/posts/4294967296`)).status).toBe(400);
    expect((await fetch(`${fixture.url}/posts/4294967295`)).status).toBe(404);
    // A reference filter in the query, and a pre-selected reference, are keys too.
    expect((await fetch(`${fixture.url}/comments?post=0${id}`)).status).toBe(400);
    expect((await fetch(`${fixture.url}/comments?post=%20${id}`)).status).toBe(400);
    expect((await fetch(`${fixture.url}/comments?post=${id}`)).status).toBe(200);
    expect((await fetch(`${fixture.url}/comments/new?post=${id}.0`)).status).toBe(400);
  });

  it("a subtracted role answers 405 with Allow, and no page shows a control for it", async () => {
    const visitor = new Visitor(fixture.url);
    await visitor.get("/notes/new");
    const at = (await visitor.post("/notes", { text: "pinned one", pinned: "true" })).location as string;
    const show = await visitor.get(at);
    expect(show.html).not.toContain("Delete");
    expect(show.html).toContain(`<a href="${at}/edit" class="fw-edit">Edit</a>`);
    const refused = await visitor.post(at, { _method: "DELETE" });
    expect(refused.status).toBe(405);
    expect(refused.response.headers.get("allow")).toBe("GET, PUT, HEAD");
  });

  it("a handwritten page reads the model's store as a capability", async () => {
    const text = await (await fetch(`${fixture.url}/`)).text();
    expect(text).toMatch(/^\d+ posts$/);
  });

  it("the index paginates beyond 50 rows", async () => {
    const visitor = new Visitor(fixture.url);
    await visitor.get("/notes/new");
    for (let i = 0; i < 55; i++) expect((await visitor.post("/notes", { text: `note ${i}` })).status).toBe(303);
    const first = await visitor.get("/notes");
    expect(first.html.match(/<tr><td>/g)?.length).toBe(50);
    const next = /<a href="(\/notes\?after=[A-Za-z0-9_-]+)" rel="next">Next<\/a>/.exec(first.html)?.[1];
    expect(next).toBeDefined();
    const second = await visitor.get(next as string);
    expect(second.html).toContain("note 54");
    expect(second.html).not.toContain('rel="next"');
    expect(second.html).toMatch(/<a href="\/notes\?before=[A-Za-z0-9_-]+" rel="prev">Previous<\/a>/);
    expect((await visitor.get("/notes?page=2")).html).toContain("note 54");
    for (const bad of ["zero", "0", "-1", "1.5", "2e3", "", "99999999999"]) expect((await visitor.get(`/notes?page=${bad}`)).status, bad).toBe(400);
    const past = await visitor.get("/notes?page=9");
    expect(past.status).toBe(404);
    expect(past.html).toMatch(/There is no page 9 of notes: there are \d+ pages\./);
  });
});

describe("2.15 Every text field has a maximum length (docs/guides/models-and-forms.md)", () => {
  it("the build writes it into the field spec: 200 for string, 10,000 for LongText, or the type's tags.MaxLength<N>", async () => {
    const generated = await readFile(join(dir, "src/.fw/routes.ts"), "utf8");
    expect(generated).toContain('{"name":"title","label":"Title","optional":false,"input":"text","describe":"text","maxLength":200}');
    expect(generated).toContain('"name":"body","label":"Body","optional":false,"input":"textarea","describe":"text","maxLength":10000}');
    expect(generated).toContain('"name":"summary","label":"Summary","optional":true,"input":"text","describe":"text","maxLength":40}');
  });

  it("the form renders it as maxlength on each input", async () => {
    const blank = (await new Visitor(fixture.url).get("/posts/new")).html;
    expect(blank).toContain('name="title" type="text" value="" required maxlength="200"');
    expect(blank).toContain('name="body" required maxlength="10000" rows="6"');
    expect(blank).toContain('name="summary" type="text" value="" maxlength="40"');
  });

  it("a longer value is refused with 422 beside its field, and nothing is stored", async () => {
    const visitor = new Visitor(fixture.url);
    await visitor.get("/posts/new");
    const before = (await visitor.get("/")).html;
    const title = await visitor.post("/posts", { ...validPost, title: "t".repeat(201) });
    expect(title.status).toBe(422);
    expect(title.html).toContain('<p class="fw-field-error" id="post-title-error">Title must be at most 200 characters long (this one has 201).</p>');
    const body = await visitor.post("/posts", { ...validPost, body: "b".repeat(1_000_000) });
    expect(body.status).toBe(422);
    expect(body.html).toContain("Body must be at most 10,000 characters long (this one has 1,000,000).");
    const summary = await visitor.post("/posts", { ...validPost, summary: "s".repeat(41) });
    expect(summary.status).toBe(422);
    expect(summary.html).toContain("Summary must be at most 40 characters long (this one has 41).");
    expect((await visitor.get("/")).html).toBe(before);
    expect((await visitor.post("/posts", { ...validPost, title: "t".repeat(200), summary: "s".repeat(40) })).status).toBe(303);
  });

  it("a textarea's CRLF line breaks count as one, as the browser counted them against maxlength", async () => {
    const visitor = new Visitor(fixture.url);
    await visitor.get("/posts/new");
    const created = await visitor.post("/posts", { ...validPost, body: "ab\r\n".repeat(3_000) });
    expect(created.status).toBe(303);
  });
});

describe("4.3 Orphan form pages", () => {
  it("Edit without Update is warned about at boot and by `routes`, naming the page, the target and the fix", async () => {
    const message = /GET \/drafts\/:id\/edit \(from src\/models\/Draft\.ts\), the Edit page, shows a form that submits to PUT \/drafts\/:id, which is not mounted: mount Update, or subtract Edit as well/;
    expect(fixture.app.output().err).toMatch(message);
    const routes = await runNode(join(dir, "dist/main.js"), ["routes"]);
    expect(routes.out).toMatch(message);
    expect(routes.out).toMatch(/GET\s+\/posts\/new\s+src\/models\/Post\.ts\s+Resource\s+browser/);
  });
});

describe("Overriding one derived page with a handwritten file (issue 22, item 6)", () => {
  it("src/app/bookmarks/_id/Show.tsx replaces Bookmark's Show; New, Create, Index, Edit stay derived and still lead to it", async () => {
    const visitor = new Visitor(fixture.url);
    expect((await visitor.get("/bookmarks/new")).status).toBe(200);
    const created = await visitor.post("/bookmarks", { title: "fw", url: "https://example.org/fw" });
    expect([created.status, created.location]).toEqual([303, "/bookmarks/1"]);
    const show = await visitor.get("/bookmarks/1");
    expect(show.html).toContain('<h1>Bookmark: fw</h1><p class="handwritten">https://example.org/fw</p>');
    expect(show.html).not.toContain("fw-show");
    const index = await visitor.get("/bookmarks");
    expect(index.html).toContain('<a href="/bookmarks/1">Show</a>');
    expect((await visitor.get("/bookmarks/1/edit")).html).toContain('<a href="/bookmarks/1">Back to the bookmark</a>');
  });

  it("a deliberate override (the file at the derived page's very path) is not warned about at boot (issue 28 item 12)", () => {
    expect(fixture.app.output().err).not.toMatch(/bookmarks/);
  });
});

describe("Index sorted by a column (issue 22, item 6)", () => {
  it("?sort=field and ?sort=-field order the rows; the headings link to them and mark the current one", async () => {
    const visitor = new Visitor(fixture.url);
    await visitor.get("/comments/new");
    for (const [post, text] of [["3", "sort-m"], ["1", "sort-Z"], ["2", "sort-a"]] as const) {
      expect((await visitor.post("/comments", { post, text })).status).toBe(303);
    }
    const order = (html: string): string[] => [...html.matchAll(/<td>(sort-[a-zA-Z])<\/td>/g)].map((m) => m[1] as string);
    expect(order((await visitor.get("/comments")).html)).toEqual(["sort-m", "sort-Z", "sort-a"]); // key order
    const byText = await visitor.get("/comments?sort=text");
    expect(order(byText.html)).toEqual(["sort-Z", "sort-a", "sort-m"]);
    expect(byText.html).toContain('<th scope="col" aria-sort="ascending"><a href="/comments?sort=-text">Text</a> ▲</th>');
    expect(byText.html).toContain('<th scope="col"><a href="/comments?sort=post">Post</a></th>');
    expect(order((await visitor.get("/comments?sort=-text")).html)).toEqual(["sort-m", "sort-a", "sort-Z"]);
    expect(order((await visitor.get("/comments?sort=-post")).html)).toEqual(["sort-m", "sort-a", "sort-Z"]);
  });

  it("a sort by anything but a shown field is a 400 naming the ones it may be; the key and unknown names included", async () => {
    for (const bad of ["id", "nope", "--text", "", "constructor"]) {
      const refused = await fetch(`${fixture.url}/comments?sort=${encodeURIComponent(bad)}`);
      expect(refused.status, bad).toBe(400);
      expect(await refused.text()).toContain("sort by one of post, text");
    }
  });

  it("the pager keeps the sort", async () => {
    const visitor = new Visitor(fixture.url);
    const page = await visitor.get("/notes?sort=-text");
    expect(page.html).toMatch(/<a href="\/notes\?sort=-text&amp;after=[A-Za-z0-9_-]+" rel="next">Next<\/a>/);
  });
});

describe("Issue 39, item 8: a whole-number field, through the build", () => {
  it("number & tags.Type<\"uint32\"> renders step=1 with its range, takes digits alone, and says what 07 or 2^32 is", async () => {
    const visitor = new Visitor(fixture.url);
    const blank = await visitor.get("/tasks/new");
    expect(blank.html).toContain('name="priority" type="number" step="1" min="0" max="4294967295" value=""');
    for (const [typed, message] of [
      ["07", "Priority could not be read as a whole number (digits alone: 7, not 07, 7.0 or +7)."],
      ["7.0", "Priority could not be read as a whole number (digits alone: 7, not 07, 7.0 or +7)."],
      ["4294967296", "Priority must be a whole number from 0 to 4,294,967,295."],
    ] as const) {
      const refused = await visitor.post("/tasks", { title: "Ranked", priority: typed });
      expect([typed, refused.status]).toEqual([typed, 422]);
      expect(refused.html).toContain(message);
      await visitor.get("/tasks/new");
    }
    const created = await visitor.post("/tasks", { title: "Ranked", priority: "7" });
    expect(created.status).toBe(303);
    expect((await visitor.get(created.location as string)).html).toContain("<dt>Priority</dt><dd>7</dd>");
  });
});

describe("Server-set fields (issue 22, item 6)", () => {
  it("createdAt, updatedAt and a readonly field are not in the form; Create and Update stamp the times, a posted value is ignored", async () => {
    const visitor = new Visitor(fixture.url);
    const blank = await visitor.get("/tasks/new");
    expect(blank.html).toContain('name="title"');
    for (const field of ["createdAt", "updatedAt", "views"]) expect(blank.html).not.toContain(`name="${field}"`);
    const before = Date.now();
    const created = await visitor.post("/tasks", { title: "Stamp me", createdAt: "1999-01-01", views: "1000" });
    expect(created.status).toBe(303);
    const stamp = (html: string, label: string): number => {
      const text = new RegExp(`<dt>${label}</dt><dd>(\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}) UTC</dd>`).exec(html)?.[1];
      return Date.parse(`${text}:00Z`);
    };
    const show = (await visitor.get(created.location as string)).html;
    expect(stamp(show, "Created at")).toBeGreaterThanOrEqual(Math.floor(before / 60_000) * 60_000);
    expect(show).toContain("<dt>Views</dt><dd></dd>");
    const edit = await visitor.get(`${created.location as string}/edit`);
    expect(edit.html).not.toContain('name="createdAt"');
    expect((await visitor.post(created.location as string, { _method: "PUT", title: "Stamped", createdAt: "1999-01-01" })).status).toBe(303);
    const after = (await visitor.get(created.location as string)).html;
    expect(after).toContain("<dd>Stamped</dd>");
    expect(stamp(after, "Created at")).toBe(stamp(show, "Created at"));
    expect(stamp(after, "Updated at")).toBeGreaterThanOrEqual(stamp(show, "Created at"));
    expect((await visitor.get("/tasks")).html).toContain('<a href="/tasks?sort=createdAt">Created at</a>');
  });

  it("the build leaves them out of the form's validator and marks them in the field specs", async () => {
    const generated = await readFile(join(dir, "src/.fw/routes.ts"), "utf8");
    expect(generated).toMatch(/createValidate<Omit<m\d+\.Task, "id" \| "createdAt" \| "updatedAt" \| "views">>/);
    expect(generated).toContain('"name":"createdAt","label":"Created at","optional":false,"input":"date","describe":"a date (YYYY-MM-DD)","serverSet":"createdAt"');
    expect(generated).toContain('"serverSet":"readOnly"');
  });
});

describe("A reference to another model's row", () => {
  it("is a select of the posts labelled by their titles; text naming no post is refused beside the field; Show links the post (issue 29)", async () => {
    const visitor = new Visitor(fixture.url);
    const blank = await visitor.get("/comments/new");
    expect(blank.html).toMatch(/<select id="comment-post" name="post" required><option value="" selected>Choose…<\/option><option value="\d+">/);
    const refused = await visitor.post("/comments", { post: "first", text: "hi" });
    expect(refused.status).toBe(422);
    expect(refused.html).toContain("There is no such post.");
    const created = await visitor.post("/comments", { post: "1", text: "hi" });
    expect(created.status).toBe(303);
    expect((await visitor.get(created.location as string)).html).toMatch(/<dt>Post<\/dt><dd><a href="\/posts\/1">[^<]+<\/a><\/dd>/);
  });
});

describe("Verified paths (issue 31 item 1)", () => {
  it("a page's links built by the generated path() and action() are the table's paths, each value encoded, the query after them", async () => {
    const page = await new Visitor(fixture.url).get("/links");
    expect(page.status).toBe(200);
    const hrefs = [...page.html.matchAll(/(?:href|action)="([^"]*)" class="(\w+)"/g)].map(([, href, name]) => `${name} ${href}`);
    expect(hrefs).toEqual(["show /posts/7", "edit /posts/7/edit", "new /comments/new?post=7&amp;note=a%20b%26c", "bookmark /bookmarks/3", "update /posts/7"]);
    // The generated builder knows the handwritten Show's own type, and leaves out the roles a model does not mount.
    const builder = await readFile(join(dir, "src/.fw/paths.ts"), "utf8");
    expect(builder).toContain('"/bookmarks/:id": { readonly id: number };');
    expect(builder).toContain('"/posts/:id": { readonly id: import("../models/Post.js").Post["id"] };');
    expect(builder).not.toContain('"/notes/:id/delete"');
  });
});

describe("Issue 43, item 4: the derived Index's filters, page size and keyset paging, all in the URL", () => {
  /** The titles of an Index page's rows, in order (the first column). */
  const titles = (html: string): string[] => [...html.matchAll(/<tr><td>([^<]*)<\/td>/g)].map((m) => m[1] as string);
  const nextOf = (html: string): string | undefined => /<a href="([^"]+)" rel="next">Next<\/a>/.exec(html)?.[1]?.replaceAll("&amp;", "&");
  const prevOf = (html: string): string | undefined => /<a href="([^"]+)" rel="prev">Previous<\/a>/.exec(html)?.[1]?.replaceAll("&amp;", "&");
  const detail = (html: string): string => /<p class="fw-problem-detail">([^<]*)<\/p>/.exec(html)?.[1] ?? html;

  it("filters derived from the type: a select for a union, a checkbox for a yes/no, a date range; a GET form that keeps them, and Clear", async () => {
    const visitor = new Visitor(fixture.url);
    await visitor.get("/posts/new");
    const made: Record<string, string>[] = [
      { title: "F1 news on", category: "news", published: "true", publishedOn: "2031-03-01" },
      { title: "F2 misc off", category: "misc", publishedOn: "2031-03-15" },
      { title: "F3 misc on", category: "misc", published: "true", publishedOn: "2031-04-01" },
      { title: "F4 misc on undated", category: "misc", published: "true" },
    ];
    for (const post of made) expect((await visitor.post("/posts", { body: "b", ...post })).status).toBe(303);
    const page = (path: string) => visitor.get(path).then((answer) => answer.html);
    const html = await page("/posts?category=misc&published=true&publishedOn.from=2031-01-01&publishedOn.to=2031-12-31");
    expect(titles(html)).toEqual(["F3 misc on"]);
    expect(html).toContain('<form method="get" action="/posts" class="fw-filters" role="search">');
    expect(html).toContain('<select name="category"><option value="">Any</option><option value="news">news</option><option value="howto">howto</option><option value="misc" selected>misc</option></select>');
    expect(html).toContain('<input type="checkbox" name="published" value="true" checked>');
    expect(html).toContain('<input type="date" name="publishedOn.from" value="2031-01-01">');
    expect(html).toContain('<a href="/posts" class="fw-clear">Clear</a>');
    // The range is inclusive: both ends' days count; an empty field (as a form sends it) is no filter.
    expect(titles(await page("/posts?publishedOn.from=2031-03-01&publishedOn.to=2031-03-15&category=&published="))).toEqual(["F1 news on", "F2 misc off"]);
    expect(titles(await page("/posts?category=misc&published=false&publishedOn.from=2031-01-01"))).toEqual(["F2 misc off"]);
    // Sort links keep the filters; a filter keeps the sort (a hidden field).
    const sorted = await page("/posts?category=misc&sort=-title");
    expect(sorted).toContain('<a href="/posts?category=misc&amp;sort=title">Title</a>');
    expect(sorted).toContain('<input type="hidden" name="sort" value="-title">');
    expect(titles(sorted).filter((t) => t.startsWith("F"))).toEqual(["F4 misc on undated", "F3 misc on", "F2 misc off"]);
    expect(await page("/posts?category=misc&title=x")).toContain("takes no parameter");
  });

  it("a bad filter, size, sort or cursor, an unknown parameter or one given twice is a 400 naming it", async () => {
    const visitor = new Visitor(fixture.url);
    const refusals: [string, RegExp][] = [
      ["/posts?category=gossip", /filtered by category \(\?category=\) with one of news, howto, misc, not &quot;gossip&quot;/],
      ["/posts?published=yes", /filtered by published \(\?published=\) with true or false, not &quot;yes&quot;/],
      ["/posts?publishedOn.from=2031-02-30", /\(\?publishedOn\.from=\) with a date \(YYYY-MM-DD\), not &quot;2031-02-30&quot;/],
      ["/posts?size=1000", /shows 10, 25, 50, 100 rows a page \(\?size=25\), not &quot;1000&quot;/],
      ["/posts?nope=1", /The index of posts takes no parameter &quot;nope&quot;: it takes sort, size, after, before, page, q, published, category, publishedOn\.from, publishedOn\.to\./],
      ["/posts?category=news&category=misc", /\?category= of the index of posts is given 2 times; it takes one value/],
      ["/posts?after=forged", /The page cursor \?after= is not one this list wrote for its sort/],
      [`/posts?after=${Buffer.from('["x", 1]').toString("base64url")}`, /The page cursor \?after= is not one/],
      [`/posts?sort=title&after=${Buffer.from("[7]").toString("base64url")}`, /The page cursor \?after= is not one/],
      [`/posts?after=${Buffer.from("[0]").toString("base64url")}`, /The page cursor \?after= is not one/],
      [`/posts?after=${Buffer.from("[1]").toString("base64url")}&before=${Buffer.from("[1]").toString("base64url")}`, /takes \?after= or \?before=, not both/],
    ];
    for (const [path, message] of refusals) {
      const answer = await visitor.get(path);
      expect(answer.status, path).toBe(400);
      expect(detail(answer.html), path).toMatch(message);
    }
  });

  it("keyset pages of any size: Next and Previous by the sort key, stable while rows are added, the filters and size kept", async () => {
    const visitor = new Visitor(fixture.url);
    await visitor.get("/posts/new");
    for (let i = 1; i <= 23; i++) expect((await visitor.post("/posts", { title: `K${String(i).padStart(2, "0")}`, body: "b", category: "howto", publishedOn: "2032-01-01" })).status).toBe(303);
    const base = "/posts?publishedOn.from=2032-01-01&sort=title&size=10";
    const first = await visitor.get(base);
    expect(titles(first.html)).toEqual(["K01", "K02", "K03", "K04", "K05", "K06", "K07", "K08", "K09", "K10"]);
    expect(first.html).toContain("<span>23 posts</span>");
    expect(first.html).toContain('<option value="10" selected>10</option>');
    const next = nextOf(first.html) as string;
    expect(next).toMatch(/^\/posts\?publishedOn\.from=2032-01-01&sort=title&size=10&after=[A-Za-z0-9_-]+$/);
    // Rows added before the cursor do not shift the next page.
    await visitor.post("/posts", { title: "K00", body: "b", category: "howto", publishedOn: "2032-01-01" });
    await visitor.post("/posts", { title: "K05b", body: "b", category: "howto", publishedOn: "2032-01-01" });
    const second = await visitor.get(next);
    expect(titles(second.html)).toEqual(["K11", "K12", "K13", "K14", "K15", "K16", "K17", "K18", "K19", "K20"]);
    const third = await visitor.get(nextOf(second.html) as string);
    expect(titles(third.html)).toEqual(["K21", "K22", "K23"]);
    expect(nextOf(third.html)).toBeUndefined();
    const back = await visitor.get(prevOf(third.html) as string);
    expect(titles(back.html)).toEqual(titles(second.html));
    const front = await visitor.get(prevOf(back.html) as string);
    expect(titles(front.html)).toEqual(["K02", "K03", "K04", "K05", "K05b", "K06", "K07", "K08", "K09", "K10"]);
    expect(prevOf(front.html)).toBeDefined();
    const start = await visitor.get(prevOf(front.html) as string);
    expect(titles(start.html)).toEqual(["K00", "K01"]);
    expect(prevOf(start.html)).toBeUndefined();
  });

  it("a model's own sort (the companion's sort: \"-createdAt\"): newest first, ties by the key the same way", async () => {
    const visitor = new Visitor(fixture.url);
    await visitor.get("/tasks/new");
    for (const title of ["S-first", "S-second", "S-third"]) expect((await visitor.post("/tasks", { title })).status).toBe(303);
    const listed = titles((await visitor.get("/tasks")).html).filter((t) => t.startsWith("S-"));
    expect(listed).toEqual(["S-third", "S-second", "S-first"]);
    const generated = await readFile(join(dir, "src/.fw/routes.ts"), "utf8");
    expect(generated).toContain('sort: {"field":"createdAt","descending":true},');
  });
});

describe("Issue 43, item 2: the derived Index's search box (the companion's search: [\"title\", \"body\"])", () => {
  const titles = (html: string): string[] => [...html.matchAll(/<tr><td>(.*?)<\/td>/g)].map((m) => (m[1] as string).replace(/<\/?mark>/g, ""));
  const nextOf = (html: string): string | undefined => /<a href="([^"]+)" rel="next">Next<\/a>/.exec(html)?.[1]?.replaceAll("&amp;", "&");
  const detail = (html: string): string => /<p class="fw-problem-detail">([^<]*)<\/p>/.exec(html)?.[1] ?? html;

  it("ranked rows (a title's match above a body's), snippets marked and escaped, filters kept, paged by number", async () => {
    const visitor = new Visitor(fixture.url);
    await visitor.get("/posts/new");
    const made = [
      { title: "Zebra notes", body: "Nothing about <b>lanterns</b> here: a lantern, at most", category: "misc" },
      { title: "Lantern repair", body: "Fix the lanterns", category: "howto" },
      { title: "Lantern festival", body: "News of it", category: "news" },
    ];
    for (const post of made) expect((await visitor.post("/posts", post)).status).toBe(303);
    const found = await visitor.get("/posts?q=lanterns");
    expect(found.status).toBe(200);
    expect(found.html).toContain('<label class="fw-search">Search posts <input type="search" name="q" value="lanterns" maxlength="200"></label>');
    expect(titles(found.html)).toEqual(["Lantern repair", "Lantern festival", "Zebra notes"]);
    expect(found.html).toContain("<td><mark>Lantern</mark> repair</td>");
    expect(found.html).toContain("Nothing about &lt;b&gt;<mark>lanterns</mark>&lt;/b&gt; here: a <mark>lantern</mark>, at most");
    expect(titles((await visitor.get("/posts?q=lantern&category=news")).html)).toEqual(["Lantern festival"]);
    expect(titles((await visitor.get("/posts?q=lantern+-festival")).html)).toEqual(["Lantern repair", "Zebra notes"]);
    // Ranked results page by number: ?page=2 of a search is its next ten.
    await visitor.get("/posts/new");
    for (let i = 0; i < 10; i++) expect((await visitor.post("/posts", { title: `Lantern ${i}`, body: "b", category: "misc" })).status).toBe(303);
    const page = await visitor.get("/posts?q=lantern&size=10");
    expect(page.html).toContain("<span>13 posts</span>");
    const next = nextOf(page.html) as string;
    expect(next).toBe("/posts?q=lantern&size=10&page=2");
    const second = await visitor.get(next);
    expect(titles(second.html)).toHaveLength(3);
    expect(new Set([...titles(page.html), ...titles(second.html)]).size).toBe(13);
    expect((await visitor.get("/posts?q=nothingmatchesthis")).html).toContain("No posts match.");
  });

  it("what is typed gets an answer, never a 500: tsquery syntax, quotes, a NUL, only stop words; longer than 200 characters is a 400 saying so", async () => {
    const visitor = new Visitor(fixture.url);
    for (const q of ["lantern & | ! :* ( ) <->", '"lantern', "' OR 1=1 --", "lan\u0000tern", "the and of", "\\"]) {
      const answer = await visitor.get(`/posts?q=${encodeURIComponent(q)}`);
      expect(answer.status, q).toBe(200);
    }
    const long = await visitor.get(`/posts?q=${"x".repeat(1000)}`);
    expect(long.status).toBe(400);
    expect(detail(long.html)).toMatch(/The search of posts takes at most 200 characters; this one has 1000\./);
    // 10 KB of it is past what the server reads of a request's target: 414, before any handler.
    expect((await visitor.get(`/posts?q=${"x".repeat(10_000)}`)).status).toBe(414);
    const cursor = await visitor.get(`/posts?q=lantern&after=${Buffer.from("[1]").toString("base64url")}`);
    expect(cursor.status).toBe(400);
    expect(detail(cursor.html)).toBe("The search of posts pages by ?page=, not by ?after= (its results are ranked, not sorted).");
  });
});
