// Issue 40, the floors together: a browser form's file, read by the core, taken into storage by the
// handler (moved, not copied, on the same disk), and served back by serveStored, on the disk and
// on S3; nothing stays in the spool folder.
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DiskStorage, newStorageKey, serveStored, storageAt, type Storage, type StoredFile } from "../../runtime/files/index.js";
import { NotFound, Ok, Redirect, Route, RouteTable } from "../../runtime/index.js";
import { csrfFrom, serve, sessionCookie, type Served } from "../support/serve.js";
import { startS3Server, type S3Server } from "./s3-server.js";
import { left, png, removeFolder, tempFolder } from "./support.js";

const spool = tempFolder("spool-");
const root = tempFolder("files-");
let s3server: S3Server;
const storages: Record<string, Storage> = { disk: new DiskStorage(root) };
beforeAll(async () => {
  s3server = await startS3Server();
  storages["s3"] = storageAt(s3server.url);
});
afterAll(async () => {
  await s3server.close();
  removeFolder(spool);
  removeFolder(root);
});

describe.each(["disk", "s3"])("an upload stored on %s and served back", (which) => {
  let app: Served;
  const rows = new Map<string, StoredFile>();
  let spooledPath = "";

  beforeAll(async () => {
    const storage = storages[which] as Storage;
    app = await serve({
      routes: RouteTable.of(
        Route.get("/form", (request) => Ok(<input type="hidden" name="_csrf" value={request.csrf} />)),
        Route.post(
          "/covers",
          async (request) => {
            const cover = request.files.get("cover");
            if (cover === undefined) return Ok(JSON.stringify(request.files.problems));
            spooledPath = cover.path;
            const row = { key: newStorageKey(), size: cover.size, type: cover.type, name: cover.name, checksum: cover.checksum };
            await storage.put(row.key, { path: cover.take(), move: true }, row);
            rows.set(row.key, row);
            return Redirect(`/covers/${row.key}`);
          },
          { files: { cover: { maxBytes: 100_000, accept: [], image: true } } },
        ),
        Route.get("/covers/:key", (request) => {
          const row = rows.get(request.params["key"] ?? "");
          if (row === undefined) throw new NotFound();
          return serveStored(storage, row, request);
        }),
      ),
      uploads: { spoolDir: spool },
    });
  });
  afterAll(() => app.close());

  it("the file's bytes, type, name and checksum survive the trip; the spooled file was moved, not left", async () => {
    const page = await app.get("/form");
    const cookie = sessionCookie(page) as string;
    const form = new FormData();
    form.set("_csrf", csrfFrom(await page.text()));
    form.set("cover", new Blob([png(8, 8)], { type: "application/octet-stream" }), "Cover «1».png");
    const posted = await fetch(`${app.url}/covers`, { method: "POST", headers: { cookie }, body: form, redirect: "manual" });
    expect(posted.status).toBe(303);
    expect(existsSync(spooledPath)).toBe(false);
    expect(left(spool)).toEqual([]);
    const served = await fetch(app.url + (posted.headers.get("location") as string), { headers: { cookie } });
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/png");
    expect(served.headers.get("content-disposition")).toBe(`inline; filename="Cover _1_.png"; filename*=UTF-8''Cover%20%C2%AB1%C2%BB.png`);
    expect(Buffer.from(await served.arrayBuffer()).equals(png(8, 8))).toBe(true);
  });
});
