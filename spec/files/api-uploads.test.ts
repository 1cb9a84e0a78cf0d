// Issue 40 item 8: an API route takes an upload. The fixture (spec/fixtures/files-api) has Post
// (an optional cover Image, owned, drafts read by their author alone) and Doc (a required
// Upload of PDF or plain text) in tables made by its own `db new`, and three API routes behind
// an API key: POST /api/posts (`cover?: Post["cover"]` in its body type), POST /api/docs
// (`Pick<Doc, "title" | "pages" | "file">`, answering its own problem+json) and GET
// /api/posts/:id. Served by fw/testing's startApp twice: on PGlite with the files on disk, and
// on a throwaway PostgreSQL cluster with the files on an S3-compatible server (s3rver's fork).
// Without PostgreSQL on the machine the second runs on PGlite too, and says so.
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storageAt, type Storage } from "../../runtime/files/index.js";
import type { Image } from "../../runtime/index.js";
import { startApp, type TestApp } from "../../runtime/testing/index.js";
import { postgresBin, startCluster, type PostgresCluster } from "../support/postgres.js";
import { runNode } from "../support/process.js";
import { TEST_SECRET } from "../support/serve.js";
import { FIXTURES, tspc } from "../support/tspc.js";
import { startS3Server, type S3Server } from "./s3-server.js";
import { png, removeFolder, tempFolder } from "./support.js";

const dir = join(FIXTURES, "files-api");
const PASSWORD = "plum orbit velvet 9271";
const API_KEY = "files-api-test-key-7c1d0a52e9b84f36";
const authorization = { authorization: `Bearer ${API_KEY}` };
let built = false;

async function buildOnce(): Promise<void> {
  if (built) return;
  rmSync(join(dir, "db"), { recursive: true, force: true });
  const result = await tspc(dir);
  if (result.code !== 0) throw new Error(`building files-api failed:\n${result.output}`);
  const scratch = tempFolder("fw-files-api-db-");
  try {
    const made = await runNode(join(dir, "dist/main.js"), ["db", "new", "create tables"], { DATABASE_URL: `pglite:${join(scratch, "db")}`, FW_ENV_FILES: "0" }, dir);
    if (made.code !== 0) throw new Error(`db new failed:\n${made.out}${made.err}`);
  } finally {
    removeFolder(scratch);
  }
  built = true;
}

/** What the fixture's src/calls.ts exports, built (fw/client typed by the fixture's generated Api). */
interface Calls {
  postWithCover(baseUrl: string, png: Uint8Array): Promise<{ post: Post; bare: Post; shown: Post; url: string | undefined }>;
  fileDoc(baseUrl: string, text: string): Promise<{ id: number; title: string; pages?: number; file: StoredFile }>;
}
const calls = (): Promise<Calls> => import(join(dir, "dist", "calls.js")) as Promise<Calls>;

interface StoredFile {
  key: string;
  name: string;
  type: string;
  size: number;
  checksum: string;
  url?: string;
  width?: number;
  height?: number;
}
interface Post {
  id: number;
  author: number;
  title: string;
  published: boolean;
  cover?: StoredFile;
}

/** A form with text parts and files (`[name, bytes, type]`), sent as a browser or fetch would. */
function form(text: Readonly<Record<string, string>>, files: Readonly<Record<string, readonly [string, Uint8Array | string, string]>> = {}): FormData {
  const body = new FormData();
  for (const [name, value] of Object.entries(text)) body.append(name, value);
  for (const [name, [fileName, bytes, type]] of Object.entries(files)) body.append(name, new Blob([typeof bytes === "string" ? bytes : new Uint8Array(bytes)], { type }), fileName);
  return body;
}

function post(app: TestApp, path: string, body: FormData | string | Buffer, headers: Record<string, string> = {}): Promise<globalThis.Response> {
  return fetch(`${app.url}${path}`, { method: "POST", headers: { ...authorization, ...headers }, body });
}

