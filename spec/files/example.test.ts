// Issue 40, item 9: the example's files. Posts have an optional cover image (a thumbnail on the
// hand-written live /posts, the large variant on the derived Show, its url in GET /api/posts), and
// comments an optional attachment (a PDF or a text file, a download link). The example as
// `npm start` builds it, booted in production by spec/support/example.ts on the default engine,
// with its files on disk in its own working directory (FW_STORAGE=file:///…/files).
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storageAt } from "../../runtime/files/index.js";
import { TestClient, testFile, type TestResponse } from "../../runtime/testing/index.js";
import { freshEmail, PASSWORD } from "../auth/client.js";
import { bootExample, EXAMPLE_DIR, exampleCwd, exampleDatabase, exampleStorage } from "../support/example.js";
import { runNode } from "../support/process.js";
import { PRODUCTION_ENV, TEST_MAILBOX } from "../support/serve.js";
import { png } from "./support.js";

const cwd = exampleCwd();
const app = bootExample([], { ...PRODUCTION_ENV }, { cwd });
const storage = storageAt(exampleStorage(cwd));
let url: string;
// Two members for the whole file (sign-ups are limited to 10 an hour from one address): alice
// writes the posts, bob reads them and comments.
let alice: TestClient;
let bob: TestClient;

beforeAll(async () => {
  url = await app.url;
  alice = await member("alice");
  bob = await member("bob");
});

afterAll(async () => {
  app.child.kill("SIGTERM");
  await app.exited;
});

/** A PDF small enough to write out: what file-type reads as application/pdf. */
const PDF = Buffer.from("%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n", "latin1");

async function member(name: string): Promise<TestClient> {
  const client = new TestClient(url, TEST_MAILBOX);
  const email = freshEmail(name);
  const made = await client.signUp(email, PASSWORD);
  expect(made.status, made.summary()).toBe(303);
  return client;
}

/** Writes a post through the derived New form (multipart): its path. */
async function post(author: TestClient, title: string, fields: Record<string, string | ReturnType<typeof testFile>> = {}): Promise<string> {
  const made = await author.submit("/posts/new", { title, body: `About ${title}.`, category: "news", published: "true", ...fields });
  expect(made.status, made.summary()).toBe(303);
  return made.location as string;
}

/** The cover's key, read from the post's page (its large variant). */
function coverKeyOf(show: TestResponse): string {
  const key = /\/cover\/([0-9a-f]{32})\/large"/.exec(show.text)?.[1];
  if (key === undefined) throw new Error(`the post's page shows no cover: ${show.text.slice(0, 600)}`);
  return key;
}

