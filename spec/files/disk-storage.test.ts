// Issue 40 item 4: the local disk storage, through the conformance suite every storage passes,
// plus what only a disk has: atomic writes (no temporary left), a full disk, and FW_STORAGE.
import { execFileSync } from "node:child_process";
import { readdirSync, rmdirSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DiskStorage, newStorageKey, S3Storage, StorageConfigError, StorageFull, storageAt, storageFromEnv } from "../../runtime/files/index.js";
import { storageConformance } from "./storage-conformance.js";
import { removeFolder, tempFolder } from "./support.js";

const root = tempFolder("disk-storage-");
afterAll(() => removeFolder(root));
const disk = new DiskStorage(root);

storageConformance("DiskStorage", () => disk);

/** Every file under the storage's root, temporaries included. */
function allFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => entry.name);
}

describe("DiskStorage on the disk", () => {
  it("files sit in a folder per first two characters of their key, with no temporary left beside them", async () => {
    const key = newStorageKey();
    const source = join(root, "..", `${key}-source`);
    writeFileSync(source, "x");
    try {
      await disk.put(key, { path: source }, { type: "text/plain", size: 1, checksum: createHash("sha256").update("x").digest("hex") });
    } finally {
      removeFolder(source);
    }
    expect(readdirSync(join(root, key.slice(0, 2)))).toContain(key);
    expect(allFiles(root).filter((name) => name.startsWith(".part-"))).toEqual([]);
  });

  it("a full disk: StorageFull, and nothing half-written (a real 256 KiB tmpfs; root only)", async (context) => {
    const folder = tempFolder("full-");
    try {
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", folder], { stdio: "pipe" });
    } catch {
      rmdirSync(folder);
      context.skip("cannot mount a tmpfs here: run the tests as root to cover a full disk");
    }
    try {
      const full = new DiskStorage(join(folder, "files"));
      const bytes = Buffer.alloc(1_000_000, 7);
      const key = newStorageKey();
      const error = await full.put(key, { stream: (await import("node:stream")).Readable.from([bytes]) }, { type: "application/octet-stream", size: bytes.length, checksum: createHash("sha256").update(bytes).digest("hex") }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StorageFull);
      expect(await full.exists(key)).toBe(false);
      expect(allFiles(folder)).toEqual([]);
    } finally {
      execFileSync("umount", [folder]);
      rmdirSync(folder);
    }
  });
});

describe("FW_STORAGE", () => {
  it("unset: the disk at .fw/files in dev; production refuses, saying what to set", () => {
    const dev = storageFromEnv({}, { production: false, cwd: "/srv/app" });
    expect(dev).toBeInstanceOf(DiskStorage);
    expect((dev as DiskStorage).root).toBe("/srv/app/.fw/files");
    expect(() => storageFromEnv({}, { production: true, cwd: "/srv/app" })).toThrow(/FW_STORAGE is not set, and production must name where files are kept/);
  });

  it("file:///abs/path is the disk there; s3://bucket?… is S3 with its settings", () => {
    expect((storageAt("file:///var/lib/app/files") as DiskStorage).root).toBe("/var/lib/app/files");
    const s3 = storageAt("s3://uploads?endpoint=http://127.0.0.1:9000&region=eu-west-1&forcePathStyle=true&prefix=app/") as S3Storage;
    expect(s3).toBeInstanceOf(S3Storage);
    expect(s3.settings).toEqual({ bucket: "uploads", endpoint: "http://127.0.0.1:9000", region: "eu-west-1", forcePathStyle: true, prefix: "app/" });
    expect(s3.description).toBe("s3 uploads (http://127.0.0.1:9000)");
  });

  it("anything else is refused with the forms it takes", () => {
    for (const [value, says] of [
      ["/var/files", /is not a URL/],
      ["file://host/files", /three slashes/],
      ["ftp://x/y", /ftp: storage, which fw does not know/],
      ["s3://", /name the bucket/],
      ["s3://b/prefix", /name the bucket/],
      ["s3://b?endpoint=ftp://x", /http:\/\/ or https:\/\//],
      ["s3://b?forcePathStyle=yes", /true or false/],
      ["s3://b?acl=public", /"acl" is no S3 setting/],
    ] as const) {
      expect(() => storageAt(value), value).toThrow(StorageConfigError);
      expect(() => storageAt(value), value).toThrow(says);
    }
  });
});
