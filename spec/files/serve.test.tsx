// Issue 40 item 5's mechanics: a stored file is served with nosniff, inline only for raster
// images, as a download otherwise (RFC 6266 names), under a sandboxing CSP, with ETag, Range and
// HEAD; on disk and on S3 (a real S3-compatible server), streamed or redirected to a presigned URL.
import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DiskStorage, FILE_CSP, newStorageKey, serveStored, storageAt, type Storage, type StoredFile } from "../../runtime/files/index.js";
import { Route, RouteTable } from "../../runtime/index.js";
import { serve, type Served } from "../support/serve.js";
import { startS3Server, type S3Server } from "./s3-server.js";
import { png, removeFolder, tempFolder } from "./support.js";

const root = tempFolder("served-");
let s3server: S3Server;
const storages: Record<string, Storage> = { disk: new DiskStorage(root) };
beforeAll(async () => {
  s3server = await startS3Server();
  storages["s3"] = storageAt(s3server.url);
});
afterAll(async () => {
  await s3server.close();
  removeFolder(root);
});

/** Stores bytes in a storage and returns what a row would keep of them. */
async function stored(storage: Storage, bytes: Buffer | string, type: string, name: string): Promise<StoredFile> {
  const buffer = Buffer.from(bytes);
  const file = { key: newStorageKey(), size: buffer.length, type, name, checksum: createHash("sha256").update(buffer).digest("hex") };
  await storage.put(file.key, { stream: Readable.from([buffer]) }, file);
  return file;
}

