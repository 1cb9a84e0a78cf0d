// Issue 40: a file is a field of a model. The fixture (spec/fixtures/files-app) has a Post with an
// optional cover Image (owned, drafts read by their author alone) and a Doc with a required
// Upload of PDF or plain text, in tables made by the app's own `db new`. Served by fw/testing's
// startApp twice: on PGlite with the files on disk, and on a throwaway PostgreSQL cluster with
// the files on an S3-compatible server (s3rver's fork, spec/files/s3-server.ts). Without
// PostgreSQL on the machine the second runs on PGlite too, and says so.
import { rmSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storageAt, type Storage } from "../../runtime/files/index.js";
import { startApp, testFile, type TestApp, type TestClient } from "../../runtime/testing/index.js";
import { postgresBin, startCluster, type PostgresCluster } from "../support/postgres.js";
import { runNode } from "../support/process.js";
import { FIXTURES, tspc } from "../support/tspc.js";
import { startS3Server, type S3Server } from "./s3-server.js";
import { png, removeFolder, tempFolder } from "./support.js";

const dir = join(FIXTURES, "files-app");
const PASSWORD = "plum orbit velvet 9271";
let built = false;

async function buildOnce(): Promise<void> {
  if (built) return;
  rmSync(join(dir, "db"), { recursive: true, force: true });
  const result = await tspc(dir);
  if (result.code !== 0) throw new Error(`building files-app failed:\n${result.output}`);
  const scratch = tempFolder("fw-files-app-db-");
  try {
    const made = await runNode(join(dir, "dist/main.js"), ["db", "new", "create tables"], { DATABASE_URL: `pglite:${join(scratch, "db")}`, FW_ENV_FILES: "0" }, dir);
    if (made.code !== 0) throw new Error(`db new failed:\n${made.out}${made.err}`);
  } finally {
    removeFolder(scratch);
  }
  built = true;
}

/** A JPEG a phone would take: EXIF with a GPS position and a camera. */
async function phonePhoto(): Promise<Buffer> {
  return sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 10, g: 120, b: 200 } } })
    .jpeg()
    .withExif({ IFD0: { Make: "PhoneCo", Model: "Pocket 9" }, IFD3: { GPSLatitudeRef: "N", GPSLatitude: "48/1 51/1 2400/100", GPSLongitudeRef: "E", GPSLongitude: "2/1 17/1 4000/100" } })
    .toBuffer();
}

/** A PDF small enough to write out: what file-type reads as application/pdf. */
const PDF = Buffer.from("%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n", "latin1");

interface Setup {
  readonly name: string;
  readonly app: TestApp;
  readonly storage: Storage;
}

