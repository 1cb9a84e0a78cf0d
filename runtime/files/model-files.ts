/**
 * fw/files' side of a model's file fields (issue 40): what the derived pages ask of them
 * (runtime/resource/model-files.ts `ModelFiles`). The generated table makes one per model with
 * file fields, `modelFiles(table)`, and passes it to the model's routes.
 *
 * An upload is stored under a random key (an image first checked against its pixel limit,
 * turned upright and stripped of every metadata), recorded in `fw_files` with the table and
 * column that may hold it, and served only through its row (the routes check the row's read
 * rule; this answers with fw/files' serving rules). A file a row stops holding is deleted by a
 * job once the write is done; one no row ever takes, by the hourly sweep a day later.
 */
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { addProcessBackground, type Background, type BackgroundContext } from "../db/background.js";
import type { Database } from "../db/database.js";
import { processDatabase } from "../db/process-database.js";
import type { TableSpec } from "../db/table.js";
import { NotFound } from "../http/failure.js";
import { BootError } from "../routing/boot-error.js";
import type { Request } from "../http/request.js";
import type { Response } from "../http/response.js";
import { UploadTooLarge, type UploadedFile } from "../http/uploads.js";
import type { StoredFile, StoredImage } from "../resource/file-types.js";
import type { FieldProblem } from "../resource/form-errors.js";
import { defaultVariants, isVariantName } from "../resource/image-variants.js";
import type { FieldSpec } from "../resource/model.js";
import { KEPT_PREFIX, REMOVE_PREFIX, type ModelFiles, type ReceivedFiles, type StoredUpload } from "../resource/model-files.js";
import { isProductionEnv } from "../server/run-mode.js";
import { FileJobs } from "./file-jobs.js";
import { FilesTable, type FileOwner } from "./files-table.js";
import { makeVariant, normaliseImage } from "./images.js";
import { serveStored } from "./serve.js";
import { newStorageKey, StorageFull, type Storage } from "./storage.js";
import { StorageConfigError, storageFromEnv } from "./storage-config.js";

/** How a model's files are kept (all optional: the defaults are the app's). */
export interface ModelFilesOptions {
  /** Where the bytes go. Default: `FW_STORAGE` (the disk under `.fw/files` in dev; production must name it). */
  readonly storage?: Storage;
  /** The database `fw_files` and the file jobs live in. Default: the app's (`processDatabase()`). */
  readonly database?: () => Database;
}

/**
 * The storage `FW_STORAGE` names, one per process, shared by every model and the file jobs. It is
 * chosen when the app boots to serve, as `DbApp` prepares its background work (`prepare`): then
 * fw knows whether it serves production (`node dist/main.js`, with or without NODE_ENV) or `dev`,
 * and production without `FW_STORAGE` stops the boot, saying what to set. Commands that serve
 * nothing (`routes`, `openapi`, `db …`) make the table too, and never ask for it.
 */
class StorageFromEnv implements Background {
  #storage: Storage | undefined;

  /** The storage; asked before the boot chose it (an app served without DbApp), production is NODE_ENV's word. */
  get(): Storage {
    return this.#storage ?? this.choose(isProductionEnv());
  }

  private choose(production: boolean): Storage {
    this.#storage = storageFromEnv(process.env, { production, cwd: process.cwd() });
    return this.#storage;
  }

  async prepare(context: BackgroundContext): Promise<void> {
    try {
      this.choose(!context.dev);
    } catch (error) {
      if (error instanceof StorageConfigError) throw new BootError(error.message);
      throw error;
    }
  }

  async start(): Promise<void> {}

  async stop(): Promise<void> {}
}

let shared: StorageFromEnv | undefined;

function sharedStorage(): () => Storage {
  if (shared === undefined) {
    const chosen = new StorageFromEnv();
    // Registered first: the jobs' storage is chosen before they start.
    addProcessBackground(chosen);
    addProcessBackground(new FileJobs(() => chosen.get()));
    shared = chosen;
  }
  const storage = shared;
  return () => storage.get();
}

/**
 * fw/files for one model's routes: `resourceRoutes(model, store, { files: modelFiles(table) })`
 * (the generated table writes it). Registers with fw/db's `DbApp` the file jobs and the choice of
 * the storage `FW_STORAGE` names, made as the app boots to serve (production without it stops
 * the boot with a message).
 */
export function modelFiles(table: TableSpec, options: ModelFilesOptions = {}): ModelFiles {
  const given = options.storage;
  if (given !== undefined) addProcessBackground(new FileJobs(() => given));
  return new TableFiles(table, given === undefined ? sharedStorage() : () => given, options.database ?? processDatabase);
}

class TableFiles implements ModelFiles {
  constructor(
    private readonly table: TableSpec,
    private readonly storageOf: () => Storage,
    private readonly database: () => Database,
  ) {}

  private get storage(): Storage {
    return this.storageOf();
  }

  private get records(): FilesTable {
    return new FilesTable(this.database());
  }

  private ownerOf(field: FieldSpec): FileOwner {
    const column = this.table.columns.find((c) => c.field === field.name);
    if (column === undefined) throw new Error(`fw/files: the table ${this.table.name} has no column for the file field ${field.name}.`);
    return { table: this.table.name, column: column.column };
  }

