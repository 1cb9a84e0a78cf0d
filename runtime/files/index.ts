/**
 * fw/files: what uploads are stored and served with. The HTTP core reads multipart bodies itself
 * (through this module's reader, loaded on the first such request); this entry is for the app
 * and fw's upper layers: storage (disk or S3, chosen by `FW_STORAGE`), serving a stored file,
 * and the checks an upload went through. docs/guides/files.md.
 */
export { UploadedFile, Uploads, UploadTooLarge, IMAGE_TYPES, type FileField, type FileFields, type UploadProblem } from "../http/uploads.js";
export {
  newStorageKey,
  checkedKey,
  ChecksumMismatch,
  StorageFull,
  type Storage,
  type StorageSource,
  type StoredInfo,
  type StoredBytes,
  type ByteRange,
  type SignedUrlOptions,
} from "./storage.js";
export { DiskStorage } from "./disk-storage.js";
export { S3Storage, type S3Settings } from "./s3-storage.js";
export { storageFromEnv, storageAt, StorageConfigError, STORAGE_VARIABLE, DEV_STORAGE_DIR } from "./storage-config.js";
export { sanitizeFileName, fileNameRefusal, MAX_FILE_NAME_BYTES } from "./file-name.js";
export { sniffFile } from "./sniff.js";
export { decide, matches, type Verdict } from "./accept.js";
export { serveStored, servedInline, FILE_CSP, type StoredFile, type ServeOptions, type ServedRequest } from "./serve.js";
export { contentDisposition, asciiFallback } from "./content-disposition.js";
export { rangeOf, type RangeAsk } from "./range.js";
export { modelFiles, type ModelFilesOptions } from "./model-files.js";
export { FILES_TABLE, FILES_TABLE_SQL, KEEP_MS, SWEEP_AGE_MS } from "./files-table.js";
export { DELETE_JOB, SWEEP_JOB } from "./file-jobs.js";
