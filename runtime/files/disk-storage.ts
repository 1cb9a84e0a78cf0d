import { randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, open, rename, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { checkedKey, ChecksumMismatch, StorageFull, Verified, type ByteRange, type Storage, type StorageSource, type StoredBytes, type StoredInfo } from "./storage.js";

/**
 * Files in a folder of the local disk: `<root>/<first two characters of the key>/<key>` (so no
 * folder holds more than a 256th of them). Writes are atomic: the bytes go to a temporary name
 * in the key's own folder, are flushed to the disk, then renamed into place, so a reader sees the
 * whole file or none, and a failure (a full disk, a crash) leaves no half-written file under a
 * key. A spooled upload on the same disk is renamed into place without a copy.
 */
export class DiskStorage implements Storage {
  readonly description: string;

  constructor(readonly root: string) {
    this.description = `disk ${root}`;
  }

  private pathOf(key: string): string {
    const checked = checkedKey(key);
    return join(this.root, checked.slice(0, 2), checked);
  }

  async put(key: string, source: StorageSource, info: StoredInfo): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(dirname(target), { recursive: true });
    if ("path" in source && source.move === true && (await this.renamed(source.path, target, info))) return;
    const temporary = join(dirname(target), `.part-${randomBytes(8).toString("hex")}`);
    try {
      await this.write("path" in source ? createReadStream(source.path) : source.stream, temporary, key, info);
      await rename(temporary, target);
    } catch (error) {
      await rm(temporary, { force: true });
      const code = (error as NodeJS.ErrnoException).code;
      throw code === "ENOSPC" || code === "EDQUOT" ? new StorageFull(this.description, error) : error;
    }
    if ("path" in source && source.move === true) await rm(source.path, { force: true });
  }

  /** Moves a file of the same disk into place (one rename, atomic); false when it is on another disk. */
  private async renamed(from: string, target: string, info: StoredInfo): Promise<boolean> {
    const size = (await stat(from)).size;
    if (size !== info.size) throw new ChecksumMismatch(target, `size (${info.size} bytes, the file has ${size})`);
    try {
      await rename(from, target);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EXDEV") return false;
      throw error;
    }
  }

  /** Writes the stream to `temporary`, checking size and checksum, flushed to the disk before it returns. */
  private async write(stream: Readable, temporary: string, key: string, info: StoredInfo): Promise<void> {
    await pipeline(stream, new Verified(key, info), createWriteStream(temporary, { flags: "wx", mode: 0o600 }));
    const handle = await open(temporary, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  async get(key: string, range?: ByteRange): Promise<StoredBytes | undefined> {
    const path = this.pathOf(key);
    // Opened first, then measured: a delete in between cannot cut the stream short (the open file stays readable).
    const handle = await open(path, "r").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" || error.code === "ENOTDIR") return undefined;
      throw error;
    });
    if (handle === undefined) return undefined;
    const { size } = await handle.stat();
    const stream = handle.createReadStream(range === undefined ? {} : { start: range.start, end: range.end });
    return { stream, size, length: range === undefined ? size : range.end - range.start + 1 };
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async exists(key: string): Promise<boolean> {
    return stat(this.pathOf(key)).then(
      (info) => info.isFile(),
      () => false,
    );
  }
}