describe.each(["disk", "s3"])("serving from %s", (which) => {
  let app: Served;
  const files = new Map<string, StoredFile>();
  let image: StoredFile;
  let text: StoredFile;
  let svg: StoredFile;
  const url = (file: StoredFile, how = ""): string => `${app.url}/files/${file.key}${how}`;

  beforeAll(async () => {
    const storage = storages[which] as Storage;
    image = await stored(storage, png(4, 4), "image/png", "cat.png");
    text = await stored(storage, "0123456789", "text/plain", "Résumé «final» 2026.txt");
    svg = await stored(storage, '<svg xmlns="http://www.w3.org/2000/svg"/>', "image/svg+xml", "logo.svg");
    for (const file of [image, text, svg]) files.set(file.key, file);
    const lookup = (key: string | undefined): StoredFile => files.get(key ?? "") ?? { key: newStorageKey(), size: 3, type: "text/plain", name: "gone.txt", checksum: "0".repeat(64) };
    app = await serve({
      routes: RouteTable.of(
        Route.get("/files/:key", (request) => serveStored(storage, lookup(request.params["key"]), request)),
        Route.get("/files/:key/redirect", (request) => serveStored(storage, lookup(request.params["key"]), request, { redirect: true, expiresIn: 30 })),
        Route.get("/files/:key/immutable", (request) => serveStored(storage, lookup(request.params["key"]), request, { immutable: true })),
      ),
    });
  });
  afterAll(() => app.close());

  it("a PNG: inline, its type, nosniff, the sandbox CSP, same-origin only, private and validated by its checksum", async () => {
    const answer = await fetch(url(image));
    expect(answer.status).toBe(200);
    // Every answer carries its request's id (issue 44), checked for its form and left out of the rest.
    expect(answer.headers.get("x-request-id")).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(Object.fromEntries([...answer.headers].filter(([name]) => !["date", "connection", "keep-alive", "set-cookie", "x-request-id"].includes(name)))).toEqual({
      "content-type": "image/png",
      "content-disposition": `inline; filename="cat.png"; filename*=UTF-8''cat.png`,
      "content-security-policy": FILE_CSP,
      "cross-origin-resource-policy": "same-origin",
      "x-content-type-options": "nosniff",
      "accept-ranges": "bytes",
      etag: `"${image.checksum}"`,
      "cache-control": "private, no-cache",
      "content-length": String(image.size),
    });
    expect(Buffer.from(await answer.arrayBuffer()).equals(png(4, 4))).toBe(true);
  });

  it("text: a download with its UTF-8 name (filename*) and an ASCII fallback, charset utf-8", async () => {
    const answer = await fetch(url(text));
    expect(answer.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(answer.headers.get("content-disposition")).toBe(`attachment; filename="Resume _final_ 2026.txt"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%C2%ABfinal%C2%BB%202026.txt`);
    expect(await answer.text()).toBe("0123456789");
  });

  it("SVG is never inline, even though it is an image", async () => {
    const answer = await fetch(url(svg));
    expect(answer.headers.get("content-disposition")).toMatch(/^attachment; /);
    expect(answer.headers.get("content-security-policy")).toBe(FILE_CSP);
    await answer.arrayBuffer();
  });

  it("If-None-Match with the checksum's ETag: 304, no body; immutable where the URL names the key", async () => {
    const answer = await fetch(url(image), { headers: { "if-none-match": `"${image.checksum}"` } });
    expect([answer.status, await answer.text(), answer.headers.get("etag")]).toEqual([304, "", `"${image.checksum}"`]);
    const immutable = await fetch(url(image, "/immutable"));
    expect(immutable.headers.get("cache-control")).toBe("private, max-age=31536000, immutable");
    await immutable.arrayBuffer();
  });

  it("Range: one range is a 206 with Content-Range; past the end a 416; several ranges the whole file; If-Range of another version the whole file", async () => {
    const cases: [string, number, string, string | null][] = [
      ["bytes=2-5", 206, "2345", "bytes 2-5/10"],
      ["bytes=7-", 206, "789", "bytes 7-9/10"],
      ["bytes=-3", 206, "789", "bytes 7-9/10"],
      ["bytes=8-100", 206, "89", "bytes 8-9/10"],
      ["bytes=0-0,5-6", 200, "0123456789", null],
      ["items=1-2", 200, "0123456789", null],
    ];
    for (const [range, status, body, contentRange] of cases) {
      const answer = await fetch(url(text), { headers: { range } });
      expect([answer.status, await answer.text(), answer.headers.get("content-range")], range).toEqual([status, body, contentRange]);
    }
    const past = await fetch(url(text), { headers: { range: "bytes=10-20" } });
    expect([past.status, past.headers.get("content-range")]).toEqual([416, "bytes */10"]);
    await past.arrayBuffer();
    const stale = await fetch(url(text), { headers: { range: "bytes=2-5", "if-range": '"another"' } });
    expect([stale.status, await stale.text()]).toEqual([200, "0123456789"]);
  });

  it("HEAD: the headers and length, no bytes", async () => {
    const answer = await fetch(url(image), { method: "HEAD" });
    expect([answer.status, answer.headers.get("content-length"), await answer.text()]).toEqual([200, String(image.size), ""]);
  });

  it("a file the storage no longer has is a 404", async () => {
    const answer = await fetch(`${app.url}/files/${newStorageKey()}`);
    expect(answer.status).toBe(404);
    await answer.arrayBuffer();
  });

  it(which === "s3" ? "redirect: a 303 to a presigned URL that answers with the same disposition and type" : "redirect asked of the disk: it streams (a disk has no presigned URLs)", async () => {
    const answer = await fetch(url(text, "/redirect"), { redirect: "manual" });
    if (which === "disk") {
      expect([answer.status, await answer.text()]).toEqual([200, "0123456789"]);
      return;
    }
    expect([answer.status, answer.headers.get("cache-control")]).toEqual([303, "no-store"]);
    const location = new URL(answer.headers.get("location") as string);
    expect(location.pathname).toBe(`/${s3server.bucket}/${text.key}`);
    expect(Object.fromEntries([...location.searchParams].filter(([name]) => name.startsWith("response-") || name === "X-Amz-Expires"))).toEqual({
      "X-Amz-Expires": "30",
      "response-content-disposition": `attachment; filename="Resume _final_ 2026.txt"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%C2%ABfinal%C2%BB%202026.txt`,
      "response-content-type": "text/plain",
    });
    // Fetching it is left to s3-storage.test.ts (a presigned GET with a disposition): s3rver
    // rebuilds a signed query with encodeURIComponent, which leaves the ' of filename*=UTF-8''
    // unencoded where SigV4 (and AWS) encode it, so it refuses this URL's signature.
  });
});
