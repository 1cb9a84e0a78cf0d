import { rm } from "node:fs/promises";
import { BadRequest, PayloadTooLarge } from "./failure.js";

/**
 * What a route accepts in one file field of a `multipart/form-data` body (the generated table
 * fills it from the field's type; a hand-built route writes it out). A file part under any other
 * name is refused (400), and so is a text part under this one.
 */
export interface FileField {
  /** The largest file accepted, in bytes: past it the upload stops with a 413 naming the field. */
  readonly maxBytes: number;
  /**
   * The accepted types, as MIME patterns (`"image/png"`, `"image/*"`, `"text/csv"`), checked
   * against the type read from the file's bytes, never the client's `Content-Type` or name.
   * SVG (`image/svg+xml`) is accepted only where named exactly: `image/*` does not take it.
   */
  readonly accept: readonly string[];
  /** The field holds a picture: only PNG, JPEG, GIF, WebP and AVIF are taken, whatever `accept` says. */
  readonly image?: boolean;
  /** How many files the field takes in one request (`<input type="file" multiple>`). Default 1. */
  readonly maxFiles?: number;
}

/** Whether a Content-Type is `multipart/form-data`. */
export function isMultipart(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const semi = contentType.indexOf(";");
  return (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase() === "multipart/form-data";
}

/** A route's file fields by name. */
export type FileFields = Readonly<Record<string, FileField>>;

/** The raster image types a field marked `image` accepts, and the only types fw serves inline. */
export const IMAGE_TYPES: readonly string[] = Object.freeze(["image/png", "image/jpeg", "image/gif", "image/webp", "image/avif"]);

/** One thing wrong with one uploaded file, shown beside its field (a 422 on a derived form). */
export interface UploadProblem {
  readonly field: string;
  readonly message: string;
}

/** What the multipart reader learned of one file part, spooled whole. */
export interface UploadedFileInit {
  readonly field: string;
  readonly path: string;
  readonly size: number;
  readonly type: string;
  readonly name: string;
  readonly checksum: string;
  readonly claimedType: string;
}

/**
 * One file of a `multipart/form-data` request, spooled to a temporary file as it arrived (never
 * held in memory), and checked: its size is within its field's `maxBytes`, its type (read from
 * its bytes) is one its field accepts. fw removes the temporary file once the request is answered
 * unless the handler (or a layer above, such as storage's `put`) `take`s it.
 */
export class UploadedFile {
  /** The form field the file came in. */
  readonly field: string;
  /** Where the file is spooled, until the request is answered (or for good, once taken). */
  readonly path: string;
  /** Its size in bytes. */
  readonly size: number;
  /** Its type, read from its bytes (`image/png`, `text/plain`), never from what the client said. */
  readonly type: string;
  /**
   * The name the client gave, sanitised for showing and for a download's `Content-Disposition`
   * (no path, no control or bidi characters, at most 255 bytes). Never used as a storage key.
   */
  readonly name: string;
  /** SHA-256 of its bytes, hex, computed while it streamed in. */
  readonly checksum: string;
  /** The `Content-Type` the client sent for the part: for logs only, never trusted. */
  readonly claimedType: string;
  #taken = false;

  constructor(init: UploadedFileInit) {
    this.field = init.field;
    this.path = init.path;
    this.size = init.size;
    this.type = init.type;
    this.name = init.name;
    this.checksum = init.checksum;
    this.claimedType = init.claimedType;
  }

  /**
   * Takes the spooled file over: fw will not remove it after the request, and the caller must
   * move or remove it. Returns its path.
   */
  take(): string {
    this.#taken = true;
    return this.path;
  }

  /** Whether the file was taken over (`take`), so fw leaves it where it is. */
  get taken(): boolean {
    return this.#taken;
  }
}

/** The files a request brought (and the problems of those refused), by field. */
export class Uploads {
  static readonly none = new Uploads([], []);

  constructor(
    /** Every accepted file, in the order they arrived. */
    readonly all: readonly UploadedFile[],
    /** The files refused for their content (a type the field does not accept), by field; their bytes are gone already. */
    readonly problems: readonly UploadProblem[],
  ) {}

  /** The first file sent in `field`. */
  get(field: string): UploadedFile | undefined {
    return this.all.find((file) => file.field === field);
  }

  getAll(field: string): readonly UploadedFile[] {
    return this.all.filter((file) => file.field === field);
  }

  /** The problems of one field, in the order found. */
  problemsOf(field: string): readonly UploadProblem[] {
    return this.problems.filter((problem) => problem.field === field);
  }

  get isEmpty(): boolean {
    return this.all.length === 0 && this.problems.length === 0;
  }

  /** Removes every spooled file nobody took: fw calls it once the request is answered. */
  async discard(): Promise<void> {
    await Promise.all(this.all.filter((file) => !file.taken).map((file) => rm(file.path, { force: true })));
  }
}

const TYPE_PATTERN = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/(\*|[a-z0-9][a-z0-9!#$&^_.+-]*)$/;

/**
 * What is wrong with a route's file declaration, or undefined when it is sound: each field needs
 * a positive whole `maxBytes`, at least one accept pattern of the form `type/subtype` or
 * `type/*` (lower case), and a positive whole `maxFiles` when given.
 */
export function fileFieldsProblem(files: FileFields): string | undefined {
  for (const [name, field] of Object.entries(files)) {
    if (name === "" || name.length > 100) return `the file field name ${JSON.stringify(name.slice(0, 100))} must be 1 to 100 characters long`;
    if (!Number.isSafeInteger(field.maxBytes) || field.maxBytes <= 0) return `file field "${name}": maxBytes must be a positive whole number of bytes, not ${String(field.maxBytes)}`;
    if (field.maxFiles !== undefined && (!Number.isSafeInteger(field.maxFiles) || field.maxFiles <= 0)) {
      return `file field "${name}": maxFiles must be a positive whole number, not ${String(field.maxFiles)}`;
    }
    if (field.accept.length === 0 && field.image !== true) return `file field "${name}": accept names no type (give at least one, such as "application/pdf" or "image/*")`;
    const bad = field.accept.find((pattern) => pattern === "*/*" || !TYPE_PATTERN.test(pattern));
    if (bad !== undefined) return `file field "${name}": ${JSON.stringify(bad)} is no type pattern fw accepts (write "type/subtype" or "type/*" in lower case; "*/*" is refused: name the types)`;
  }
  return undefined;
}

/** A 413 that names what was too large: a field's file, the request's files together, their count, the disk. */
export class UploadTooLarge extends PayloadTooLarge {
  constructor(limit: number, message: string) {
    super(limit);
    this.message = message;
  }
}

/**
 * Why the files read for a request do not fit the route it landed on (read with the fields of
 * every route it might have reached: `_method` decides), or undefined when they fit: a file in a
 * field the route does not take (400), larger than its `maxBytes`, or more than its `maxFiles` (413).
 */
export function uploadsMisfit(files: Uploads, declared: FileFields | undefined): BadRequest | UploadTooLarge | undefined {
  const fields = declared ?? {};
  for (const file of files.all) {
    const field = Object.hasOwn(fields, file.field) ? fields[file.field] : undefined;
    if (field === undefined) return new BadRequest(`The form sends a file in "${file.field}", and this address takes none there.`);
    if (file.size > field.maxBytes) return new UploadTooLarge(field.maxBytes, `The file sent in "${file.field}" is larger than its ${field.maxBytes}-byte limit.`);
    const most = field.maxFiles ?? 1;
    if (files.getAll(file.field).length > most) return new UploadTooLarge(most, `The form sends more than ${most} file${most === 1 ? "" : "s"} in "${file.field}".`);
  }
  return undefined;
}
