import { createHash } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { text } from "node:stream/consumers";
import { afterAll, describe, expect, it } from "vitest";
import { ChecksumMismatch, newStorageKey, type Storage, type StoredInfo } from "../../runtime/files/index.js";
import { removeFolder, tempFolder } from "./support.js";

const sha256 = (bytes: string | Buffer): string => createHash("sha256").update(bytes).digest("hex");
const infoOf = (bytes: string | Buffer, type = "text/plain"): StoredInfo => ({ type, size: Buffer.byteLength(bytes), checksum: sha256(bytes) });

/**
 * What every `Storage` must do (the disk and S3 alike). Call it from a test file with a name and
 * a way to get the storage (made once, in the file's beforeAll).
 */
export function storageConformance(name: string, storage: () => Storage): void {
  describe(`Storage conformance: ${name}`, () => {
    const folder = tempFolder("conformance-");
    afterAll(() => removeFolder(folder));
    let n = 0;
    const local = (bytes: string | Buffer): string => {
      const path = join(folder, `source-${n++}`);
      writeFileSync(path, bytes);
      return path;
    };

    it("put from a file, then get gives the same bytes and size; the file stays unless moved", async () => {
      const key = newStorageKey();
      const path = local("hello, storage");
      await storage().put(key, { path }, infoOf("hello, storage"));
      expect(existsSync(path)).toBe(true);
      const got = await storage().get(key);
      expect(got?.size).toBe(14);
      expect(got?.length).toBe(14);
      expect(await text(got!.stream)).toBe("hello, storage");
      expect(await storage().exists(key)).toBe(true);
    });

    it("put with move consumes the file", async () => {
      const key = newStorageKey();
      const path = local("moved");
      await storage().put(key, { path, move: true }, infoOf("moved"));
      expect(existsSync(path)).toBe(false);
      expect(await text((await storage().get(key))!.stream)).toBe("moved");
    });

    it("put from a stream; binary bytes come back exactly", async () => {
      const key = newStorageKey();
      const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7) % 256));
      await storage().put(key, { stream: Readable.from([bytes.subarray(0, 100_000), bytes.subarray(100_000)]) }, infoOf(bytes, "application/octet-stream"));
      const got = await storage().get(key);
      const back = Buffer.concat(await got!.stream.toArray());
      expect(sha256(back)).toBe(sha256(bytes));
    });

    it("get with a range gives those bytes, both ends included, and the whole size", async () => {
      const key = newStorageKey();
      await storage().put(key, { path: local("0123456789") }, infoOf("0123456789"));
      const middle = await storage().get(key, { start: 2, end: 5 });
      expect([middle?.length, middle?.size, await text(middle!.stream)]).toEqual([4, 10, "2345"]);
      const last = await storage().get(key, { start: 9, end: 9 });
      expect([last?.length, await text(last!.stream)]).toEqual([1, "9"]);
    });

    it("a key with nothing under it: get gives undefined, exists false, delete is no error", async () => {
      const key = newStorageKey();
      expect(await storage().get(key)).toBeUndefined();
      expect(await storage().exists(key)).toBe(false);
      await storage().delete(key);
    });

    it("delete removes, and deleting again is no error", async () => {
      const key = newStorageKey();
      await storage().put(key, { path: local("gone") }, infoOf("gone"));
      await storage().delete(key);
      await storage().delete(key);
      expect(await storage().get(key)).toBeUndefined();
      expect(await storage().exists(key)).toBe(false);
    });

    it("bytes that do not match their checksum or size are refused, and nothing is stored under the key", async () => {
      const key = newStorageKey();
      await expect(storage().put(key, { path: local("tampered") }, { ...infoOf("original"), size: 8 })).rejects.toBeInstanceOf(ChecksumMismatch);
      expect(await storage().exists(key)).toBe(false);
      await expect(storage().put(key, { path: local("short") }, { ...infoOf("short"), size: 6 })).rejects.toBeInstanceOf(ChecksumMismatch);
      await expect(storage().put(key, { path: local("longer") }, { ...infoOf("longer"), size: 3 })).rejects.toBeInstanceOf(ChecksumMismatch);
      expect(await storage().exists(key)).toBe(false);
    });

    it("a source that fails halfway stores nothing", async () => {
      const key = newStorageKey();
      const failing = new Readable({
        read() {
          this.push(Buffer.alloc(1000, 1));
          this.destroy(new Error("the source broke"));
        },
      });
      await expect(storage().put(key, { stream: failing }, { type: "text/plain", size: 5000, checksum: "0".repeat(64) })).rejects.toThrow();
      expect(await storage().exists(key)).toBe(false);
    });

    it("keys are fw's tokens: a path, an empty key or one over 200 characters is refused", async () => {
      for (const bad of ["../etc/passwd", "a/b", "", ".hidden", "x".repeat(201), "a\\b"]) {
        await expect(storage().get(bad), bad).rejects.toThrow(/no storage key/);
      }
    });

    it("many puts at once each store their own bytes", async () => {
      const keys = Array.from({ length: 12 }, () => newStorageKey());
      await Promise.all(keys.map((key) => storage().put(key, { stream: Readable.from([Buffer.from(key)]) }, infoOf(key))));
      for (const key of keys) expect(await text((await storage().get(key))!.stream)).toBe(key);
    });
  });
}