describe("Issue 40, item 9: a post's cover in the example", () => {
  it("the New form takes an image of 5 MB at most; the post's page shows it (alt its title), /posts its thumbnail, both sized", async () => {
    const form = (await alice.get("/posts/new")).text;
    expect(form).toMatch(/<form method="post" action="\/posts" class="fw-form" enctype="multipart\/form-data"/);
    expect(form).toContain('<input type="file" id="post-cover" name="cover" accept="image/png,image/jpeg,image/gif,image/webp,image/avif" data-fw-max-bytes="5000000">');
    const at = await post(alice, "Harbour at dawn", { cover: testFile("harbour.png", png(800, 600), "image/png") });
    const show = await alice.get(at);
    const key = coverKeyOf(show);
    expect(show.text).toContain(`<img src="${at}/cover/${key}/large" alt="Harbour at dawn" width="800" height="600">`);
    const index = await new TestClient(url).get("/posts");
    expect(index.text).toContain(`<img src="${at}/cover/${key}/thumb" alt="" class="fw-thumb" width="200" height="150" loading="lazy"><a href="${at}">Harbour at dawn</a>`);
    // The thumbnail is made on first request and kept beside the original, in the app's FW_STORAGE folder.
    const thumb = await new TestClient(url).get(`${at}/cover/${key}/thumb`);
    expect([thumb.status, thumb.headers.get("content-type"), thumb.headers.get("x-content-type-options")]).toEqual([200, "image/webp", "nosniff"]);
    expect(await storage.exists(`${key}.thumb`)).toBe(true);
    expect(existsSync(join(cwd, "files", key.slice(0, 2), key))).toBe(true);
    const original = await new TestClient(url).get(`${at}/cover/${key}`);
    expect([original.status, original.headers.get("content-type")]).toEqual([200, "image/png"]);
    expect(original.headers.get("content-disposition")).toMatch(/^inline; filename="harbour\.png"/);
  });

  it("a post without a cover shows no image, on its page or on /posts", async () => {
    const at = await post(alice, "Words only");
    expect((await alice.get(at)).text).not.toContain("/cover/");
    const index = (await alice.get("/posts")).text;
    expect(index).toContain(`<li><a href="${at}">Words only</a>`);
  });

  it("GET /api/posts gives each cover's url, which serves the image; the answer passes its typia check and the OpenAPI document's schema", async () => {
    const at = await post(alice, "Cover over the API", { cover: testFile("api.png", png(40, 30), "image/png") });
    const key = coverKeyOf(await alice.get(at));
    const answer = (await (await fetch(`${url}/api/posts`)).json()) as { total: number; posts: { id: number; title: string; cover?: Record<string, unknown> }[] };
    const listed = answer.posts.find((p) => p.title === "Cover over the API");
    expect(listed?.cover).toEqual({ key, name: "api.png", type: "image/png", size: expect.any(Number), checksum: expect.stringMatching(/^[0-9a-f]{64}$/), width: 40, height: 30, url: `${at}/cover/${key}` });
    const image = await fetch(url + (listed?.cover?.["url"] as string));
    expect([image.status, image.headers.get("content-type")]).toEqual([200, "image/png"]);
    // The same answer through fw/client, checked by the example's generated typia checks.
    const { answers } = (await import(resolve("example/dist/.fw/api.js"))) as { answers: object };
    type Api = { "GET /api/posts": { params: {}; body: never; answer: { total: number; posts: { title: string; cover?: { url?: string } }[] } } };
    const typed = await new TestClient(url).api<Api>({ answers }).get("/api/posts", {});
    expect(typed.posts.find((p) => p.title === "Cover over the API")?.cover?.url).toBe(`${at}/cover/${key}`);
    // And against the schema the checked-in OpenAPI document gives that answer (as a client holding it would check).
    const document = JSON.parse(readFileSync(resolve("docs/reference/example-openapi.json"), "utf8")) as { paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { schema: object }> }> }>>; components: object };
    const schema = document.paths["/api/posts"]?.["get"]?.responses["200"]?.content["application/json"]?.schema as object;
    const check = new Ajv2020({ strict: false }).compile({ ...schema, components: document.components });
    expect(check(answer), JSON.stringify(check.errors)).toBe(true);
  });

  it("a draft's cover is read only by who may read the draft: its author; a visitor and another member get 404, and the API does not list it", async () => {
    const at = await post(alice, "Not yet", { published: "", cover: testFile("secret.png", png(64, 64), "image/png") });
    const key = coverKeyOf(await alice.get(at));
    for (const variant of ["", "/thumb", "/large"]) expect((await alice.get(`${at}/cover/${key}${variant}`)).status, variant).toBe(200);
    for (const reader of [new TestClient(url), bob]) {
      for (const variant of ["", "/thumb", "/large"]) expect((await reader.get(`${at}/cover/${key}${variant}`)).status, variant).toBe(404);
      expect((await reader.get("/posts")).text).not.toContain(key);
    }
    const api = (await (await fetch(`${url}/api/posts`)).json()) as { posts: { title: string }[] };
    expect(api.posts.map((p) => p.title)).not.toContain("Not yet");
    // Published, the same address serves everyone.
    expect((await alice.submit(`${at}/edit`, { published: "true" })).status).toBe(303);
    expect((await bob.get(`${at}/cover/${key}/thumb`)).status).toBe(200);
  });

  it("a cover that is no image (HTML sent as image/png) or is over 5 MB is refused, and nothing is listed", async () => {
    const html = await alice.submit("/posts/new", { title: "Trojan", body: "b", category: "news", published: "true", cover: testFile("cat.png", "<!doctype html><script>alert(1)</script>", "image/png") });
    expect(html.status).toBe(422);
    expect(html.refusal().fields["cover"]).toMatch(/^Cover must be a file of type PNG, JPEG, GIF, WebP or AVIF, and this file is /);
    const huge = await alice.submit("/posts/new", { title: "Huge", body: "b", category: "news", published: "true", cover: testFile("huge.png", Buffer.concat([png(1, 1), Buffer.alloc(5_000_001)]), "image/png") });
    expect(huge.status).toBe(413);
    expect(huge.text).toContain("5000000");
    const index = (await alice.get("/posts")).text;
    expect(index).not.toContain("Trojan");
    expect(index).not.toContain(">Huge<");
  });
});

