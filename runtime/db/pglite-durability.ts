import fs from "node:fs";
import type { PGliteOptions } from "@electric-sql/pglite";
import { loadDriver } from "./driver.js";

/**
 * What the embedded engine is started with so that a committed write survives a crash of the
 * machine, not only of the process (docs/guides/database.md, "Durability").
 *
 * PGlite starts PostgreSQL with `-F` (fsync off). Dropping the flag is not enough on Node:
 * PGlite's file system there (Emscripten's NODEFS) has no `fsync` of its own, so PostgreSQL's
 * fsync calls end in the WebAssembly runtime without reaching the disk, and `fdatasync` (the
 * WAL's default sync method) is a no-op there too. So: fsync on, the WAL synced with `fsync`,
 * and NODEFS given an `fsync` that calls the host's. (`relaxedDurability`, PGlite's own option,
 * is about when it copies an in-memory file system to the browser's storage: it does nothing
 * for a directory on Node.)
 */
export interface DurableStart {
  /** The file system PGlite mounts `directory` with: NODEFS, whose fsync reaches the disk. */
  readonly fs: NonNullable<PGliteOptions["fs"]>;
  /** PGlite's default start parameters without `-F`, the WAL synced with fsync. */
  readonly startParams: string[];
}

/** PGlite's own start parameters in 0.5.16, for a version that no longer exposes them. */
const PGLITE_DEFAULT_START = [
  "--single",
  "-F",
  "-O",
  "-j",
  "-c",
  "search_path=public",
  "-c",
  "exit_on_error=false",
  "-c",
  "log_checkpoints=false",
  "-c",
  "max_worker_processes=0",
  "-c",
  "max_parallel_workers=0",
  "-c",
  "max_parallel_workers_per_gather=0",
  "-c",
  "io_method=sync",
  "-c",
  "max_parallel_maintenance_workers=0",
];

/** WASI's EIO, what a failed fsync answers PostgreSQL (which then stops rather than lose data). */
const EIO = 29;

/** The Emscripten stream PostgreSQL syncs: NODEFS keeps the host's file descriptor in `nfd`. */
interface NodefsStream {
  readonly nfd?: number;
}

interface EmscriptenModuleLike {
  readonly NODEFS: { stream_ops: { fsync?: (stream: NodefsStream) => number } };
}

/** The durable start for `directory`, given PGlite's class (whose defaults it starts from). */
export async function durableStart(pglite: { readonly defaultStartParams?: unknown }, directory: string): Promise<DurableStart> {
  const { NodeFS } = await loadDriver("@electric-sql/pglite", () => import("@electric-sql/pglite/nodefs"));
  class SyncingNodeFS extends NodeFS {
    override async init(...args: Parameters<InstanceType<typeof NodeFS>["init"]>): ReturnType<InstanceType<typeof NodeFS>["init"]> {
      const { emscriptenOpts } = await super.init(...args);
      // Runs after NodeFS mounted the directory and before PostgreSQL starts; NODEFS is this
      // instance's own, so no other PGlite in the process is changed.
      const syncing = (module: EmscriptenModuleLike): void => {
        module.NODEFS.stream_ops.fsync = syncStream;
      };
      // PGlite types its preRun hooks with its own module type, of which NODEFS is a part.
      return { emscriptenOpts: { ...emscriptenOpts, preRun: [...(emscriptenOpts.preRun ?? []), syncing as unknown as NonNullable<typeof emscriptenOpts.preRun>[number]] } };
    }
  }
  const given = pglite.defaultStartParams;
  const defaults = Array.isArray(given) && given.every((p) => typeof p === "string") ? (given as string[]) : PGLITE_DEFAULT_START;
  return { fs: new SyncingNodeFS(directory), startParams: [...defaults.filter((p) => p !== "-F"), "-c", "fsync=on", "-c", "wal_sync_method=fsync"] };
}

/** NODEFS's missing fsync: the host's, on the file's own descriptor. */
function syncStream(stream: NodefsStream): number {
  if (stream.nfd === undefined) return 0;
  try {
    // Through the module object (not a named import), so a test can watch the syncs happen.
    fs.fsyncSync(stream.nfd);
    return 0;
  } catch {
    return EIO;
  }
}
