// What the files part's servers (bench/servers/files-*.mjs) and its client share.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";

/** The form field every side takes the upload in. */
export const UPLOAD_FIELD = "file";

/** SHA-256 of a file, hex, read as a stream. */
export async function fileChecksum(path) {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 })) hash.update(chunk);
  return hash.digest("hex");
}
