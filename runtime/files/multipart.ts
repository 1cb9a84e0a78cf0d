import type { IncomingMessage } from "node:http";
import type { Readable } from "node:stream";
import { BadRequest } from "../http/failure.js";
import { Fields, MAX_FIELDS } from "../http/fields.js";
import { UploadedFile, Uploads, UploadTooLarge, type FileField, type FileFields, type UploadProblem } from "../http/uploads.js";
import { ClientGone } from "../server/body.js";
import { decide, takesText } from "./accept.js";
import { fieldNameRefusal, fileNameRefusal, sanitizeFileName } from "./file-name.js";
import { SVG_TYPE, sniffFile, svgIsActive, TEXT_TYPE } from "./sniff.js";
import { ByteBudget, spool, SpoolStopped, type Spooled } from "./spool.js";
import { removeAll } from "./remove.js";

/** What one multipart body may bring, from its route and the app. */
export interface MultipartLimits {
  /** The route's file fields; a file part under any other name is a 400. */
  readonly files: FileFields;
  /** The most bytes the text fields may take together (names and values): the app's `maxBodySize`. */
  readonly maxTextBytes: number;
  /** The most bytes the files of one request may take together. */
  readonly maxFileBytes: number;
  /** Where file parts are spooled. */
  readonly spoolDir: string;
}

/** A multipart body read whole: its text fields, and its files spooled and checked. */
export interface MultipartForm {
  readonly fields: Fields;
  readonly files: Uploads;
}

/** The most parts a body may have beyond its fields and files: a guard on the parser's work. */
const SPARE_PARTS = 10;

/** Bytes a multipart body may carry beyond its fields and files: boundaries and part headers. */
export const FRAMING_ALLOWANCE = 256 * 1024;

type BusboyConstructor = typeof import("@fastify/busboy").Busboy;
let parser: Promise<BusboyConstructor> | undefined;

/**
 * Reads a `multipart/form-data` body whole before the handler runs (the spec's "read whole"):
 * text fields into `Fields` (at most 1000, at most `maxTextBytes` together), file parts spooled
 * to temporary files as they arrive (never held in memory), then each file's type read from its
 * bytes and checked against its field. Past a limit: `UploadTooLarge` (413) naming the field and
 * the limit; bad input: `BadRequest` (400); the client gone: `ClientGone`. On any failure every
 * file spooled so far is removed, and the rest of the body is left unread (the caller closes the
 * connection). Files refused for their type are removed and named in `Uploads.problems`.
 */
export async function readMultipart(request: IncomingMessage, limits: MultipartLimits): Promise<MultipartForm> {
  // Loaded on the first multipart request: an app that never gets one never loads the parser.
  parser ??= import("@fastify/busboy").then((module) => module.Busboy);
  const Busboy = await parser;
  const reading = new Reading(limits);
  const spooled = await reading.run(request, Busboy);
  try {
    return { fields: reading.fields(), files: await checked(spooled, limits.files) };
  } catch (error) {
    await removeAll(spooled.map((part) => part.path));
    throw error;
  }
}

/** One file part, spooled. */
interface Part extends Spooled {
  readonly field: string;
  readonly name: string;
  readonly claimedType: string;
}

/** The spooled parts as accepted files, and the problems of those whose type their field does not take (removed). */
async function checked(parts: readonly Part[], files: FileFields): Promise<Uploads> {
  const accepted: UploadedFile[] = [];
  const problems: UploadProblem[] = [];
  const verdicts = await Promise.all(parts.map((part) => verdictOf(part, files[part.field] as FileField)));
  const refused: string[] = [];
  parts.forEach((part, i) => {
    const verdict = verdicts[i] as Awaited<ReturnType<typeof verdictOf>>;
    if (verdict.ok) accepted.push(new UploadedFile({ ...part, type: verdict.type }));
    else {
      problems.push({ field: part.field, message: verdict.message });
      refused.push(part.path);
    }
  });
  await removeAll(refused);
  return new Uploads(accepted, problems);
}

async function verdictOf(part: Part, field: FileField): Promise<ReturnType<typeof decide>> {
  const sniffed = await sniffFile(part.path, { wholeText: takesText(field) });
  const verdict = decide(sniffed, part.claimedType, field);
  if (verdict.ok && sniffed === SVG_TYPE && (await svgIsActive(part.path))) {
    return { ok: false, message: "must be an SVG without scripts, event handlers or embedded documents, and this one has some" };
  }
  return verdict;
}

type Listener = (...args: never[]) => void;