/** Waits until `check` holds (a file job ran: the worker polls every second), or fails after 15 s. */
async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`waited 15 s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function signedUp(app: TestApp, name: string): Promise<TestClient> {
  const client = app.client();
  const email = `${name}-${Math.random().toString(36).slice(2, 8)}@files.example`;
  const made = await client.signUp(email, PASSWORD);
  expect(made.status, made.summary()).toBe(303);
  await client.signIn(email, PASSWORD);
  return client;
}

/** The cover's storage key, read from the post's Show page. */
async function coverKey(client: TestClient, path: string): Promise<string> {
  const show = await client.get(path);
  const key = /\/cover\/([0-9a-f]{32})\/large/.exec(show.text)?.[1];
  if (key === undefined) throw new Error(`${path} shows no cover: ${show.text.slice(0, 400)}`);
  return key;
}

function scenarios(name: string, start: () => Promise<Setup>, stop: () => Promise<void>): void {
  describe(`issue 40: file fields end to end (${name})`, () => {
    let setup: Setup;
    beforeAll(async () => {
      await buildOnce();
      setup = await start();
    }, 240_000);
    afterAll(stop);

    it("a post's cover: the form is multipart with a file input taking images; Show has the image (alt its label), Index its thumbnail; the bytes are served inline, cached for good", async () => {
      const ann = await signedUp(setup.app, "ann");
      const form = (await ann.get("/posts/new")).text;
      expect(form).toMatch(/<form method="post" action="\/posts" class="fw-form" enctype="multipart\/form-data" data-fw-upload=""/);
      expect(form).toContain('<input type="file" id="post-cover" name="cover" accept="image/png,image/jpeg,image/gif,image/webp,image/avif" data-fw-max-bytes="2000000">');
      expect(form).toMatch(/<script src="\/fw\/upload\.js\?v=[0-9a-f]{10}" defer><\/script>/);
      const made = await ann.submit("/posts/new", { title: "Sunrise", published: "true", cover: testFile("sunrise.png", png(400, 300), "image/png") });
      expect(made.status, made.summary()).toBe(303);
      const show = await ann.get(made.location as string);
      const key = await coverKey(ann, made.location as string);
      expect(show.text).toContain(`<img src="${made.location}/cover/${key}/large" alt="Sunrise" width="400" height="300">`);
      expect((await ann.get("/posts")).text).toContain(`<img src="${made.location}/cover/${key}/thumb" alt="" class="fw-thumb" width="200" height="150" loading="lazy">`);
      const original = await ann.get(`${made.location}/cover/${key}`);
      expect(original.status).toBe(200);
      expect(original.headers.get("content-type")).toBe("image/png");
      expect(original.headers.get("x-content-type-options")).toBe("nosniff");
      expect(original.headers.get("content-disposition")).toMatch(/^inline; filename="sunrise\.png"/);
      expect(original.headers.get("cache-control")).toBe("private, max-age=31536000, immutable");
      const thumb = await ann.get(`${made.location}/cover/${key}/thumb`);
      expect([thumb.status, thumb.headers.get("content-type")]).toEqual([200, "image/webp"]);
      expect(await setup.storage.exists(`${key}.thumb`)).toBe(true);
      expect((await ann.get(`${made.location}/cover/${key}/huge`)).status).toBe(404);
      expect((await ann.get(`${made.location}/cover/${"0".repeat(32)}`)).status).toBe(404);
    });

    it("what is stored and served has no EXIF or GPS: the phone's position and camera never reach another reader", async () => {
      const ann = await signedUp(setup.app, "phone");
      const made = await ann.submit("/posts/new", { title: "Holiday", published: "true", cover: testFile("IMG_0001.jpg", await phonePhoto(), "image/jpeg") });
      expect(made.status, made.summary()).toBe(303);
      const key = await coverKey(ann, made.location as string);
      for (const path of [`${made.location}/cover/${key}`, `${made.location}/cover/${key}/large`]) {
        const bytes = Buffer.from(await (await fetch(setup.app.url + path)).arrayBuffer());
        const metadata = await sharp(bytes).metadata();
        expect(metadata.exif, path).toBeUndefined();
        expect(bytes.includes(Buffer.from("PhoneCo")), path).toBe(false);
        expect(bytes.includes(Buffer.from("Exif\0\0")), path).toBe(false);
      }
    });

    it("a draft's cover is a 404 for whoever may not read the draft; its author reads it", async () => {
      const ann = await signedUp(setup.app, "drafter");
      const made = await ann.submit("/posts/new", { title: "Secret", published: "", cover: testFile("secret.png", png(10, 10), "image/png") });
      const key = await coverKey(ann, made.location as string);
      const at = `${made.location}/cover/${key}`;
      expect((await ann.get(at)).status).toBe(200);
      expect((await setup.app.client().get(at)).status).toBe(404);
      expect((await (await signedUp(setup.app, "other")).get(`${at}/thumb`)).status).toBe(404);
    });

    it("HTML sent as image/png is refused beside the field (422), the other fields kept, nothing stored", async () => {
      const ann = await signedUp(setup.app, "html");
      const refused = await ann.submit("/posts/new", { title: "Trojan", published: "true", cover: testFile("cat.png", "<!doctype html><script>alert(1)</script>", "image/png") });
      expect(refused.status).toBe(422);
      expect(refused.refusal().fields["cover"]).toMatch(/^Cover must be a file of type PNG, JPEG, GIF, WebP or AVIF, and this file is .*\.$/);
      expect(refused.text).toContain('value="Trojan"');
      expect(refused.text).not.toContain("_kept.cover");
    });

    it("a 422 on another field keeps the uploaded file: the form says so and brings it back once, without sending it again", async () => {
      const ann = await signedUp(setup.app, "keeper");
      const refused = await ann.submit("/posts/new", { title: "", published: "true", cover: testFile("kept.png", png(20, 10), "image/png") });
      expect(refused.status).toBe(422);
      expect(refused.refusal().fields["title"]).toBe("Title is required.");
      expect(refused.text).toContain("kept.png (");
      const token = /name="_kept\.cover" value="([A-Za-z0-9_-]+)"/.exec(refused.text)?.[1];
      expect(token).toBeDefined();
      const csrf = /name="_csrf" value="([^"]+)"/.exec(refused.text)?.[1] as string;
      const saved = await ann.postMultipart("/posts", { _csrf: csrf, title: "Kept", published: "true", "_kept.cover": token as string });
      expect(saved.status, saved.summary()).toBe(303);
      expect((await ann.get(saved.location as string)).text).toMatch(/\/cover\/[0-9a-f]{32}\/large" alt="Kept" width="20" height="10"/);
      // Used once: the same token cannot give the file to a second post.
      const again = await ann.postMultipart("/posts", { _csrf: csrf, title: "Twice", published: "true", "_kept.cover": token as string });
      expect(again.status).toBe(422);
      expect(again.refusal().fields["cover"]).toMatch(/expired/);
    });

    it("replacing a cover deletes the old file, removing it deletes it, deleting the post deletes the last (after the write, by a job)", async () => {
      const ann = await signedUp(setup.app, "lifecycle");
      const made = await ann.submit("/posts/new", { title: "Life", published: "true", cover: testFile("one.png", png(30, 30), "image/png") });
      const path = made.location as string;
      const first = await coverKey(ann, path);
      await ann.get(`${path}/cover/${first}/thumb`);
      const edit = (await ann.get(`${path}/edit`)).text;
      expect(edit).toContain(`<a href="${path}/cover/${first}">one.png</a>`);
      expect(edit).toContain('name="_remove.cover"');
      const replaced = await ann.submit(`${path}/edit`, { cover: testFile("two.png", png(40, 40), "image/png") });
      expect(replaced.status, replaced.summary()).toBe(303);
      const second = await coverKey(ann, path);
      expect(second).not.toBe(first);
      await eventually("the replaced cover and its thumbnail to be deleted", async () => !(await setup.storage.exists(first)) && !(await setup.storage.exists(`${first}.thumb`)));
      expect(await setup.storage.exists(second)).toBe(true);
      // Saving without a new file keeps the one there.
      expect((await ann.submit(`${path}/edit`, { title: "Life, again" })).status).toBe(303);
      expect(await coverKey(ann, path)).toBe(second);
      const removed = await ann.submit(`${path}/edit`, { "_remove.cover": "true" });
      expect(removed.status, removed.summary()).toBe(303);
      expect((await ann.get(path)).text).not.toContain("/cover/");
      await eventually("the removed cover to be deleted", async () => !(await setup.storage.exists(second)));
      const third = await ann.submit(`${path}/edit`, { cover: testFile("three.png", png(5, 5), "image/png") });
      expect(third.status).toBe(303);
      const last = await coverKey(ann, path);
      expect((await ann.submit(`${path}/delete`, {})).status).toBe(303);
      await eventually("the deleted post's cover to be deleted", async () => !(await setup.storage.exists(last)));
    });

    it("an image over its pixel limit (a 50,000 × 50,000 PNG bomb) and a truncated JPEG are refused beside the field; a file over maxBytes is a 413", async () => {
      const ann = await signedUp(setup.app, "bombs");
      const header = png(1, 1);
      header.writeUInt32BE(50_000, 16);
      header.writeUInt32BE(50_000, 20);
      const bomb = await ann.submit("/posts/new", { title: "Bomb", published: "true", cover: testFile("bomb.png", header, "image/png") });
      expect(bomb.status).toBe(422);
      expect(bomb.refusal().fields["cover"]).toBeDefined();
      const jpeg = await phonePhoto();
      const truncated = await ann.submit("/posts/new", { title: "Cut", published: "true", cover: testFile("cut.jpg", jpeg.subarray(0, Math.floor(jpeg.length / 2)), "image/jpeg") });
      expect(truncated.status).toBe(422);
      expect(truncated.refusal().fields["cover"]).toMatch(/image|read/i);
      const huge = await ann.submit("/posts/new", { title: "Huge", published: "true", cover: testFile("huge.png", Buffer.concat([png(1, 1), Buffer.alloc(2_100_000)]), "image/png") });
      expect(huge.status).toBe(413);
    });

    it("a required Upload: missing is 'is required'; a PDF and plain text are taken; a PNG is not; the download is an attachment named as uploaded", async () => {
      const bob = await signedUp(setup.app, "docs");
      const missing = await bob.submit("/docs/new", { title: "Nothing" });
      expect(missing.status).toBe(422);
      expect(missing.refusal().fields["file"]).toBe("File is required.");
      const image = await bob.submit("/docs/new", { title: "Picture", file: testFile("pic.png", png(2, 2), "application/pdf") });
      expect(image.status).toBe(422);
      const pdf = await bob.submit("/docs/new", { title: "Report", file: testFile("Rapport été.pdf", PDF, "application/pdf") });
      expect(pdf.status, pdf.summary()).toBe(303);
      const show = (await bob.get(pdf.location as string)).text;
      const href = /<a href="([^"]+)" download>Rapport été\.pdf<\/a> \(\d+ bytes\)/.exec(show)?.[1];
      expect(href).toBeDefined();
      const download = await bob.get(href as string);
      expect(download.headers.get("content-type")).toBe("application/pdf");
      expect(download.headers.get("content-disposition")).toBe(`attachment; filename="Rapport ete.pdf"; filename*=UTF-8''Rapport%20%C3%A9t%C3%A9.pdf`);
      expect(download.headers.get("content-security-policy")).toMatch(/^sandbox/);
      const text = await bob.submit("/docs/new", { title: "Notes", file: testFile("notes.txt", "plain words\n", "text/plain") });
      expect(text.status, text.summary()).toBe(303);
      // An owned model: another user's document and its file are not found.
      expect((await (await signedUp(setup.app, "snoop")).get(href as string)).status).toBe(404);
    });
  });
}

let diskFolder: string | undefined;
let diskApp: TestApp | undefined;
scenarios(
  "PGlite, files on disk",
  async () => {
    diskFolder = tempFolder("fw-files-disk-");
    const storage = `file://${diskFolder}`;
    const saved = process.env["DATABASE_URL"];
    delete process.env["DATABASE_URL"];
    try {
      diskApp = await startApp({ cwd: dir, main: "dist/main.js", env: { FW_STORAGE: storage } });
      return { name: "disk", app: diskApp, storage: storageAt(storage) };
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
      return { name: "s3", app: s3App, storage: storageAt(s3.url) };
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
