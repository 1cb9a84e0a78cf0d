import { noneMatchHits } from "../http/etag.js";
import { NotFound } from "../http/failure.js";
import type { RequestHeaders } from "../http/headers.js";
import { Response, type Header } from "../http/response.js";
import { IMAGE_TYPES } from "../http/uploads.js";
import { contentDisposition } from "./content-disposition.js";
import { rangeOf } from "./range.js";
import type { Storage } from "./storage.js";

/** What serving needs to know of a stored file (the columns the row keeps beside it). */
export interface StoredFile {
  readonly key: string;
  readonly size: number;
  /** Its type as read from its bytes when it was uploaded. */
  readonly type: string;
  /** The sanitised name it was uploaded with (`UploadedFile.name`), for the download. */
  readonly name: string;
  /** SHA-256, hex: the ETag. */
  readonly checksum: string;
}

/** How a stored file is served. */
export interface ServeOptions {
  /**
   * Answer with a 303 to a short-lived presigned URL where the storage makes one (S3), so the
   * bytes go from the bucket to the browser; the disk always streams. Default: stream through
   * fw, which keeps fw's headers (nosniff, the sandbox CSP) on the answer whatever the backend.
   */
  readonly redirect?: boolean;
  /** How long a presigned URL works, in seconds. Default 60. */
  readonly expiresIn?: number;
  /**
   * The URL names the file's key (random, and never reused for other bytes): the browser may
   * keep it a year without asking again. Default false: it keeps it but asks each time (a 304
   * when nothing changed), so a replaced file or a withdrawn right to read it takes effect.
   */
  readonly immutable?: boolean;
}

/** What serving reads of the request. */
export interface ServedRequest {
  readonly method: string;
  readonly headers: RequestHeaders;
}

/**
 * A sandbox for anything the browser might render: no script, no plugin, no form, no fetch, and
 * an opaque origin, so a file that is a document in disguise can do nothing on the app's origin.
 * Inline styles only (a browser's own image and text viewers use them).
 */
export const FILE_CSP = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:";

/** The types shown in the browser (`inline`); every other type is a download. SVG never is: it can carry scripts. */
export function servedInline(type: string): boolean {
  return IMAGE_TYPES.includes(type);
}

/**
 * The answer to a request for a stored file (fw/files' serving rules, docs/guides/files.md):
 * `nosniff`; `inline` for PNG, JPEG, GIF, WebP and AVIF, `attachment` for everything else (SVG
 * included), with the name as RFC 6266 `filename*` and an ASCII `filename`; a sandboxing CSP;
 * `Cross-Origin-Resource-Policy: same-origin`; `private` caching validated by the checksum's
 * ETag (`If-None-Match` → 304); one `Range` (206, or 416 past the end; several ranges get the
 * whole file); HEAD without the bytes. Whether the visitor may read the file is the caller's to
 * decide before: this only serves. A file missing from the storage is a 404.
 */
export async function serveStored(storage: Storage, file: StoredFile, request: ServedRequest, options: ServeOptions = {}): Promise<Response> {
  const etag = `"${file.checksum}"`;
  const common: Header[] = [
    ["etag", etag],
    ["cache-control", options.immutable === true ? "private, max-age=31536000, immutable" : "private, no-cache"],
    ["x-content-type-options", "nosniff"],
  ];
  if (noneMatchHits(request.headers.get("if-none-match"), etag)) return new Response(304, common);
  const disposition = contentDisposition(servedInline(file.type) ? "inline" : "attachment", file.name);
  if (options.redirect === true && storage.signedUrl !== undefined) {
    const url = await storage.signedUrl(file.key, { expiresIn: options.expiresIn ?? 60, disposition, type: file.type });
    return new Response(303, [["location", url], ["cache-control", "no-store"]]);
  }
  const headers: Header[] = [
    ["content-type", contentType(file.type)],
    ["content-disposition", disposition],
    ["content-security-policy", FILE_CSP],
    ["cross-origin-resource-policy", "same-origin"],
    ["accept-ranges", "bytes"],
    ...common,
  ];
  // If-Range: a range of another version of the file is the whole file.
  const ifRange = request.headers.get("if-range");
  const ask = ifRange !== undefined && ifRange !== etag ? { kind: "whole" as const } : rangeOf(request.headers.get("range"), file.size);
  if (ask.kind === "unsatisfiable") return new Response(416, [...headers, ["content-range", `bytes */${file.size}`]]);
  const range = ask.kind === "part" ? ask.range : undefined;
  const status = range === undefined ? 200 : 206;
  const all: Header[] = range === undefined ? headers : [...headers, ["content-range", `bytes ${range.start}-${range.end}/${file.size}`]];
  const length = range === undefined ? file.size : range.end - range.start + 1;
  if (request.method === "HEAD") {
    if (!(await storage.exists(file.key))) throw missing();
    return new Response(status, all, { type: "stream", length, open: () => Promise.reject(new Error("HEAD sends no bytes")) });
  }
  // One call to the storage: the bytes are asked for now (a missing file is a 404, not a cut
  // answer), and sent when the answer is written.
  const bytes = await storage.get(file.key, range);
  if (bytes === undefined) throw missing();
  if (length === 0) {
    bytes.stream.destroy();
    return new Response(status, all, { type: "bytes", bytes: new Uint8Array(0) });
  }
  return new Response(status, all, { type: "stream", length, open: () => Promise.resolve(bytes.stream) });
}

function missing(): NotFound {
  return new NotFound("This file is no longer stored.");
}

/** Text is stored only when it is UTF-8 (sniff.ts): its type says so. */
function contentType(type: string): string {
  return type.startsWith("text/") ? `${type}; charset=utf-8` : type;
}
