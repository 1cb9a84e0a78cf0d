/**
 * The seam between a model's derived pages (the core) and fw/files (issue 40): what the pages
 * ask of a model's file fields. The generated table passes fw/files' implementation to the
 * routes of a model with file fields (`resourceRoutes(…, { files })`); the core never imports
 * fw/files, and a model without file fields never loads it.
 */
import type { Request } from "../http/request.js";
import type { Response } from "../http/response.js";
import type { FileField, UploadedFile } from "../http/uploads.js";
import type { FieldProblem } from "./form-errors.js";
import type { FieldSpec, FileSpec } from "./model.js";
import type { StoredFile } from "./file-types.js";

/** The form field a re-shown form keeps an upload in (the user need not send it again), per file field. */
export const KEPT_PREFIX = "_kept.";
/** The checkbox "Remove the file" of an optional file field on Edit, per file field. */
export const REMOVE_PREFIX = "_remove.";

/** What a form's file fields brought: per field, a stored file (new or kept), `null` (removed), or nothing (unchanged). */
export interface ReceivedFiles {
  readonly values: Readonly<Record<string, StoredFile | null>>;
  /** Files refused for what they hold (a type the field does not take, an image too large): shown beside their fields (422). */
  readonly problems: readonly FieldProblem[];
}

/** An upload stored for a model's file field, or why its content was refused. */
export type StoredUpload = { readonly file: StoredFile } | { readonly problem: string };

/** One model's files, as fw/files keeps and serves them. */
export interface ModelFiles {
  /**
   * Stores each upload of the request's file fields (an image checked and stripped of its
   * metadata first), or reads the field's kept upload (`_kept.<field>`); a field whose
   * `_remove.<field>` box is checked reads `null`. A stored file no row comes to hold is swept.
   */
  receive(request: Request, fields: readonly FieldSpec[]): Promise<ReceivedFiles>;
  /**
   * Stores one upload for `field` (an image checked and stripped of its metadata first) and
   * records it for the field's table and column, so a file no row comes to hold is swept: the
   * file a row may now hold, or why the file is refused (a sentence: "The image is … pixels;
   * at most … are accepted."). What an API route's `request.upload()` stores each file with.
   */
  store(field: FieldSpec, upload: UploadedFile): Promise<StoredUpload>;
  /** A reference to a pending upload for a re-shown form's `_kept.<field>`: single use, expiring. */
  keep(request: Request, field: FieldSpec, file: StoredFile): Promise<string>;
  /**
   * Files no row holds any more (a row deleted, a file replaced or removed), once the write is
   * done: deleted by a job, retried, each only if no row holds it by then.
   */
  release(files: readonly StoredFile[]): Promise<void>;
  /** Answers a row's file, or one of an image's variants (`thumb`, `large`): bytes, type and caching by fw/files' rules. */
  serve(request: Request, field: FieldSpec, file: StoredFile, variant: string | undefined): Promise<Response>;
}

/** The model's file fields. */
export function fileFields(fields: readonly FieldSpec[]): FieldSpec[] {
  return fields.filter((field) => field.input === "file");
}

/** What the multipart reader takes in a file field: its limit and types, as the field's spec says. */
export function readerField(spec: FileSpec): FileField {
  return { maxBytes: spec.maxBytes, accept: spec.accept, ...(spec.image ? { image: true } : {}) };
}

/** The files a row holds, in its file fields. */
export function filesOf(row: unknown, fields: readonly FieldSpec[]): StoredFile[] {
  const values = row as Record<string, unknown>;
  return fields.flatMap((field) => {
    const value = values[field.name];
    return isStoredFile(value) ? [value] : [];
  });
}

/** A stored file's value (its key and name at least), as a row holds it. */
export function isStoredFile(value: unknown): value is StoredFile {
  return typeof value === "object" && value !== null && typeof (value as { key?: unknown }).key === "string" && typeof (value as { name?: unknown }).name === "string";
}

/** `1.2 MB`, `340 KB`, `12 bytes`: a file's size as a page shows it (decimal units, as browsers and operating systems show downloads). */
export function sizeText(bytes: number): string {
  if (bytes < 1000) return `${bytes} byte${bytes === 1 ? "" : "s"}`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}
