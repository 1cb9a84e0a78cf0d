// Issue 40: a disk that fills up while a file is spooled gets an answer (413, saying the server
// has no room), not a crash, and nothing half-written stays. The full disk is real: a 256 KiB
// tmpfs mounted for the test (root only; without root the test says so and is skipped).
import { execFileSync } from "node:child_process";
import { rmdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Ok, Route, RouteTable } from "../../runtime/index.js";
import { csrfFrom, serve, sessionCookie, type Served } from "../support/serve.js";
import { field, file, left, MULTIPART, multipartBody, tempFolder } from "./support.js";

/** Mounts a tiny tmpfs at a new folder; undefined (and why) where this process may not mount. */
function tinyDisk(): { folder: string } | { why: string } {
  const folder = tempFolder("full-disk-");
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", folder], { stdio: "pipe" });
    return { folder };
  } catch (error) {
    rmdirSync(folder);
    return { why: `cannot mount a tmpfs here (${(error as Error).message.split("\n")[0]}): run the tests as root to cover a full disk` };
  }
}

const disk = tinyDisk();
const mounted = "folder" in disk;
if (!mounted) console.log(`spec/files/disk-full: skipped: ${disk.why}`);

describe.skipIf(!mounted)("a full disk while spooling", () => {
  const folder = mounted ? disk.folder : "";
  let app: Served;
  let token: string;
  let cookie: string;

  beforeAll(async () => {
    const routes = RouteTable.of(
      Route.get("/form", (request) => Ok(<input type="hidden" name="_csrf" value={request.csrf} />)),
      Route.post("/upload", (request) => Ok(request.files.all.map((f) => `${f.name}:${f.size}`).join(",")), { files: { doc: { maxBytes: 10_000_000, accept: ["text/plain"] } } }),
    );
    app = await serve({ routes, uploads: { spoolDir: folder } });
    const page = await app.get("/form");
    token = csrfFrom(await page.text());
    cookie = sessionCookie(page) as string;
  });
  afterAll(async () => {
    await app?.close();
    execFileSync("umount", [folder]);
    rmdirSync(folder);
  });

  const upload = (bytes: number) =>
    fetch(`${app.url}/upload`, { method: "POST", headers: { cookie, "content-type": MULTIPART }, body: multipartBody([field("_csrf", token), file("doc", "a.txt", "x".repeat(bytes))]) });

  it("answers 413 saying there is no room, leaves no partial file, and goes on serving", async () => {
    const response = await upload(1_000_000);
    expect(response.status).toBe(413);
    expect(await response.text()).toContain("The server has no room to store the file sent in &quot;doc&quot; right now.");
    expect(left(folder)).toEqual([]);
    // Room again for what fits.
    const small = await upload(1000);
    expect([small.status, await small.text()]).toEqual([200, "a.txt:1000"]);
    expect(left(folder)).toEqual([]);
  });
});
