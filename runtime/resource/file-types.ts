import type { tags } from "typia";

// Issue 40: a file is a field of a model, typed as one. The transformer reads the tag's
// `options` (the accepted media types, the size and pixel limits) and derives the form's file
// input, the limits the multipart reader enforces, the column, the pages and the API schema.

/** A file a row holds: uploaded through a form or an API call, checked, and kept by fw's storage. */
export interface StoredFile {
  /** Where storage keeps it: random, never derived from anything the client sent. */
  readonly key: string;
  /** The name the client gave it, cleaned (no folders, control or bidi characters; at most 255 characters). */
  readonly name: string;
  /** The media type read from its bytes (`image/png`), never the client's word for it. */
  readonly type: string;
  /** Its size in bytes. */
  readonly size: number;
  /** The SHA-256 of its bytes, in hex: the ETag it is served with. */
  readonly checksum: string;
  /**
   * Where it is served, on a row read from its store (`/posts/7/cover/<key>`): through the row,
   * by its read rule. From the site's root: under `Route.under`, link `request.href(file.url)`.
   * Worked out on reading, never stored.
   */
  readonly url?: string;
}

/** A stored image: a file whose bytes are one of the image types fw serves inline, with its size in pixels. */
export interface StoredImage extends StoredFile {
  readonly width: number;
  readonly height: number;
}

/** What an `Upload<…>` field accepts. */
export interface UploadOptions {
  /**
   * The media types it takes, read from the file's bytes: a union of types or patterns
   * (`"application/pdf" | "text/csv"`, `"text/*"`). Required: fw takes no file of a type you did
   * not name (SVG and HTML only where named exactly).
   */
  readonly accept: string;
  /** The most bytes one file may have (a positive whole number). Absent: 10,000,000. */
  readonly maxBytes?: number;
}

/** What an `Image<…>` field accepts. */
export interface ImageOptions {
  /** The image types it takes (`"image/png" | "image/jpeg"`). Absent: PNG, JPEG, GIF, WebP and AVIF. */
  readonly accept?: string;
  /** The most bytes one file may have. Absent: 10,000,000. */
  readonly maxBytes?: number;
  /** The most pixels (width × height) an image may have: decompression bombs are refused before decoding. Absent: 50,000,000 (a 48-megapixel phone photo passes). */
  readonly maxPixels?: number;
}

/**
 * A file field: `attachment?: Upload<{ accept: "application/pdf" | "text/csv"; maxBytes: 10_000_000 }>`.
 * Its form input is `<input type="file" accept=…>`, its column holds the file's key, name,
 * type, size and checksum, and the file is served by the row's read rule.
 */
export type Upload<O extends UploadOptions> = StoredFile & tags.TagBase<{ target: "object"; kind: "fw.upload"; value: undefined; options?: O }>;

/**
 * An image field: `cover?: Image<{ maxBytes: 5_000_000 }>`. As `Upload`, plus: only images are
 * taken, their metadata (EXIF, GPS) is removed before anyone sees them, and pages show them
 * (a thumbnail on Index, a larger one on Show, made once and kept).
 */
export type Image<O extends ImageOptions = {}> = StoredImage & tags.TagBase<{ target: "object"; kind: "fw.image"; value: undefined; options?: O }>;
