import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Visitor } from "../support/browser.js";
import { htmlErrors } from "../support/html-validate.js";
import { serve, type Served } from "../support/serve.js";
import { relationsTable, type Post, type RelationsSpecs, type RelationsStores } from "./relations-app.js";

/** What one engine gives the suite: the models' specs and stores (empty tables). */
export interface RelationsSetup {
  readonly specs: RelationsSpecs;
  readonly stores: RelationsStores;
}

/** The text of an HTML page's `<p class="fw-problem-detail">` (a problem page), or the page. */
function detail(html: string): string {
  return (/<p class="fw-problem-detail">([^<]*)<\/p>/.exec(html)?.[1] ?? html).replace(/&quot;/g, '"').replace(/&#39;/g, "'");
}

/** The HTML of one `<select name=…>` of a page. */
function select(html: string, name: string): string {
  return new RegExp(`<select[^>]* name="${name}"[^>]*>.*?</select>`, "s").exec(html)?.[0] ?? `(no select ${name} in the page)`;
}

/** The text of a field's message (`<p class="fw-field-error" id="<model>-<field>-error">`). */
function fieldError(html: string, id: string): string | undefined {
  return new RegExp(`<p class="fw-field-error" id="${id}-error">([^<]*)</p>`).exec(html)?.[1]?.replace(/&quot;/g, '"').replace(/&#39;/g, "'");
}

/**
 * The derived pages of models that point at each other (issue 29, items 2-5), the same on every
 * engine: pickers of readable rows, "There is no such post." for a missing or hidden one,
 * labels and links, Index filters, Show's lists of referencing rows, what a delete does.
 */
export function relationsPagesSuite(engine: string, make: () => Promise<RelationsSetup>, options: { readonly validate?: boolean } = {}): void {
  describe(`issue 29, the pages of references (${engine})`, () => {
    let app: Served;
    let stores: RelationsStores;
    const ids = { ada: 0, grace: 0, hello: 0, draft: 0, other: 0, onDraft: 0 };
    // Alice (user 1) owns "Hello" and the draft; Bob (user 2) owns "Other" and may not read the draft.
    const alice = () => new Visitor(app.url, { "x-user": "1" });
    const bob = () => new Visitor(app.url, { "x-user": "2" });
    /** Runs once, inside the next comment insert, before it writes: a race with another request. */
    let race: (() => Promise<unknown>) | undefined;

    beforeAll(async () => {
      const setup = await make();
      stores = setup.stores;
      const comments = setup.stores.comments;
      const racing = new Proxy(comments, {
        get(target, name) {
          if (name === "insert") {
            return async (draft: Parameters<typeof comments.insert>[0]) => {
              const first = race;
              race = undefined;
              await first?.();
              return target.insert(draft);
            };
          }
          const value: unknown = Reflect.get(target, name, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      app = await serve({ routes: relationsTable(setup.specs, { ...stores, comments: racing }) });
      // Inserted Grace first: the pickers sort by label, not by key.
      ids.grace = (await stores.authors.insert({ name: "Grace" })).id;
      ids.ada = (await stores.authors.insert({ name: "Ada" })).id;
      const post = (owner: string, draft: Partial<Post>) => stores.posts.for(owner).insert(draft).then((row) => row.id);
      ids.hello = await post("1", { title: "Hello", author: ids.grace, published: true });
      ids.draft = await post("1", { title: "Secret draft", author: ids.ada, published: false });
      ids.other = await post("2", { title: "Other", author: ids.ada, published: true });
      ids.onDraft = (await stores.comments.insert({ post: ids.draft, body: "a note on the draft" })).id;
    }, 60_000);
    afterAll(() => app?.close());

    it("issue 43: the Index's search finds only what the viewer may read (a draft is its owner's), ranked, marked, beside a filter", async () => {
      const rows = (html: string): string[] => [...html.matchAll(/<tr><td>(.*?)<\/td>/g)].map((m) => m[1] as string);
      expect(rows((await bob().get("/posts?q=secret+drafts")).html)).toEqual([]);
      expect((await bob().get("/posts?q=secret")).html).toContain("No posts match.");
      expect(rows((await alice().get("/posts?q=secret+drafts")).html)).toEqual(["<mark>Secret</mark> <mark>draft</mark>"]);
      expect(rows((await bob().get("/posts?q=hello+or+secret")).html)).toEqual(["<mark>Hello</mark>"]);
      expect(rows((await alice().get("/posts?q=hello+or+secret")).html).sort()).toEqual(["<mark>Hello</mark>", "<mark>Secret</mark> draft"]);
      expect(rows((await alice().get(`/posts?q=hello+or+secret&author=${ids.ada}`)).html)).toEqual(["<mark>Secret</mark> draft"]);
      // "other" is a stop word: alone it finds nothing, and nothing fails.
      expect((await bob().get("/posts?q=other")).html).toContain("No posts match.");
      const typed = await bob().get(`/posts?q=${encodeURIComponent("' OR 1=1 -- & | ! :*")}`);
      expect(typed.status).toBe(200);
    });

    it("a reference is a select of the rows the viewer may read, labelled and sorted by label, an empty choice first", async () => {
      const form = await alice().get("/posts/new");
      expect(select(form.html, "author")).toBe(
        `<select id="post-author" name="author" required><option value="" selected>Choose…</option><option value="${ids.ada}">Ada</option><option value="${ids.grace}">Grace</option></select>`,
      );
      const bobs = (await bob().get("/comments/new")).html;
      expect(select(bobs, "post")).toContain(`<option value="${ids.hello}">Hello</option>`);
      expect(select(bobs, "post")).toContain(`<option value="${ids.other}">Other</option>`);
      expect(bobs).not.toContain("Secret draft");
      expect(select(bobs, "seeAlso")).toMatch(/^<select id="comment-seeAlso" name="seeAlso"><option value="" selected>\(none\)<\/option>/);
      expect(select((await alice().get("/comments/new")).html, "post")).toContain(`<option value="${ids.draft}">Secret draft</option>`);
    });

    it("/comments/new?post=7 pre-selects a readable post; a hidden one is not; a value that is no key is a 400 naming the field", async () => {
      expect(select((await bob().get(`/comments/new?post=${ids.hello}`)).html, "post")).toContain(`<option value="${ids.hello}" selected>Hello</option>`);
      const hidden = await bob().get(`/comments/new?post=${ids.draft}`);
      expect(hidden.status).toBe(200);
      expect(select(hidden.html, "post")).toContain(`<option value="" selected>Choose…</option>`);
      expect(hidden.html).not.toContain("Secret draft");
      const bad = await bob().get("/comments/new?post=abc");
      expect(bad.status).toBe(400);
      expect(detail(bad.html)).toBe(`The new comment form's ?post= pre-selects its post by number (a whole number from 1), not "abc".`);
    });

    it("a reference to a row that does not exist or that the viewer may not read is 422 beside the field, in the same words", async () => {
      const visitor = bob();
      await visitor.get("/comments/new");
      for (const post of ["999999", String(ids.draft)]) {
        const refused = await visitor.post("/comments", { post, body: "hi" });
        expect(refused.status).toBe(422);
        expect(fieldError(refused.html, "comment-post")).toBe("There is no such post.");
        expect(refused.html).toContain(`<select id="comment-post" name="post" aria-invalid="true" aria-describedby="comment-post-error" required>`);
        expect(refused.html).not.toContain("Secret draft");
      }
      // Text that is no key and no label's start is the same.
      expect(fieldError((await visitor.post("/comments", { post: "no such title", body: "hi" })).html, "comment-post")).toBe("There is no such post.");
      const owner = alice();
      await owner.get("/comments/new");
      expect((await owner.post("/comments", { post: String(ids.draft), body: "mine" })).status).toBe(303);
    });

    it("a post deleted between the check and the write (the store's MissingReference) is the same 422 beside the field", async () => {
      const doomed = (await stores.posts.for("2").insert({ title: "Doomed", author: ids.ada, published: true })).id;
      const visitor = bob();
      await visitor.get("/comments/new");
      race = () => stores.posts.delete(doomed);
      const refused = await visitor.post("/comments", { post: String(doomed), body: "too late" });
      expect(race).toBeUndefined();
      expect(refused.status).toBe(422);
      expect(fieldError(refused.html, "comment-post")).toBe("There is no such post.");
      expect(refused.html).toContain('value="too late"');
    });

    it("Index shows a reference as a link to the target's Show with its label, and a row the viewer may not read as \"Post 7\"", async () => {
      await stores.comments.insert({ post: ids.hello, body: "first!", seeAlso: ids.other });
      const index = (await bob().get("/comments")).html;
      expect(index).toContain(`<td><a href="/posts/${ids.hello}">Hello</a></td><td>first!</td><td><a href="/posts/${ids.other}">Other</a></td>`);
      // A comment is readable with its post (readableWith): Bob does not see the draft's comments, nor its Show.
      expect(index).not.toContain("a note on the draft");
      expect((await bob().get(`/comments/${ids.onDraft}`)).status).toBe(404);
      expect((await alice().get("/comments")).html).toContain("a note on the draft");
      // Review has no readableWith: a review of the draft is listed, its post named by number only.
      await stores.reviews.insert({ post: ids.draft, reviewer: "Rita", stars: 2 });
      const reviews = (await bob().get("/reviews")).html;
      expect(reviews).toContain(`<td>Post ${ids.draft}</td><td>Rita</td>`);
      expect(reviews).not.toContain("Secret draft");
      expect((await alice().get("/reviews")).html).toContain(`<td><a href="/posts/${ids.draft}">Secret draft</a></td><td>Rita</td>`);
      // Show labels its references too (the author's name, linked).
      expect((await bob().get(`/posts/${ids.hello}`)).html).toContain(`<dt>Author</dt><dd><a href="/authors/${ids.grace}">Grace</a></dd>`);
    });

    it("Index filters by a reference (/comments?post=7): the heading names it, sort and New links keep it; a bad value is a 400", async () => {
      await stores.comments.insert({ post: ids.other, body: "on other" });
      const filtered = (await bob().get(`/comments?post=${ids.hello}`)).html;
      expect(filtered).toContain("<h1>Comments of Hello</h1>");
      expect(filtered).toContain("first!");
      expect(filtered).not.toContain("on other");
      expect(filtered).toContain(`<a href="/comments?post=${ids.hello}&amp;sort=body">Body</a>`);
      expect(filtered).toContain(`<a href="/comments/new?post=${ids.hello}" class="fw-new">New comment</a>`);
      // Filtered by a post Bob may not read: no rows, and no title.
      const hidden = (await bob().get(`/comments?post=${ids.draft}`)).html;
      expect(hidden).toContain(`<h1>Comments of post ${ids.draft}</h1>`);
      expect(hidden).toContain("No comments match.");
      expect(hidden).not.toContain("Draft");
      const bad = await bob().get("/comments?post=abc");
      expect(bad.status).toBe(400);
      expect(detail(bad.html)).toBe('The index of comments is filtered by post (?post=) with the number of a post (a whole number from 1: /comments?post=7), not "abc".');
    });

    it("Show lists the rows pointing here, per model and field, with an Add link pre-filling the reference; paged by 20", async () => {
      const show = (await bob().get(`/posts/${ids.other}`)).html;
      expect(show).toContain(`<section class="fw-related" id="comments"><h2>Comments</h2><table class="fw-index"><thead><tr><th scope="col">Body</th><th scope="col">See also</th>`);
      expect(show).toContain(`<a href="/comments/new?post=${ids.other}" class="fw-new">Add a comment</a>`);
      // Comment points at posts twice: its second field has a section of its own, without the column pointing back.
      expect(show).toMatch(new RegExp(`<section class="fw-related" id="comments-see-also"><h2>Comments \\(see also\\)</h2><table class="fw-index"><thead><tr><th scope="col">Post</th><th scope="col">Body</th><th`));
      expect(show).toContain(`<a href="/comments/new?seeAlso=${ids.other}" class="fw-new">Add a comment</a>`);
      expect(show).toContain(`<section class="fw-related" id="reviews"><h2>Reviews</h2><p class="fw-empty">No reviews yet.</p><p><a href="/reviews/new?post=${ids.other}" class="fw-new">Add a review</a></p></section>`);
      for (let n = 1; n <= 22; n++) await stores.comments.insert({ post: ids.other, body: `comment ${String(n).padStart(2, "0")}` });
      const first = (await bob().get(`/posts/${ids.other}`)).html;
      // Key order: "on other" and comments 01-19 on the first page.
      expect(first).toContain("comment 19");
      expect(first).not.toContain("comment 20");
      expect(first).toContain(`<a href="/posts/${ids.other}?comments_page=2#comments" rel="next">Next</a>`);
      const second = (await bob().get(`/posts/${ids.other}?comments_page=2`)).html;
      expect(second).toContain("comment 22");
      expect(second).not.toContain("comment 19");
      const bad = await bob().get(`/posts/${ids.other}?comments_page=x`);
      expect(bad.status).toBe(400);
      expect(detail(bad.html)).toBe('The page number ?comments_page= "x" is not a whole number from 1 up.');
    });

    it("a duplicate of a unique of two fields is 422 beside the first, naming both", async () => {
      const visitor = bob();
      await visitor.get("/reviews/new");
      expect((await visitor.post("/reviews", { post: String(ids.hello), reviewer: "Rex", stars: "4" })).status).toBe(303);
      const again = await visitor.post("/reviews", { post: String(ids.hello), reviewer: "Rex", stars: "5" });
      expect(again.status).toBe(422);
      expect(fieldError(again.html, "review-post")).toBe("Another review already has this post and reviewer: they must differ from every other review's together. Change one of them.");
    });

    it("a delete that restricting rows block: the confirm page says why and offers no button; Destroy answers 409 naming them", async () => {
      const visitor = alice();
      const confirm = await visitor.get(`/posts/${ids.hello}/delete`);
      expect(confirm.status).toBe(200);
      expect(confirm.html).toContain(
        `<p class="fw-blocked">This post cannot be deleted: <a href="/reviews?post=${ids.hello}">1 review</a> still points at it. Delete them or change what they point at first.</p>`,
      );
      expect(confirm.html).not.toContain("Delete post</button>");
      await visitor.get("/posts/new"); // a page with a form, for its CSRF token
      const refused = await visitor.post(`/posts/${ids.hello}`, { _method: "DELETE" });
      expect(refused.status).toBe(409);
      expect(refused.html).toContain(`<h1>Hello cannot be deleted</h1>`);
      expect(refused.html).toContain(`<a href="/reviews?post=${ids.hello}">1 review</a> still points at it.`);
      expect((await stores.posts.get(ids.hello))?.title).toBe("Hello");
      // An author with posts (drafts too: every row counts) cannot go either.
      expect((await visitor.get(`/authors/${ids.ada}/delete`)).html).toContain(`This author cannot be deleted: <a href="/posts?author=${ids.ada}">2 posts</a> still point at it.`);
    });

    it("a delete that cascades: the confirm page says what goes with it and what is cleared; then the rows are gone", async () => {
      const visitor = alice();
      const review = (await stores.reviews.list({ offset: 0, limit: 10, where: { post: ids.hello } })).rows[0];
      if (review === undefined) throw new Error("the fixture's review of hello is missing");
      await stores.reviews.delete(review.id);
      await stores.comments.insert({ post: ids.other, body: "see hello", seeAlso: ids.hello });
      const confirm = await visitor.get(`/posts/${ids.hello}/delete`);
      expect(confirm.html).toContain(`<p class="fw-confirm">This post will be deleted for good.</p><p class="fw-cascade">Its 1 comment will be deleted too.</p><p class="fw-set-null">1 comment will stay, without its see also.</p>`);
      expect(confirm.html).toContain("Delete post</button>");
      expect((await visitor.post(`/posts/${ids.hello}`, { _method: "DELETE" })).status).toBe(303);
      expect((await stores.comments.list({ offset: 0, limit: 10, where: { post: ids.hello } })).total).toBe(0);
      const kept = (await stores.comments.list({ offset: 0, limit: 50, where: { post: ids.other } })).rows.find((c) => c.body === "see hello");
      expect(kept?.seeAlso).toBeUndefined();
    });

    it("more than 100 readable rows: a search input (a key, or a label's start) resolved on submit; several matches come back as a select", async () => {
      for (let n = 1; n <= 110; n++) await stores.authors.insert({ name: `Writer ${String(n).padStart(3, "0")}` });
      const visitor = alice();
      const form = await visitor.get("/posts/new");
      expect(form.html).toMatch(/<input id="post-author" name="author" aria-describedby="post-author-hint" type="search" value="" required autocomplete="off" data-fw-pick="\/fw\/pick\/authors"\/?>/);
      expect(form.html).toContain(`<p class="fw-field-hint" id="post-author-hint">Type an author&#39;s name (or its start), or its number.</p>`);
      expect(form.html).toMatch(/<script src="\/fw\/picker\.js\?v=[0-9a-f]{10}" defer><\/script>/);
      const post = (author: string) => visitor.post("/posts", { title: `by ${author}`, author, published: "true" });
      const byName = await post("ada");
      expect(byName.status).toBe(303);
      expect((await stores.posts.get(Number(byName.location?.split("/").pop())))?.author).toBe(ids.ada);
      const several = await post("Writer 01");
      expect(several.status).toBe(422);
      expect(fieldError(several.html, "post-author")).toBe('Several authors match "Writer 01": choose one.');
      expect(select(several.html, "author").match(/<option value="\d+">Writer 01\d<\/option>/g)).toHaveLength(10);
      expect(fieldError((await post("Writer")).html, "post-author")).toBe('More than 100 authors match "Writer": type more of the name, or the number.');
      expect(fieldError((await post("Nobody")).html, "post-author")).toBe("There is no such author.");
      const byKey = await post(String(ids.grace));
      expect(byKey.status).toBe(303);
      const edit = await visitor.get(`${byKey.location}/edit`);
      expect(edit.html).toContain(`value="${ids.grace}" required autocomplete="off" data-fw-pick="/fw/pick/authors" data-fw-label="Grace"`);
      expect(edit.html).toContain(`Chosen: <span class="fw-chosen">Grace</span>.`);
    });

    it("GET /fw/pick/<path>?q= suggests readable rows as JSON (a key, then labels starting with q), 20 at most; /fw/picker.js is served", async () => {
      const json = async (visitor: Visitor, path: string) => {
        const answer = await visitor.get(path);
        expect(answer.status).toBe(200);
        expect(answer.response.headers.get("content-type")).toBe("application/json; charset=utf-8");
        return JSON.parse(answer.html) as { key: number; label: string }[];
      };
      expect((await json(bob(), "/fw/pick/authors?q=writer%2000")).map((c) => c.label)).toEqual(["Writer 001", "Writer 002", "Writer 003", "Writer 004", "Writer 005", "Writer 006", "Writer 007", "Writer 008", "Writer 009"]);
      expect(await json(bob(), "/fw/pick/authors")).toHaveLength(20);
      expect(await json(bob(), `/fw/pick/authors?q=${ids.grace}`)).toEqual([{ key: ids.grace, label: "Grace" }]);
      expect(await json(bob(), `/fw/pick/posts?q=${ids.draft}`)).toEqual([]);
      expect((await json(bob(), "/fw/pick/posts?q=se")).map((c) => c.label)).toEqual([]);
      expect(await json(alice(), `/fw/pick/posts?q=${ids.draft}`)).toEqual([{ key: ids.draft, label: "Secret draft" }]);
      expect((await bob().get("/fw/pick/nothing")).status).toBe(404);
      const script = await bob().get("/fw/picker.js");
      expect(script.response.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
      expect(script.html).toContain("data-fw-pick");
    });

    it.runIf(options.validate === true)("the pages with references, lists of referencing rows and delete effects pass html-validate", async () => {
      // Bob owns "Other": its delete page is his.
      for (const path of ["/posts/new", "/comments/new", `/comments?post=${ids.other}`, `/posts/${ids.other}`, `/posts/${ids.other}/delete`, `/authors/${ids.ada}/delete`, "/reviews"]) {
        const page = await bob().get(path);
        expect(page.status, path).toBe(200);
        expect(await htmlErrors(page.html), path).toEqual([]);
      }
    });
  });
}
