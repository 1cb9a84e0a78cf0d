/**
 * The live client (`runtime/live/client/live.js`, copied beside the built module by `build:fw`)
 * as fw serves it at `GET /fw/live.js`: read once, its content hash naming the version pages
 * link (`/fw/live.js?v=<hash>`), so a browser keeps it for a year and fetches the next one when
 * the hash changes.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";

/** Where pages load the client from; `?v=` carries the version. */
export const CLIENT_PATH = "/fw/live.js";

export interface ClientFile {
  readonly text: string;
  /** The first 10 hex digits of the file's SHA-256. */
  readonly hash: string;
  /** A strong validator: the hash, quoted. */
  readonly etag: string;
}

let loaded: ClientFile | undefined;

/** The client, read on first use. A missing file is a packaging bug: the message says where it was looked for. */
export function clientFile(): ClientFile {
  if (loaded !== undefined) return loaded;
  const url = new URL("./client/live.js", import.meta.url);
  let text: string;
  try {
    text = readFileSync(url, "utf8");
  } catch (cause) {
    throw new Error(`fw/live: the live client is missing at ${url.pathname}; rebuild fw (npm run build:fw copies it there).`, { cause });
  }
  const hash = createHash("sha256").update(text).digest("hex").slice(0, 10);
  loaded = { text, hash, etag: `"${hash}"` };
  return loaded;
}

/** The script URL a live page links: the client at its current version. */
export function clientUrl(): string {
  return `${CLIENT_PATH}?v=${clientFile().hash}`;
}
