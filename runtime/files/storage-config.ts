import { isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { DiskStorage } from "./disk-storage.js";
import { S3Storage } from "./s3-storage.js";
import type { Storage } from "./storage.js";

/** The variable that says where stored files live. */
export const STORAGE_VARIABLE = "FW_STORAGE";
/** Where `dev` keeps files when `FW_STORAGE` is unset, relative to the working directory. */
export const DEV_STORAGE_DIR = ".fw/files";

/** `FW_STORAGE` names no storage fw knows, or production names none. */
export class StorageConfigError extends Error {
  override readonly name = "StorageConfigError";
}

const FORMS =
  `${STORAGE_VARIABLE}=file:///absolute/folder (the local disk) or ${STORAGE_VARIABLE}=s3://bucket?endpoint=https://…&region=…&forcePathStyle=true&prefix=… ` +
  "(S3 or an S3-compatible service; credentials from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)";

/**
 * The storage `FW_STORAGE` names: unset → the disk, at `.fw/files` under `cwd` in dev, and in
 * production an error (a temporary or relative folder would lose the files on the next deploy:
 * production names its folder); `file:///abs/path` → the disk there; `s3://bucket?…` → S3.
 */
export function storageFromEnv(env: Readonly<Record<string, string | undefined>>, options: { readonly production: boolean; readonly cwd: string }): Storage {
  const value = env[STORAGE_VARIABLE]?.trim();
  if (value === undefined || value === "") {
    if (options.production) throw new StorageConfigError(`${STORAGE_VARIABLE} is not set, and production must name where files are kept (a folder that survives restarts and deploys): set ${FORMS}.`);
    return new DiskStorage(resolve(options.cwd, DEV_STORAGE_DIR));
  }
  return storageAt(value);
}

/** The storage one `FW_STORAGE` value names. */
export function storageAt(value: string): Storage {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new StorageConfigError(`${STORAGE_VARIABLE}=${JSON.stringify(value)} is not a URL: set ${FORMS}.`);
  }
  if (url.protocol === "file:") return diskAt(url, value);
  if (url.protocol === "s3:") return new S3Storage(s3Settings(url, value));
  throw new StorageConfigError(`${STORAGE_VARIABLE} names a ${url.protocol} storage, which fw does not know: set ${FORMS}.`);
}

function diskAt(url: URL, value: string): DiskStorage {
  if (url.host !== "" || url.search !== "") throw new StorageConfigError(`${STORAGE_VARIABLE}=${value}: a folder is file:///absolute/path, with three slashes and no query.`);
  const folder = fileURLToPath(url);
  if (!isAbsolute(folder)) throw new StorageConfigError(`${STORAGE_VARIABLE}=${value}: the folder must be an absolute path.`);
  return new DiskStorage(folder);
}

const S3_PARAMETERS = new Set(["endpoint", "region", "forcePathStyle", "prefix"]);

function s3Settings(url: URL, value: string): { bucket: string; endpoint?: string; region?: string; forcePathStyle?: boolean; prefix?: string } {
  const bucket = url.host;
  if (bucket === "" || url.pathname !== "") throw new StorageConfigError(`${STORAGE_VARIABLE}=${value}: name the bucket as s3://bucket (a key prefix goes in ?prefix=).`);
  const unknown = [...url.searchParams.keys()].find((name) => !S3_PARAMETERS.has(name));
  if (unknown !== undefined) throw new StorageConfigError(`${STORAGE_VARIABLE}: "${unknown}" is no S3 setting fw reads (it reads ${[...S3_PARAMETERS].join(", ")}).`);
  const get = (name: string): string | undefined => url.searchParams.get(name) ?? undefined;
  const endpoint = get("endpoint");
  if (endpoint !== undefined && !/^https?:\/\//.test(endpoint)) throw new StorageConfigError(`${STORAGE_VARIABLE}: endpoint=${endpoint} must be an http:// or https:// address.`);
  const pathStyle = get("forcePathStyle");
  if (pathStyle !== undefined && pathStyle !== "true" && pathStyle !== "false") throw new StorageConfigError(`${STORAGE_VARIABLE}: forcePathStyle is true or false, not ${pathStyle}.`);
  const region = get("region");
  const prefix = get("prefix");
  return {
    bucket,
    ...(endpoint === undefined ? {} : { endpoint }),
    ...(region === undefined ? {} : { region }),
    ...(pathStyle === undefined ? {} : { forcePathStyle: pathStyle === "true" }),
    ...(prefix === undefined ? {} : { prefix }),
  };
}
