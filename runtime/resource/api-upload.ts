/**
 * An API route that takes an upload (issue 40): its handler's body type names a model's file
 * field (`cover?: Post["cover"]`), so the body is a `multipart/form-data` form. The build writes
 * `apiUpload(…)` for the route: typia's check of the text parts (the body's other fields, numbers
 * and booleans read from their text as typia's query decoder reads them), and per file field the
 * model field it is kept for. `request.upload()` answers the body as its type with each file
 * stored by the model's fw/files (recorded for the model's table and column, so a file no row
 * comes to hold is swept), or a 400 naming each failing place.
 */
import type { Fields } from "../http/fields.js";
import { MAX_JSON_ERRORS, refusedBody, type JsonError, type JsonRead } from "../http/json.js";
import type { UploadBody, UploadSource } from "../http/upload-body.js";
import { isMultipart, type FileFields, type UploadedFile } from "../http/uploads.js";
import type { FieldSpec, ModelSpec } from "./model.js";
import { readerField, type ModelFiles } from "./model-files.js";

/** What typia's `http.createValidateQuery<T>()` answers: the text parts as `T`, or the failing places. */
export type TextCheck = (input: URLSearchParams) =>
  | { readonly success: true; readonly data: unknown }
  | { readonly success: false; readonly errors: readonly { readonly path: string; readonly expected: string }[] };

/** One file field of an upload body: the model field it is kept for, and whether the body's type requires it. */
export interface UploadTarget {
  /** The model whose field the body's field names (`Post` for `Post["cover"]`). */
  readonly model: Pick<ModelSpec<unknown>, "name" | "fields">;
  /** The model's file field (`cover`): its limits, and the column that may hold the file. */
  readonly field: string;
  /** The model's fw/files (`modelFiles(table)`): stores the file and records it for the field's column. */
  readonly files: ModelFiles;
  /** The body's field is not optional: a request without a file in it is a 400. */
  readonly required: boolean;
}

interface Target extends UploadTarget {
  readonly spec: FieldSpec;
}

/**
 * The reading of one route's upload body: `text` checks the text parts, `files` names each file
 * field (by the body's name) with the model field it is kept for. Throws at boot when a named
 * model field is no file field (a table built by hand out of step with its models).
 */
export function apiUpload(text: TextCheck, files: Readonly<Record<string, UploadTarget>>): UploadBody {
  const targets = Object.entries(files).map(([name, target]): [string, Target] => [name, { ...target, spec: fileSpecOf(target) }]);
  const declared: FileFields = Object.fromEntries(targets.map(([name, target]) => [name, readerField(target.spec.file as NonNullable<FieldSpec["file"]>)]));
  return { files: declared, read: (request) => readUpload(request, text, targets) };
}

function fileSpecOf(target: UploadTarget): FieldSpec {
  const spec = target.model.fields.find((field) => field.name === target.field);
  if (spec?.file === undefined) throw new Error(`apiUpload: the model ${target.model.name} has no file field \`${target.field}\`; name one of its Upload<…> or Image<…> fields.`);
  return spec;
}

/** One failing place of the body: where, what was expected there, and the sentence the problem's detail says. */
interface Failure extends JsonError {
  readonly reason: string;
}

async function readUpload(request: UploadSource, text: TextCheck, targets: readonly (readonly [string, Target])[]): Promise<JsonRead<unknown>> {
  const type = request.headers.get("content-type");
  if (!isMultipart(type)) {
    const sent = type === undefined || type.trim() === "" ? "no Content-Type" : `Content-Type ${type.split(";")[0]?.trim().slice(0, 60)}`;
    const fields = targets.map(([name]) => `"${name}"`).join(", ");
    return refusedBody(`The request body must be a multipart/form-data form (it takes files in ${fields}); this request has ${sent}.`);
  }
  const checked = text(searchParams(request.fields));
  const failures: Failure[] = checked.success ? [] : checked.errors.map(textFailure);
  const uploads: [string, Target, UploadedFile][] = [];
  for (const [name, target] of targets) {
    const refused = request.files.problemsOf(name);
    const upload = request.files.get(name);
    if (refused.length > 0) failures.push(...refused.map((problem) => ({ path: placeOf(name), expected: expectedOf(problem.message), reason: problem.message })));
    else if (upload !== undefined) uploads.push([name, target, upload]);
    else if (target.required) failures.push({ path: placeOf(name), expected: "a file", reason: `a file is required: send one as a file part named "${name}"` });
  }
  if (failures.length > 0 || !checked.success) return mismatch(failures);
  const value: Record<string, unknown> = { ...(checked.data as object) };
  for (const [name, target, upload] of uploads) {
    const stored = await target.files.store(target.spec, upload);
    if ("problem" in stored) failures.push({ path: placeOf(name), expected: imageExpected(target.spec), reason: stored.problem });
    else value[name] = stored.file;
  }
  return failures.length > 0 ? mismatch(failures) : { ok: true, value };
}

function mismatch(failures: readonly Failure[]): JsonRead<never> {
  const shown = failures.slice(0, MAX_JSON_ERRORS);
  const more = failures.length > shown.length ? ` (the first ${shown.length} of ${failures.length})` : "";
  const listed = shown.map((failure) => `${failure.path}: ${failure.reason.replace(/\.$/, "")}`).join("; ");
  return refusedBody(`The request body does not match the expected type${more}: ${listed}.`, shown.map(({ path, expected }) => ({ path, expected })));
}

function textFailure(error: { readonly path: string; readonly expected: string }): Failure {
  const path = error.path.replace(/^\$input/, "$");
  return { path, expected: error.expected, reason: `expected ${error.expected}` };
}

/** The text parts as typia's query decoder reads them (a name may repeat: an array). */
function searchParams(fields: Fields): URLSearchParams {
  const params = new URLSearchParams();
  for (const name of fields.names) for (const value of fields.getAll(name)) params.append(name, value);
  return params;
}

/** `$.cover`, or `$["two words"]`: a body's place as typia names it. */
function placeOf(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? `$.${name}` : `$[${JSON.stringify(name)}]`;
}

/** What a refused file should have been, from the reader's sentence ("must be a file of type PDF, and this file is …"). */
function expectedOf(message: string): string {
  return /^must be (.*?), and this (?:file|one) /.exec(message)?.[1] ?? "a file its field takes";
}

function imageExpected(spec: FieldSpec): string {
  const pixels = spec.file?.maxPixels === undefined ? "" : ` of at most ${spec.file.maxPixels} pixels`;
  return spec.file?.image === true ? `a PNG, JPEG, GIF, WebP or AVIF image${pixels}` : "a file its field takes";
}
