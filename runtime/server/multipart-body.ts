import type { IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import type { MultipartForm } from "../files/multipart.js";
import type { FileField, FileFields } from "../http/uploads.js";
import type { HttpRoute } from "../routing/route.js";

/**
 * The seam between the HTTP core and fw/files' multipart reader: the core knows a multipart body
 * when it sees one, and loads the reader (and through it the parser, `@fastify/busboy`) on the
 * first such request only. An app that never receives one never loads either.
 */

/** Where uploads are spooled and how much one request's files may take together (`HttpApp.uploads`). */
export interface UploadSettings {
  /** The folder file parts are spooled to while a request is read. Default: the system's temp folder. */
  readonly spoolDir: string;
  /** The most bytes the files of one request may take together, whatever its fields allow. Default 1 GiB. */
  readonly maxRequestBytes: number;
}

/** The default cap on one request's files together: 1 GiB. */
export const DEFAULT_MAX_UPLOAD_REQUEST_BYTES = 1024 * 1024 * 1024;

export function defaultUploadSettings(): UploadSettings {
  return { spoolDir: tmpdir(), maxRequestBytes: DEFAULT_MAX_UPLOAD_REQUEST_BYTES };
}


type Reader = typeof import("../files/multipart.js").readMultipart;
let reader: Promise<Reader> | undefined;

/** Reads a multipart body whole for routes that may take it, with their file fields merged (`mergedFiles`). */
export async function readMultipartBody(request: IncomingMessage, files: FileFields, maxTextBytes: number, settings: UploadSettings): Promise<MultipartForm> {
  reader ??= import("../files/multipart.js").then((module) => module.readMultipart);
  const declared = Object.values(files).reduce((sum, field) => sum + field.maxBytes * (field.maxFiles ?? 1), 0);
  return (await reader)(request, { files, maxTextBytes, maxFileBytes: Math.min(declared, settings.maxRequestBytes), spoolDir: settings.spoolDir });
}

/**
 * The file fields of every route a body may end up at: a browser POST may carry `_method` (an
 * Edit form with a file field sends PUT through it), and the form must be read to know. A field
 * two routes declare takes the larger of their limits; the route the request lands on checks its
 * own afterwards (`filesFit`).
 */
export function mergedFiles(routes: readonly HttpRoute[]): FileFields {
  const merged: Record<string, FileField> = {};
  for (const route of routes) {
    for (const [name, field] of Object.entries(route.files ?? {})) {
      const seen = merged[name];
      merged[name] =
        seen === undefined
          ? field
          : { ...seen, maxBytes: Math.max(seen.maxBytes, field.maxBytes), maxFiles: Math.max(seen.maxFiles ?? 1, field.maxFiles ?? 1) };
    }
  }
  return merged;
}
