import type { IncomingHttpHeaders } from "node:http";
import { realpath, readFile, stat } from "node:fs/promises";
import { extname, join, resolve, sep } from "node:path";
import { NOSNIFF } from "../http/default-headers.js";
import { noneMatchHits } from "../http/etag.js";
import { splitPath } from "../http/path.js";
import type { Answer } from "./answer.js";

/** The name of the app's folder of files served as they are (docs/guides/static-files.md). */
export const DEFAULT_PUBLIC_DIR = "public";

/**
 * Where an app's `public/` is when it names none: beside the `dist/` folder its entry runs from
 * (`dist/main.js`, `dist/bundle/main.js`, a test under `dist/`), so it is found whatever the
 * working directory; an entry outside any `dist/` looks in the working directory.
 */
export function defaultPublicDir(entry: string | undefined, cwd: string): string {
  const parts = entry === undefined ? [] : resolve(cwd, entry).split(sep);
  const dist = parts.lastIndexOf("dist");
  return dist > 0 ? join(parts.slice(0, dist).join(sep) || sep, DEFAULT_PUBLIC_DIR) : resolve(cwd, DEFAULT_PUBLIC_DIR);
}

/** A year: the longest `max-age` caches honour, for names that change whenever their content does. */
const IMMUTABLE = "public, max-age=31536000, immutable";
/** Every other file: a cache may keep it but asks first (a 304 costs one round trip, no body). */
const REVALIDATE = "no-cache";

/**
 * A name with a content hash before its extension (`app.3f2a1c9b.css`, `chunk-0a1b2c3d4e.js`):
 * 8 to 64 hex digits after a `.` or `-`. Such a name is never reused for other content, so it is
 * cached for a year without asking again.
 */
const HASHED = /[.-][0-9a-f]{8,64}\.[A-Za-z0-9]+$/i;

/** Content types by extension; text is UTF-8. Anything else is `application/octet-stream`. */
const TYPES: Readonly<Record<string, string>> = {
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".webmanifest": "application/manifest+json; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".htm": "text/html; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".xml": "application/xml; charset=utf-8",
  ".csv": "text/csv; charset=utf-8",
  ".md": "text/markdown; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".avif": "image/avif",
  ".ico": "image/x-icon",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
  ".ttf": "font/ttf",
  ".otf": "font/otf",
  ".pdf": "application/pdf",
  ".wasm": "application/wasm",
  ".mp4": "video/mp4",
  ".webm": "video/webm",
  ".mp3": "audio/mpeg",
  ".ogg": "audio/ogg",
  ".wav": "audio/wav",
  ".zip": "application/zip",
};

/** The content type a file is served with. */
export function contentTypeOf(name: string): string {
  return TYPES[extname(name).toLowerCase()] ?? "application/octet-stream";
}

/** The `Cache-Control` a file is served with: a year for a hashed name, revalidation otherwise. */
export function cacheControlOf(name: string): string {
  return HASHED.test(name) ? IMMUTABLE : REVALIDATE;
}

/**
 * The files of one folder, served at their path from `/` (`public/app.css` is `GET /app.css`) to
 * GET and HEAD requests that no route answers. A file is answered without reading the session:
 * no cookie is read or written. Dot segments, encoded slashes and backslashes and NUL never get
 * this far (`splitPath` answers 400); a name starting with "." (`.env`, `.git/`) is not served,
 * nor a directory (no listing, no index file), nor anything a symbolic link leads outside the
 * folder: all of these are the 404 any missing file gets.
 */
export class PublicFiles {
  private root: Promise<string | undefined> | undefined;

  /** `page`: the headers an HTML file gets (the app's `pageDefaults`, its CSP included), as pages do. */
  constructor(
    private readonly directory: string,
    private readonly page: readonly string[],
  ) {}

  /** The folder's real path; undefined while it does not exist (looked up again next time). */
  private realRoot(): Promise<string | undefined> {
    this.root ??= realpath(this.directory).catch(() => {
      this.root = undefined;
      return undefined;
    });
    return this.root;
  }

  /** The answer for a file at `path`, or undefined when there is none to serve (the caller answers 404). */
  async answer(path: string, headers: IncomingHttpHeaders): Promise<Answer | undefined> {
    const segments = splitPath(path);
    // `/fw/…` is fw's own (spec 4.6): a `public/fw/` folder is not served either.
    if (segments.length === 0 || segments[0] === "fw" || segments.some((segment) => segment.startsWith(".") || segment.includes("/") || segment.includes("\\"))) return undefined;
    const root = await this.realRoot();
    if (root === undefined) return undefined;
    let file: string;
    try {
      file = await realpath(join(root, ...segments));
    } catch {
      return undefined;
    }
    // A symbolic link inside the folder may lead anywhere: only what really lies inside is served.
    if (!file.startsWith(root + sep)) return undefined;
    const info = await stat(file).catch(() => undefined);
    if (info === undefined || !info.isFile()) return undefined;
    const name = segments[segments.length - 1] as string;
    const etag = `"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
    const lastModified = new Date(Math.floor(info.mtimeMs / 1000) * 1000).toUTCString();
    const type = contentTypeOf(name);
    const validators = ["etag", etag, "last-modified", lastModified, "cache-control", cacheControlOf(name)];
    if (notModified(headers, etag, info.mtimeMs)) return { status: 304, headers: validators, body: "" };
    const body = await readFile(file).catch(() => undefined);
    if (body === undefined) return undefined;
    const defaults = type.startsWith("text/html") ? this.page : NOSNIFF;
    return { status: 200, headers: ["content-type", type, ...defaults, ...validators], body };
  }
}

/**
 * RFC 9110 13.1: `If-None-Match` (weak comparison, `*` for any) decides when sent, and then
 * `If-Modified-Since` is not read; otherwise a file not modified since that date (to the second,
 * as `Last-Modified` says) is not sent again.
 */
function notModified(headers: IncomingHttpHeaders, etag: string, mtimeMs: number): boolean {
  const match = headers["if-none-match"];
  if (match !== undefined) return noneMatchHits(match, etag);
  const since = headers["if-modified-since"];
  if (since === undefined) return false;
  const date = Date.parse(since);
  return !Number.isNaN(date) && Math.floor(mtimeMs / 1000) * 1000 <= date;
}