  async receive(request: Request, fields: readonly FieldSpec[]): Promise<ReceivedFiles> {
    const values: Record<string, StoredFile | null> = {};
    const problems: FieldProblem[] = [];
    for (const field of fields) {
      const refused = request.files.problemsOf(field.name);
      if (refused.length > 0) {
        problems.push(...refused.map((problem) => ({ field: field.name, kind: "invalid" as const, message: `${field.label} ${problem.message}.` })));
        continue;
      }
      const upload = request.files.get(field.name);
      if (upload !== undefined) {
        const stored = await this.store(field, upload);
        if ("problem" in stored) problems.push({ field: field.name, kind: "invalid", message: `${field.label}: ${stored.problem}` });
        else values[field.name] = stored.file;
        continue;
      }
      const token = request.form.get(`${KEPT_PREFIX}${field.name}`);
      if (token !== undefined && token !== "") {
        const kept = await this.records.claim(this.ownerOf(field), token);
        if (kept === undefined) problems.push({ field: field.name, kind: "invalid", message: `${field.label}: the file kept from before has expired. Choose it again.` });
        else values[field.name] = kept;
        continue;
      }
      if (request.form.get(`${REMOVE_PREFIX}${field.name}`) === "true") values[field.name] = null;
    }
    return { values, problems };
  }

  /** Stores one upload (an image normalised first): the file the row will hold, or why not. */
  async store(field: FieldSpec, upload: UploadedFile): Promise<StoredUpload> {
    const key = newStorageKey();
    if (field.file?.image === true) return this.storeImage(field, upload, key);
    await this.put(key, upload.take(), { type: upload.type, size: upload.size, checksum: upload.checksum });
    const file: StoredFile = { key, name: upload.name, type: upload.type, size: upload.size, checksum: upload.checksum };
    await this.records.record(this.ownerOf(field), file);
    return { file };
  }

  private async storeImage(field: FieldSpec, upload: UploadedFile, key: string): Promise<StoredUpload> {
    const folder = await mkdtemp(join(tmpdir(), "fw-image-"));
    try {
      const output = join(folder, "image");
      const limits = field.file?.maxPixels === undefined ? {} : { maxPixels: field.file.maxPixels };
      const normalised = await normaliseImage(upload.path, output, limits);
      if (!normalised.ok) return { problem: normalised.problem };
      const { size, checksum } = await measured(output);
      const type = normalised.image.type;
      await this.put(key, output, { type, size, checksum });
      const file: StoredImage = { key, name: upload.name, type, size, checksum, width: normalised.image.width, height: normalised.image.height };
      await this.records.record(this.ownerOf(field), file);
      return { file };
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  }

  /**
   * Moves a file on this machine into the storage; what cannot be moved is removed (a taken
   * upload is no longer fw's to clean up). A storage out of room is a 413 saying so.
   */
  private async put(key: string, path: string, info: { type: string; size: number; checksum: string }): Promise<void> {
    try {
      await this.storage.put(key, { path, move: true }, info);
    } catch (error) {
      await rm(path, { force: true });
      if (error instanceof StorageFull) throw new UploadTooLarge(info.size, "The server has no room to keep this file now, so nothing was kept: try again later.");
      throw error;
    }
  }

  keep(_request: Request, _field: FieldSpec, file: StoredFile): Promise<string> {
    return this.records.keep(file);
  }

  async release(files: readonly StoredFile[]): Promise<void> {
    await FileJobs.release(this.database(), files.map((file) => file.key));
  }

  async serve(request: Request, field: FieldSpec, file: StoredFile, variant: string | undefined): Promise<Response> {
    // The address names the file's key, which never names other bytes: the browser keeps it.
    if (variant === undefined) return serveStored(this.storage, file, request, { immutable: true });
    if (!isVariantName(variant) || field.file?.image !== true) throw new NotFound("There is no such size of this file.");
    return serveStored(this.storage, await this.variant(field, file, variant), request, { immutable: true });
  }

  /**
   * A variant of an image, made from the original the first time it is asked for and kept beside
   * it (by whichever process asks first; another finds it there). Its ETag is derived from the
   * original's checksum and the variant's name, so every process answers the same one.
   */
  private async variant(field: FieldSpec, file: StoredFile, name: keyof typeof defaultVariants): Promise<StoredFile> {
    const key = `${file.key}.${name}`;
    const known = this.made.get(key);
    if (known !== undefined) return known;
    const described = (size: number): StoredFile => ({
      key,
      name: `${file.name.replace(/\.[^.]*$/, "")}-${name}.webp`,
      type: "image/webp",
      size,
      checksum: createHash("sha256").update(`${file.checksum}:${name}`).digest("hex"),
    });
    const there = await this.storage.get(key, { start: 0, end: 0 });
    if (there !== undefined) {
      there.stream.destroy();
      return this.remember(described(there.size));
    }
    const folder = await mkdtemp(join(tmpdir(), "fw-variant-"));
    try {
      const original = join(folder, "original");
      const bytes = await this.storage.get(file.key);
      if (bytes === undefined) throw new NotFound("This file is gone from the storage.");
      await pipeline(bytes.stream, createWriteStream(original));
      const output = join(folder, "variant");
      const limits = field.file?.maxPixels === undefined ? {} : { maxPixels: field.file.maxPixels };
      await makeVariant(original, output, defaultVariants[name], limits);
      const { size, checksum } = await measured(output);
      await this.storage.put(key, { path: output, move: true }, { type: "image/webp", size, checksum });
      return this.remember(described(size));
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  }

  /** Variants this process made or found, by key (at most 1,000: the oldest forgotten first). */
  private readonly made = new Map<string, StoredFile>();

  private remember(variant: StoredFile): StoredFile {
    this.made.set(variant.key, variant);
    if (this.made.size > 1000) this.made.delete(this.made.keys().next().value as string);
    return variant;
  }
}

/** A file's size and SHA-256 (hex), read from disk. */
async function measured(path: string): Promise<{ size: number; checksum: string }> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(path), hash);
  return { size: (await stat(path)).size, checksum: hash.digest("hex") };
}