/** The state of one body being read: its text fields, its files' spools, and the first failure. */
class Reading {
  readonly #pairs: [string, string][] = [];
  readonly #spools: Promise<Part | undefined>[] = [];
  readonly #counts = new Map<string, number>();
  /** File parts still streaming: a failure ends them, so their spools settle (and remove their partial files). */
  readonly #streaming = new Set<Readable>();
  readonly #budget: ByteBudget;
  #textBytes = 0;
  #fileCount = 0;
  #failure: Error | undefined;
  #fail: (error: Error) => void = () => {};

  constructor(private readonly limits: MultipartLimits) {
    this.#budget = new ByteBudget(limits.maxFileBytes);
  }

  fields(): Fields {
    return Fields.of(this.#pairs);
  }

  /** Pipes the request through the parser; resolves with the spooled parts once all are written. */
  run(request: IncomingMessage, Busboy: BusboyConstructor): Promise<Part[]> {
    const maxFiles = Object.values(this.limits.files).reduce((sum, field) => sum + (field.maxFiles ?? 1), 0);
    let busboy: ReturnType<typeof Busboy>;
    try {
      busboy = Busboy({
        headers: request.headers as { "content-type": string },
        preservePath: true,
        // Only a part with a filename is a file (busboy would take any application/octet-stream part for one).
        isPartAFile: (_name, _type, fileName) => fileName !== undefined,
        // One file more than the fields take, so the reader's own check names the field that sent it.
        limits: { fieldSize: this.limits.maxTextBytes + 1, fields: MAX_FIELDS, files: maxFiles + 1, parts: MAX_FIELDS + maxFiles + SPARE_PARTS },
      });
    } catch (error) {
      throw new BadRequest(`The multipart body cannot be read: ${(error as Error).message} (a multipart/form-data Content-Type needs a boundary=… parameter).`);
    }
    const cap = this.limits.maxTextBytes + this.limits.maxFileBytes + FRAMING_ALLOWANCE;
    if (Number(request.headers["content-length"]) > cap) throw bodyTooLarge(cap, this.limits);
    return new Promise<Part[]>((resolve, reject) => {
      let raw = 0;
      const onData = (chunk: Buffer): void => {
        raw += chunk.length;
        if (raw > cap) stop(bodyTooLarge(cap, this.limits));
      };
      const gone = (): void => stop(new ClientGone("The client closed the connection mid-upload."));
      const onClose = (): void => {
        if (!request.complete) gone();
      };
      // Once settled, the request is no longer this reader's: a later close must not touch the files.
      const detach = (): void => void request.off("data", onData).off("aborted", gone).off("error", gone).off("close", onClose);
      const stop = (error: Error): void => {
        if (this.#failure !== undefined) return;
        this.#failure = error;
        detach();
        request.unpipe(busboy);
        request.pause();
        for (const stream of this.#streaming) stream.destroy(error);
        void this.#settled().then(async (parts) => {
          await removeAll(parts.map((part) => part.path));
          reject(error);
        });
      };
      this.#fail = stop;
      const on = (event: string, listener: Listener): void => void busboy.on(event, listener as (...args: unknown[]) => void);
      on("field", (name: string | undefined, value: string, _nameCut: boolean, valueCut: boolean) => this.#field(name, value, valueCut));
      on("file", (name: string | undefined, stream: Readable, fileName: string, _encoding: string, type: string) => this.#file(name, stream, fileName, type));
      on("fieldsLimit", () => stop(new BadRequest(`The form has more than ${MAX_FIELDS} fields.`)));
      on("filesLimit", () => stop(tooManyFiles(maxFiles)));
      on("partsLimit", () => stop(new BadRequest(`The form has more parts than its ${MAX_FIELDS} fields and ${maxFiles} files may take.`)));
      on("error", (error: Error) => stop(new BadRequest(`The multipart body is malformed: ${error.message}.`)));
      on("finish", () => {
        void this.#settled().then((parts) => {
          if (this.#failure !== undefined) return;
          detach();
          resolve(parts);
        });
      });
      request.on("data", onData).on("aborted", gone).on("error", gone).on("close", onClose);
      request.pipe(busboy);
    });
  }

  /** Every spool, once each has finished or failed; the parts written whole. */
  async #settled(): Promise<Part[]> {
    const settled = await Promise.allSettled(this.#spools);
    return settled.flatMap((result) => (result.status === "fulfilled" && result.value !== undefined ? [result.value] : []));
  }

  #field(name: string | undefined, value: string, valueCut: boolean): void {
    if (this.#failure !== undefined) return;
    const refusal = fieldNameRefusal(name);
    if (refusal !== undefined) return this.#fail(new BadRequest(`The multipart form cannot be read: ${refusal}.`));
    const field = name as string;
    if (Object.hasOwn(this.limits.files, field)) {
      return this.#fail(new BadRequest(`The form sends text in "${field}", which takes a file: send it from a file input (<input type="file">).`));
    }
    this.#textBytes += Buffer.byteLength(field) + Buffer.byteLength(value);
    if (valueCut || this.#textBytes > this.limits.maxTextBytes) {
      return this.#fail(new UploadTooLarge(this.limits.maxTextBytes, `The form's text fields are larger than the ${this.limits.maxTextBytes}-byte limit (maxBodySize), at "${field}".`));
    }
    this.#pairs.push([field, value]);
  }

  #file(name: string | undefined, stream: Readable, fileName: string, claimedType: string): void {
    // Whatever happens to this part, its stream's errors are this reader's (an unhandled one would end the process).
    stream.on("error", () => {});
    if (this.#failure !== undefined) return void stream.resume();
    const problem = this.#fileProblem(name, fileName);
    if (problem !== undefined) {
      stream.resume();
      return this.#fail(problem);
    }
    const field = this.limits.files[name as string] as FileField;
    this.#streaming.add(stream);
    this.#spools.push(this.#spoolPart(stream, name as string, field, fileName, claimedType).finally(() => this.#streaming.delete(stream)));
  }

  /** Why a file part is refused before a byte of it is written, or undefined. */
  #fileProblem(name: string | undefined, fileName: string): Error | undefined {
    const refusal = fieldNameRefusal(name);
    if (refusal !== undefined) return new BadRequest(`The multipart form cannot be read: ${refusal}.`);
    const field = name as string;
    if (!Object.hasOwn(this.limits.files, field)) {
      return new BadRequest(
        Object.keys(this.limits.files).length === 0
          ? `This address takes no files, and the form sends one in "${field}".`
          : `The form sends a file in "${field}", which is not a file field here (it takes files in ${Object.keys(this.limits.files).map((f) => `"${f}"`).join(", ")}).`,
      );
    }
    const nameRefusal = fileNameRefusal(fileName);
    if (nameRefusal !== undefined) return new BadRequest(`The file sent in "${field}" has a name fw does not take: ${nameRefusal}. Rename the file and send it again.`);
    const count = (this.#counts.get(field) ?? 0) + 1;
    this.#counts.set(field, count);
    const most = this.limits.files[field]?.maxFiles ?? 1;
    if (count > most) return new UploadTooLarge(most, `The form sends more than ${most} file${most === 1 ? "" : "s"} in "${field}".`);
    this.#fileCount += 1;
    return undefined;
  }

  async #spoolPart(stream: Readable, field: string, limits: FileField, fileName: string, claimedType: string): Promise<Part | undefined> {
    try {
      const spooled = await spool(stream, this.limits.spoolDir, limits.maxBytes, this.#budget);
      // An empty file input: browsers send a part with an empty filename and no bytes. No file.
      if (fileName === "" && spooled.size === 0) {
        await removeAll([spooled.path]);
        return undefined;
      }
      return { ...spooled, field, name: sanitizeFileName(fileName), claimedType: claimedType || TEXT_TYPE };
    } catch (error) {
      this.#fail(stopped(error, field, this.limits));
      return undefined;
    }
  }
}

/** The whole body is over what the form could hold: named with each file field's limit, since no part was read to know which. */
function bodyTooLarge(cap: number, limits: MultipartLimits): UploadTooLarge {
  const fields = Object.entries(limits.files).map(([name, field]) => `${field.maxBytes} bytes in "${name}"${(field.maxFiles ?? 1) > 1 ? ` (each of ${field.maxFiles} files)` : ""}`);
  const files = fields.length === 0 ? "no files" : `files of at most ${fields.join(", ")}`;
  return new UploadTooLarge(cap, `The request body is larger than the ${cap} bytes this form may take: ${files}, and ${limits.maxTextBytes} bytes of text fields.`);
}

function tooManyFiles(most: number): UploadTooLarge {
  return new UploadTooLarge(most, `The form sends more than the ${most} file${most === 1 ? "" : "s"} this address takes.`);
}

/** The failure a spool stopped with, as what the client is told. */
function stopped(error: unknown, field: string, limits: MultipartLimits): Error {
  if (!(error instanceof SpoolStopped)) return error instanceof Error && (error as NodeJS.ErrnoException).code === "ERR_STREAM_PREMATURE_CLOSE" ? new ClientGone("The upload stopped mid-file.") : (error as Error);
  switch (error.reason) {
    case "file":
      return new UploadTooLarge(error.limit, `The file sent in "${field}" is larger than its ${error.limit}-byte limit.`);
    case "total":
      return new UploadTooLarge(error.limit, `The files of this form are larger than the ${limits.maxFileBytes}-byte limit of one request together (at "${field}").`);
    case "disk":
      return new UploadTooLarge(0, `The server has no room to store the file sent in "${field}" right now. Try again later.`);
  }
}
