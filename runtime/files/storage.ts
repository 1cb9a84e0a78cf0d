import { createHash, randomBytes } from "node:crypto";
import { Transform, type Readable, type TransformCallback } from "node:stream";

/**
 * Where stored files live: a small interface with two implementations, the local disk
 * (`DiskStorage`) and S3-compatible object storage (`S3Storage`), chosen by `FW_STORAGE`
 * (`storageFromEnv`). Keys are fw's own random tokens (`newStorageKey`), never user input.
 */
export interface Storage {
  /** What it is, for logs and messages: `disk /var/lib/app/files`, `s3 bucket (http://…)`. */
  readonly description: string;
  /**
   * Stores the bytes under `key`, whole or not at all: a reader never sees a half-written file,
   * and a failure (a full disk, a checksum that does not match, the network) leaves nothing under
   * the key. `info.checksum` (SHA-256, hex, as `UploadedFile.checksum`) is checked against the
   * bytes (by fw on disk, by the service on S3), and so is `info.size`.
   */
  put(key: string, source: StorageSource, info: StoredInfo): Promise<void>;
  /** The bytes under `key` (a `range` of them, when given) as a stream; undefined when there are none. */
  get(key: string, range?: ByteRange): Promise<StoredBytes | undefined>;
  /** Removes what is under `key`; removing what is not there is no error. */
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  /**
   * A short-lived URL the browser can fetch the bytes from directly, where the backend can make
   * one (S3: a presigned GET); the disk has none.
   */
  signedUrl?(key: string, options: SignedUrlOptions): Promise<string>;
}

/**
 * What `put` stores: a file on this machine (a spooled upload, `UploadedFile.path`; `move: true`
 * consumes it: renamed into place on the same disk, else copied and then removed), or a stream.
 */
export type StorageSource = { readonly path: string; readonly move?: boolean } | { readonly stream: Readable };

/** What `put` knows of the bytes it stores, checked against them. */
export interface StoredInfo {
  /** The content type (sent to S3 as the object's Content-Type). */
  readonly type: string;
  readonly size: number;
  /** SHA-256 of the bytes, 64 hex digits. */
  readonly checksum: string;
}

/** A byte range, both ends included (as in `Range: bytes=start-end`). */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/** Bytes read back: the stream, its length, and the whole object's size. */
export interface StoredBytes {
  readonly stream: Readable;
  /** Bytes in `stream` (the range's length, or the whole size). */
  readonly length: number;
  /** The whole object's size. */
  readonly size: number;
}

export interface SignedUrlOptions {
  /** Seconds the URL works for. */
  readonly expiresIn: number;
  /** The `Content-Disposition` the answer from that URL carries. */
  readonly disposition?: string;
  /** The `Content-Type` the answer from that URL carries. */
  readonly type?: string;
}

/** A storage key: fw's own random token, 128 bits, hex. Never derived from anything a client sent. */
export function newStorageKey(): string {
  return randomBytes(16).toString("hex");
}

/**
 * A key a storage accepts: letters, digits, `-` and `_` (and `.` after the first character),
 * 1 to 200 of them. Rules out paths (`/`, `..`) whatever a caller passes: what fw stores is
 * only ever found under a key fw made, or one made from it (`key + "-thumb"`).
 */
const KEY = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;

/** The key, or throws naming it: a bad key is the program's mistake, never a client's (keys are never user input). */
export function checkedKey(key: string): string {
  if (!KEY.test(key)) throw new Error(`${JSON.stringify(key.slice(0, 60))} is no storage key: keys are fw's own random tokens (newStorageKey), letters, digits, "-", "_" and ".", at most 200.`);
  return key;
}

/** A `put` whose bytes do not match what it was told (size or checksum): nothing was stored. */
export class ChecksumMismatch extends Error {
  constructor(key: string, what: string) {
    super(`The bytes for ${key} do not match their ${what}: nothing was stored.`);
    this.name = "ChecksumMismatch";
  }
}

/** A `put` refused for lack of room (ENOSPC, a quota): nothing was stored. */
export class StorageFull extends Error {
  constructor(description: string, override readonly cause: unknown) {
    super(`${description} has no room for this file: nothing was stored.`);
    this.name = "StorageFull";
  }
}

/**
 * Passes bytes through while hashing them, holding the last chunk back until the end: only when
 * the size and SHA-256 match `info` does the last chunk go out; otherwise the stream fails
 * (`ChecksumMismatch`) before the write it feeds can complete, so a disk rename never happens
 * and an S3 upload stops short of its Content-Length and is refused, whatever the service checks
 * itself. Too many bytes fail at once.
 */
export class Verified extends Transform {
  #size = 0;
  #held: Buffer | undefined;
  readonly #hash = createHash("sha256");

  constructor(
    private readonly key: string,
    private readonly info: StoredInfo,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.#size += chunk.length;
    if (this.#size > this.info.size) return done(new ChecksumMismatch(this.key, `size (${this.info.size} bytes, more came)`));
    this.#hash.update(chunk);
    const held = this.#held;
    this.#held = chunk;
    done(null, held);
  }

  override _flush(done: TransformCallback): void {
    if (this.#size !== this.info.size) return done(new ChecksumMismatch(this.key, `size (${this.info.size} bytes, ${this.#size} came)`));
    if (this.#hash.digest("hex") !== this.info.checksum.toLowerCase()) return done(new ChecksumMismatch(this.key, "SHA-256 checksum"));
    done(null, this.#held);
  }
}