describe("Issue 40, item 9: a comment's attachment in the example", () => {
  it("a PDF or a text file: the comment's page and the post's list of comments link it with its name and size; the download is an attachment", async () => {
    const at = await post(alice, "Minutes of the meeting");
    const id = at.slice("/posts/".length);
    const form = (await bob.get(`/comments/new?post=${id}`)).text;
    expect(form).toContain('<input type="file" id="comment-attachment" name="attachment" accept="application/pdf,text/plain" data-fw-max-bytes="10000000">');
    const made = await bob.submit(`/comments/new?post=${id}`, { post: id, body: "The minutes, signed.", attachment: testFile("Minutes – March.pdf", PDF, "application/pdf") });
    expect(made.status, made.summary()).toBe(303);
    const comment = made.location as string;
    const show = (await bob.get(comment)).text;
    const href = /<a href="([^"]+)" download>Minutes – March\.pdf<\/a> \((\d+) bytes\)/.exec(show);
    expect(href?.[2]).toBe(String(PDF.length));
    expect(href?.[1]).toMatch(new RegExp(`^${comment}/attachment/[0-9a-f]{32}$`));
    // On the post's page, its comments are listed with the same link.
    expect((await new TestClient(url).get(at)).text).toContain(`<a href="${href?.[1]}" download>Minutes – March.pdf</a> (${PDF.length} bytes)`);
    const download = await new TestClient(url).get(href?.[1] as string);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("application/pdf");
    expect(download.headers.get("content-disposition")).toBe(`attachment; filename="Minutes _ March.pdf"; filename*=UTF-8''Minutes%20%E2%80%93%20March.pdf`);
    expect(download.headers.get("content-security-policy")).toMatch(/^sandbox/);
    expect(download.text).toBe(PDF.toString("latin1"));
    const text = await bob.submit(`/comments/new?post=${id}`, { post: id, body: "And as text.", attachment: testFile("minutes.txt", "Present: everyone.\n", "text/plain") });
    expect(text.status, text.summary()).toBe(303);
    expect((await bob.get(text.location as string)).text).toMatch(/download>minutes\.txt<\/a> \(19 bytes\)/);
  });

  it("anything else (an image, HTML named .txt) is refused beside the field, the comment kept for the re-shown form", async () => {
    const id = (await post(alice, "Pictures not wanted")).slice("/posts/".length);
    const image = await alice.submit(`/comments/new?post=${id}`, { post: id, body: "A picture", attachment: testFile("photo.pdf", png(5, 5), "application/pdf") });
    expect(image.status).toBe(422);
    expect(image.refusal().fields["attachment"]).toMatch(/^Attachment must be a file of type /);
    expect(image.text).toContain("A picture");
    const html = await alice.submit(`/comments/new?post=${id}`, { post: id, body: "Sneaky", attachment: testFile("notes.txt", "<html><script>alert(1)</script>", "text/plain") });
    expect(html.status).toBe(422);
  });

  it("a draft's comments' attachments are read only by who may read the draft", async () => {
    const at = await post(alice, "Draft with notes", { published: "" });
    const id = at.slice("/posts/".length);
    const made = await alice.submit(`/comments/new?post=${id}`, { post: id, body: "Note to self", attachment: testFile("self.txt", "private\n", "text/plain") });
    expect(made.status, made.summary()).toBe(303);
    const href = /<a href="([^"]+)" download>self\.txt<\/a>/.exec((await alice.get(made.location as string)).text)?.[1] as string;
    expect((await alice.get(href)).status).toBe(200);
    expect((await new TestClient(url).get(href)).status).toBe(404);
    expect((await bob.get(href)).status).toBe(404);
  });
});

describe("Issue 40, item 9: the example's storage", () => {
  it("production without FW_STORAGE refuses to boot, saying what to set", async () => {
    const refused = bootExample([], { ...PRODUCTION_ENV, FW_STORAGE: "" });
    await expect(refused.url).rejects.toThrow(/exited before serving/);
    expect(refused.output().err).toContain("FW_STORAGE is not set, and production must name where files are kept");
  });

  it("`db status`: the migration adding the file columns is applied and no drift is left; without it, the two columns are drift", async () => {
    const main = resolve("example/dist/main.js");
    const migrated = exampleDatabase("migrated", "pglite");
    const status = await runNode(main, ["db", "status"], { DATABASE_URL: migrated.url }, cwd);
    expect(status.code, status.err).toBe(0);
    expect(status.out).toContain("applied  0005_add_post_covers_and_comment_attachments");
    expect(status.out).not.toMatch(/^drift/m);
    // The migrations before it alone: the models' file columns are missing, and status says so.
    const before = mkdtempSync(join(tmpdir(), "fw-example-before-files-"));
    try {
      mkdirSync(join(before, "db", "migrations"), { recursive: true });
      for (const name of readdirSync(join(EXAMPLE_DIR, "db", "migrations")).filter((file) => file < "0005")) copyFileSync(join(EXAMPLE_DIR, "db", "migrations", name), join(before, "db", "migrations", name));
      const database = exampleDatabase("empty", "pglite");
      expect((await runNode(main, ["db", "migrate"], { DATABASE_URL: database.url }, before)).code).toBe(0);
      const drift = await runNode(main, ["db", "status"], { DATABASE_URL: database.url }, before);
      expect(drift.out).toMatch(/^drift .*comments.*attachment/m);
      expect(drift.out).toMatch(/^drift .*posts.*cover/m);
    } finally {
      rmSync(before, { recursive: true, force: true });
    }
  }, 60_000);
});
