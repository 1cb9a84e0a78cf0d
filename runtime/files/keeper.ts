/**
 * fw/files' `FileKeeper` (runtime/db/stored-files.ts): what fw/db and fw/jobs may do with the
 * stored files they meet in rows (issue 41: deleting an account, "Download my data"), through the
 * storage the app's models use. Registered with the storage, when a model's files are made.
 */
import type { Database } from "../db/database.js";
import type { FileKeeper } from "../db/stored-files.js";
import { ensureJobsTable } from "../jobs/table.js";
import { FileJobs } from "./file-jobs.js";
import { FilesTable } from "./files-table.js";
import { newStorageKey, type Storage } from "./storage.js";

export function storageKeeper(storage: () => Storage, database: () => Database): FileKeeper {
  return {
    prepare: (db) => ensureJobsTable(db),
    release: (tx, keys) => FileJobs.releaseIn(tx, keys),
    exists: (key) => storage().exists(key),
    open: async (key) => {
      const bytes = await storage().get(key);
      return bytes === undefined ? undefined : { stream: bytes.stream, size: bytes.size };
    },
    keep: async (path, info, owner) => {
      const key = newStorageKey();
      await storage().put(key, { path, move: true }, info);
      await new FilesTable(database()).record(owner, { key, name: "archive", ...info });
      return key;
    },
  };
}
