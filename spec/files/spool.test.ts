// Issue 40 item 2: a file part is spooled to disk as it arrives, never held in memory: the spool
// takes at most its buffer (SPOOL_BUFFER_BYTES, 1 MiB) of a file ahead of the disk, then pauses
// its source until the writes catch up (backpressure), so a 1 GB upload costs a small constant.
import { createHash } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { ByteBudget, spool, SPOOL_BUFFER_BYTES } from "../../runtime/files/spool.js";
import { removeFolder, tempFolder } from "./support.js";

const CHUNK = 32 * 1024;

/**
 * A source of `total` bytes in 32 KiB chunks, as a socket gives them, that pushes its next chunk
 * only when the spool asks for one; each time, it reads how much of the file is on disk already
 * (the spool's only file in `dir`) and keeps the most it had handed over beyond that.
 */
function measuredSource(dir: string, total: number): { source: Readable; hash: () => string; mostAhead: () => number } {
  const hash = createHash("sha256");
  let pushed = 0;
  let mostAhead = 0;
  const onDisk = (): number => {
    const [name] = readdirSync(dir);
    return name === undefined ? 0 : statSync(join(dir, name)).size;
  };
  const source = new Readable({
    highWaterMark: CHUNK,
    read() {
      mostAhead = Math.max(mostAhead, pushed - onDisk());
      if (pushed >= total) return void this.push(null);
      const chunk = Buffer.alloc(CHUNK, pushed / CHUNK);
      hash.update(chunk);
      pushed += chunk.length;
      this.push(chunk);
    },
  });
  return { source, hash: () => hash.digest("hex"), mostAhead: () => mostAhead };
}

describe("the spool writes a file part to disk as it arrives", () => {
  it("holds at most its 1 MiB buffer (and a few chunks) of the file ahead of the disk, whatever the file's size", async () => {
    const dir = tempFolder("spool-ahead-");
    try {
      const total = 32 * 1024 * 1024;
      const measured = measuredSource(dir, total);
      const spooled = await spool(measured.source, dir, total, new ByteBudget(total));
      expect(spooled.size).toBe(total);
      expect(statSync(spooled.path).size).toBe(total);
      expect(spooled.checksum).toBe(measured.hash());
      // The buffer, one chunk over it, the chunk being written, the source's own chunk and the
      // two sides of the meter between them: 6 chunks of slack. Without backpressure the whole
      // file would be taken before the first write is done.
      expect(measured.mostAhead()).toBeLessThanOrEqual(SPOOL_BUFFER_BYTES + 6 * CHUNK);
      expect(measured.mostAhead()).toBeGreaterThan(0);
    } finally {
      removeFolder(dir);
    }
  });

  it("past its limit, stops and leaves nothing behind", async () => {
    const dir = tempFolder("spool-limit-");
    try {
      const measured = measuredSource(dir, 4 * 1024 * 1024);
      await expect(spool(measured.source, dir, 3 * 1024 * 1024, new ByteBudget(Number.MAX_SAFE_INTEGER))).rejects.toMatchObject({ name: "SpoolStopped", reason: "file" });
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      removeFolder(dir);
    }
  });
});
