import { createHash, randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { Transform, type Readable, type TransformCallback } from "node:stream";
import { pipeline } from "node:stream/promises";

/** A file part written whole to a temporary file. */
export interface Spooled {
  readonly path: string;
  readonly size: number;
  /** SHA-256 of the bytes, hex. */
  readonly checksum: string;
}

/** Why a spool stopped short: its own limit, the request's total, or no room on the disk. */
export class SpoolStopped extends Error {
  constructor(
    readonly reason: "file" | "total" | "disk",
    readonly limit: number,
    override readonly cause?: unknown,
  ) {
    super(reason === "disk" ? "The disk has no room for this upload." : `The upload passed its ${limit}-byte limit.`);
    this.name = "SpoolStopped";
  }
}

/** The bytes a request's files may still take together; shared by its spools. */
export class ByteBudget {
  constructor(readonly limit: number) {}
  #used = 0;

  /** Counts `n` more bytes; false once the total passes the limit. */
  take(n: number): boolean {
    this.#used += n;
    return this.#used <= this.limit;
  }
}

/**
 * How much of a file the spool takes from the request before it waits for the disk: what one
 * upload holds in memory at most while its writes catch up. The default of a file stream (16 KiB)
 * is under one socket read (32–64 KiB), so every read became a write of its own, each a round trip
 * to libuv's thread pool (two context switches); with 1 MiB, what arrives during a write goes out
 * in the next one (writev). Measured on a 100 MiB upload, the server pinned to one core
 * (bench/files.mjs): 5× fewer context switches, 4–14 % more MiB/s; 2 MiB and more were slower
 * again (the batches no longer in the core's cache when the kernel copies them).
 */
export const SPOOL_BUFFER_BYTES = 1024 * 1024;

/** A name for a spooled file: random, never derived from what the client sent. */
export function spoolPath(dir: string): string {
  return join(dir, `fw-upload-${randomBytes(16).toString("hex")}`);
}

/**
 * Writes `source` to a new temporary file in `dir` as it arrives, hashing and counting on the
 * way, with the stream's own backpressure (a slow disk slows the client; the spool holds at most
 * `SPOOL_BUFFER_BYTES` of the file, and a chunk, ahead of the disk).
 * Past `maxBytes`, past the request's `budget`, on a full disk, or when the source fails (the
 * client went away), the partial file is removed and the promise rejects (`SpoolStopped` for the
 * first three).
 */
export async function spool(source: Readable, dir: string, maxBytes: number, budget: ByteBudget): Promise<Spooled> {
  const path = spoolPath(dir);
  const meter = new Meter(maxBytes, budget);
  // "wx": a fresh file or nothing; 0600: the spool is the server's alone.
  const file = createWriteStream(path, { flags: "wx", mode: 0o600, highWaterMark: SPOOL_BUFFER_BYTES });
  try {
    await pipeline(source, meter, file);
  } catch (error) {
    // The file is opened asynchronously: a source failing at once rejects before the open has
    // made the file, and a remove then would come first and leave it behind. The stream's
    // 'close' comes after its open and its close, whichever way it ended.
    if (!file.closed) await new Promise<void>((settled) => file.once("close", () => settled()));
    await rm(path, { force: true });
    throw diskFull(error) ? new SpoolStopped("disk", 0, error) : error;
  }
  return { path, size: meter.size, checksum: meter.checksum() };
}

function diskFull(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOSPC" || code === "EDQUOT" || code === "EFBIG";
}

/** Counts and hashes what passes; fails the pipeline past either limit. */
class Meter extends Transform {
  size = 0;
  readonly #hash = createHash("sha256");

  constructor(
    private readonly maxBytes: number,
    private readonly budget: ByteBudget,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) return done(new SpoolStopped("file", this.maxBytes));
    if (!this.budget.take(chunk.length)) return done(new SpoolStopped("total", this.budget.limit));
    this.#hash.update(chunk);
    done(null, chunk);
  }

  checksum(): string {
    return this.#hash.digest("hex");
  }
}
