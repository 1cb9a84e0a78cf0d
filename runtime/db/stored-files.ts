/**
 * What fw/files lends the floors below it for the stored files they meet in rows (issue 41: a
 * user's own data): deleting an account releases the files of the rows that go with it, in the
 * same transaction, and "Download my data" reads them and keeps its archive. fw/files registers
 * it when a model's files are made (once per process), so neither fw/db nor fw/jobs imports it.
 */
import type { Readable } from "node:stream";
import type { Database, Queryable } from "./database.js";

/** A stored file's bytes, as the storage gives them. */
export interface StoredBytesOf {
  readonly stream: Readable;
  readonly size: number;
}

export interface FileKeeper {
  /** Gets ready on `db` before a transaction releases files into it (fw/jobs' table exists). */
  prepare(db: Database): Promise<void>;
  /**
   * Enqueues, in `tx`, the deletion of files rows stop holding when `tx` commits (fw/files'
   * `fw.files.delete`: each deleted only if no row holds it by then); nothing when `tx` rolls back.
   */
  release(tx: Queryable, keys: readonly string[]): Promise<void>;
  /** Whether bytes are stored under `key`. */
  exists(key: string): Promise<boolean>;
  /** The bytes stored under `key`; undefined when there are none. */
  open(key: string): Promise<StoredBytesOf | undefined>;
  /**
   * Stores the file at `path` on this machine (moved) under a fresh key, recorded as a file the
   * jsonb column `owner.column` of `owner.table` may hold (so fw/files deletes it once no row
   * does): the key.
   */
  keep(path: string, info: { readonly type: string; readonly size: number; readonly checksum: string }, owner: { readonly table: string; readonly column: string }): Promise<string>;
}

let keeper: FileKeeper | undefined;

/** Registers the process's file keeper (fw/files does, for the storage its models use); the first one stays. */
export function setFileKeeper(registered: FileKeeper): void {
  keeper ??= registered;
}

/** The process's file keeper; undefined when no model stores files. */
export function fileKeeper(): FileKeeper | undefined {
  return keeper;
}