/** The problem page's detail (fw's HTML 400, spec 2.16). */
async function detail(response: globalThis.Response): Promise<string> {
  const page = await response.text();
  return (/<p class="fw-problem-detail">([\s\S]*?)<\/p>/.exec(page)?.[1] ?? page).replace(/&quot;/g, '"').replace(/&amp;/g, "&").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&#39;/g, "'");
}

/** Waits until `check` holds (a file job ran: the worker polls every second), or fails after 15 s. */
async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`waited 15 s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

interface Setup {
  readonly app: TestApp;
  readonly storage: Storage;
  /** How many files the storage holds, where the test can count them (the disk; S3's server keeps its own). */
  readonly count?: () => number;
}

/** The files under a folder, its subfolders' included. */
function filesUnder(folder: string): number {
  return readdirSync(folder, { withFileTypes: true, recursive: true }).filter((entry) => entry.isFile()).length;
}

function scenarios(name: string, start: () => Promise<Setup>, stop: () => Promise<void>): void {
  describe(`issue 40: API routes take uploads (${name})`, () => {
    let setup: Setup;
    beforeAll(async () => {
      await buildOnce();
      setup = await start();
      // The API key acts for user 1: the first to sign up.
      const first = await setup.app.client().signUp(`api-owner@files.example`, PASSWORD);
      expect(first.status, first.summary()).toBe(303);
    }, 240_000);
    afterAll(stop);

    it("a multipart POST: the text parts read as the body type says (a boolean from its text), the cover stored; the answer gives its url, where the model's file route serves it", async () => {
      const made = await post(setup.app, "/api/posts", form({ title: "Sunrise", published: "true" }, { cover: ["sunrise.png", png(400, 300), "image/png"] }));
      expect(made.status, await made.clone().text()).toBe(201);
      const created = (await made.json()) as Post;
      expect(created).toMatchObject({ title: "Sunrise", published: true, author: 1, cover: { name: "sunrise.png", type: "image/png", width: 400, height: 300 } });
      const cover = created.cover as StoredFile;
      expect(cover.key).toMatch(/^[0-9a-f]{32}$/);
      expect(cover.url).toBe(`/posts/${created.id}/cover/${cover.key}`);
      expect(await setup.storage.exists(cover.key)).toBe(true);
      // Served through the row, by its read rule: a published post's cover to anyone.
      const served = await fetch(`${setup.app.url}${cover.url}`);
      expect([served.status, served.headers.get("content-type"), served.headers.get("x-content-type-options")]).toEqual([200, "image/png", "nosniff"]);
      expect((await sharp(Buffer.from(await served.arrayBuffer())).metadata()).width).toBe(400);
      const shown = await fetch(`${setup.app.url}/api/posts/${created.id}`, { headers: authorization });
      expect(((await shown.json()) as Post).cover?.url).toBe(cover.url);
    });

    it("the image is stored without its EXIF and GPS, as a form's would be", async () => {
      const photo = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 10, g: 120, b: 200 } } })
        .jpeg()
        .withExif({ IFD0: { Make: "PhoneCo" }, IFD3: { GPSLatitudeRef: "N", GPSLatitude: "48/1 51/1 2400/100" } })
        .toBuffer();
      const made = await post(setup.app, "/api/posts", form({ title: "Holiday", published: "true" }, { cover: ["IMG_0001.jpg", photo, "image/jpeg"] }));
      expect(made.status).toBe(201);
      const url = ((await made.json()) as Post).cover?.url as string;
      const bytes = Buffer.from(await (await fetch(`${setup.app.url}${url}`)).arrayBuffer());
      expect((await sharp(bytes).metadata()).exif).toBeUndefined();
      expect(bytes.includes(Buffer.from("PhoneCo"))).toBe(false);
    });

    it("a draft's cover, posted through the API, is a 404 for whoever may not read the draft; the API's caller reads it", async () => {
      const made = await post(setup.app, "/api/posts", form({ title: "Draft", published: "false" }, { cover: ["draft.png", png(8, 8), "image/png"] }));
      const created = (await made.json()) as Post;
      expect((await fetch(`${setup.app.url}${created.cover?.url}`)).status).toBe(404);
      expect((await fetch(`${setup.app.url}/api/posts/${created.id}`, { headers: authorization })).status).toBe(200);
    });

    it("fw/client sends an upload as a form: a File for the cover, typed by the generated Api; a call without a file is a form too", async () => {
      const { post: made, bare, shown, url } = await (await calls()).postWithCover(setup.app.url, new Uint8Array(png(20, 10)));
      expect(made).toMatchObject({ title: "Typed upload", published: true, cover: { name: "typed.png", width: 20, height: 10 } });
      expect(url).toBe(`/posts/${made.id}/cover/${made.cover?.key}`);
      expect(shown).toEqual(made);
      expect(bare).toMatchObject({ title: "No cover", published: false });
      expect(bare.cover).toBeUndefined();
      const doc = await (await calls()).fileDoc(setup.app.url, "plain words\n");
      expect(doc).toMatchObject({ title: "Notes", pages: 2, file: { type: "text/plain", name: "blob" } });
    });

    it("fw/testing's client.api is fw/client: a Blob for the file field, and the body goes as a form", async () => {
      type UploadApi = { "POST /api/posts": { params: {}; body: { title: string; published: boolean; cover?: Image<{ maxBytes: 2_000_000 }> }; answer: Post } };
      const api = setup.app.client().api<UploadApi>({ uploads: { "POST /api/posts": ["cover"] }, headers: authorization });
      const made = await api.post("/api/posts", { title: "From the test client", published: true, cover: new Blob([new Uint8Array(png(3, 2))], { type: "image/png" }) });
      expect(made).toMatchObject({ title: "From the test client", cover: { name: "blob", width: 3, height: 2 } });
    });

    it("deleting the post deletes the cover the API stored: the upload was recorded for posts.cover, so the delete job finds it", async () => {
      const made = await post(setup.app, "/api/posts", form({ title: "Short-lived", published: "true" }, { cover: ["gone.png", png(5, 5), "image/png"] }));
      const created = (await made.json()) as Post;
      const key = created.cover?.key as string;
      const owner = setup.app.client();
      await owner.signIn("api-owner@files.example", PASSWORD);
      const deleted = await owner.submit(`/posts/${created.id}/delete`, {});
      expect(deleted.status, deleted.summary()).toBe(303);
      await eventually("the deleted post's cover to be deleted", async () => !(await setup.storage.exists(key)));
    });

    it("bad input is a 400 naming the place: not a form, a text part not of its type, HTML sent as a PNG, an image over its pixel limit; nothing is stored", async () => {
      const before = setup.count?.();
      const json = await post(setup.app, "/api/posts", JSON.stringify({ title: "x", published: true }), { "content-type": "application/json" });
      expect([json.status, await detail(json)]).toEqual([400, 'The request body must be a multipart/form-data form (it takes files in "cover"); this request has Content-Type application/json.']);
      const text = await post(setup.app, "/api/posts", form({ title: "", published: "maybe" }));
      expect([text.status, await detail(text)]).toEqual([400, "The request body does not match the expected type: $.title: expected string & MinLength<1>; $.published: expected boolean."]);
      const html = await post(setup.app, "/api/posts", form({ title: "Trojan", published: "true" }, { cover: ["cat.png", "<!doctype html><script>alert(1)</script>", "image/png"] }));
      expect([html.status, await detail(html)]).toEqual([400, expect.stringMatching(/^The request body does not match the expected type: \$\.cover: must be a file of type PNG, JPEG, GIF, WebP or AVIF, and this file is .*\.$/)]);
      const bomb = png(1, 1);
      bomb.writeUInt32BE(50_000, 16);
      bomb.writeUInt32BE(50_000, 20);
      const big = await post(setup.app, "/api/posts", form({ title: "Bomb", published: "true" }, { cover: ["bomb.png", bomb, "image/png"] }));
      expect([big.status, await detail(big)]).toEqual([400, expect.stringMatching(/^The request body does not match the expected type: \$\.cover: The image is 50000 × 50000 pixels; at most 4 million pixels are accepted\.$/)]);
      // A file where text is expected, text where a file is, no boundary: the reader's 400s.
      const fileAsTitle = await post(setup.app, "/api/posts", form({ published: "true" }, { title: ["title.txt", "x", "text/plain"] }));
      expect([fileAsTitle.status, await detail(fileAsTitle)]).toEqual([400, expect.stringContaining('sends a file in "title", which is not a file field here')]);
      const textAsCover = await post(setup.app, "/api/posts", form({ title: "x", published: "true", cover: "not a file" }));
      expect([textAsCover.status, await detail(textAsCover)]).toEqual([400, expect.stringContaining('sends text in "cover", which takes a file')]);
      const unbounded = await post(setup.app, "/api/posts", "title=x", { "content-type": "multipart/form-data" });
      expect(unbounded.status).toBe(400);
      expect(setup.count?.()).toBe(before);
    });

    it("a file over its field's maxBytes is a 413 from the reader; a call without the API key is a 403", async () => {
      const huge = await post(setup.app, "/api/posts", form({ title: "Huge", published: "true" }, { cover: ["huge.png", Buffer.concat([png(1, 1), Buffer.alloc(2_100_000)]), "image/png"] }));
      expect([huge.status, await detail(huge)]).toEqual([413, 'The file sent in "cover" is larger than its 2000000-byte limit.']);
      const anonymous = await fetch(`${setup.app.url}/api/posts`, { method: "POST", body: form({ title: "x", published: "true" }) });
      expect(anonymous.status).toBe(403);
    });

    it("a required file left out, and a PNG where a PDF or text is taken, are a 400 the handler answers itself as problem+json (readUpload), naming $.file", async () => {
      const missing = await post(setup.app, "/api/docs", form({ title: "Nothing", pages: "3" }));
      expect(missing.status).toBe(400);
      expect(missing.headers.get("content-type")).toBe("application/problem+json");
      expect(await missing.json()).toEqual({
        type: "about:blank",
        title: "Bad Request",
        status: 400,
        detail: 'The request body does not match the expected type: $.file: a file is required: send one as a file part named "file".',
        errors: [{ path: "$.file", expected: "a file" }],
      });
      const image = await post(setup.app, "/api/docs", form({ title: "Picture", pages: "two" }, { file: ["pic.pdf", png(2, 2), "application/pdf"] }));
      expect(await image.json()).toMatchObject({
        status: 400,
        errors: [
          { path: "$.pages", expected: "(number | undefined)" },
          { path: "$.file", expected: "a file of type PDF or text" },
        ],
      });
      const taken = await post(setup.app, "/api/docs", form({ title: "Report", pages: "12" }, { file: ["report.txt", "twelve pages\n", "text/plain"] }));
      expect(taken.status).toBe(201);
      expect(await taken.json()).toMatchObject({ title: "Report", pages: 12, file: { name: "report.txt", type: "text/plain" } });
    });

    it("`openapi` describes each upload as a multipart/form-data body (file fields `format: binary`, their types and limits), the answer's file with its url; the document validates", async () => {
      const printed = await runNode(join(dir, "dist", "main.js"), ["openapi"], { FW_SECRET: TEST_SECRET, FW_ENV_FILES: "0" }, dir);
      expect(printed.code, printed.err).toBe(0);
      const document = JSON.parse(printed.out) as OpenApi;
      const validator = new Validator();
      const result = await validator.validate(structuredClone(document) as unknown as Record<string, unknown>);
      expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
      const create = document.paths["/api/posts"]?.["post"];
      const multipart = create?.requestBody?.content["multipart/form-data"];
      expect(Object.keys(create?.requestBody?.content ?? {})).toEqual(["multipart/form-data"]);
      expect(multipart?.schema).toMatchObject({
        type: "object",
        properties: { title: { type: "string", minLength: 1, maxLength: 200 }, published: { type: "boolean" }, cover: { type: "string", format: "binary" } },
        required: ["title", "published"],
      });
      expect(multipart?.schema.properties["cover"]?.["description"]).toMatch(/^An image \(image\/png, image\/jpeg, image\/gif, image\/webp, image\/avif\), at most 2000000 bytes and 4000000 pixels/);
      expect(multipart?.encoding).toEqual({ cover: { contentType: "image/png, image/jpeg, image/gif, image/webp, image/avif" } });
      expect(Object.keys(create?.responses ?? {})).toEqual(["201", "400", "403", "413", "500"]);
      expect(create?.responses["413"]?.description).toContain("cover: 2000000 bytes");
      const doc = document.paths["/api/docs"]?.["post"]?.requestBody?.content["multipart/form-data"];
      expect(doc?.schema).toMatchObject({ properties: { title: { type: "string" }, pages: { type: "number" }, file: { type: "string", format: "binary" } }, required: ["title", "file"] });
      expect(doc?.encoding).toEqual({ file: { contentType: "application/pdf, text/plain" } });
      // The answer's Post holds its cover as stored, with the url it is served at.
      const answer = JSON.stringify(create?.responses["201"]?.content?.["application/json"]);
      expect(answer).toContain("#/components/schemas/");
      const image = Object.entries(document.components.schemas).find(([, schema]) => (schema as { properties?: Record<string, unknown> }).properties?.["width"] !== undefined)?.[1] as { properties: Record<string, unknown>; required: string[] };
      expect(Object.keys(image.properties)).toEqual(expect.arrayContaining(["key", "name", "type", "size", "checksum", "url", "width", "height"]));
      expect(image.required).not.toContain("url");
      // The text parts' own schemas are inlined in the forms, not left as unused components.
      expect(Object.keys(document.components.schemas).filter((name) => name.startsWith("Omit"))).toEqual([]);
    });
  });
}

interface OpenApi {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, object> };
}
interface Operation {
  requestBody?: { content: Record<string, { schema: { properties: Record<string, Record<string, unknown>> }; encoding?: object }> };
  responses: Record<string, { description: string; content?: Record<string, object> }>;
}

let diskFolder: string | undefined;
let diskApp: TestApp | undefined;
scenarios(
  "PGlite, files on disk",
  async () => {
    diskFolder = tempFolder("fw-files-api-disk-");
    const storage = `file://${diskFolder}`;
    const saved = process.env["DATABASE_URL"];
    delete process.env["DATABASE_URL"];
    try {
      diskApp = await startApp({ cwd: dir, main: "dist/main.js", env: { FW_STORAGE: storage } });
      const folder = diskFolder;
      return { app: diskApp, storage: storageAt(storage), count: () => filesUnder(folder) };
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
let s3: S3Server | undefined;
let s3App: TestApp | undefined;
const bin = postgresBin();
scenarios(
  bin === undefined ? "PGlite (no PostgreSQL on this machine), files on S3" : "PostgreSQL, files on S3",
  async () => {
    s3 = await startS3Server();
    if (bin !== undefined) cluster = await startCluster(bin);
    const saved = process.env["DATABASE_URL"];
    if (cluster !== undefined) process.env["DATABASE_URL"] = cluster.url;
    else delete process.env["DATABASE_URL"];
    try {
      s3App = await startApp({ cwd: dir, main: "dist/main.js", env: { FW_STORAGE: s3.url, AWS_ACCESS_KEY_ID: "S3RVER", AWS_SECRET_ACCESS_KEY: "S3RVER", AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" } });
      return { app: s3App, storage: storageAt(s3.url) };
    } finally {
      if (saved === undefined) delete process.env["DATABASE_URL"];
      else process.env["DATABASE_URL"] = saved;
    }
  },
  async () => {
    await s3App?.close();
    await s3?.close();
    await cluster?.destroy();
    rmSync(join(dir, "db"), { recursive: true, force: true });
    rmSync(join(dir, ".fw"), { recursive: true, force: true });
  },
);
