import type { Fields } from "./fields.js";
import type { RequestHeaders } from "./headers.js";
import type { JsonRead } from "./json.js";
import type { FileFields, Uploads } from "./uploads.js";

/** What an upload route's body is read from: the request's headers, its multipart text parts and its spooled files. */
export interface UploadSource {
  readonly headers: RequestHeaders;
  readonly fields: Fields;
  readonly files: Uploads;
}

/**
 * How an API route reads a `multipart/form-data` body of the type its handler declares
 * (`request.upload()`, issue 40): the file fields the multipart reader takes (their limits and
 * types, from the model fields they name), and the reading itself, which checks the text parts
 * against the type and stores each file. The build writes one for a handler whose body type has
 * a file field (runtime/resource/api-upload.ts `apiUpload`).
 */
export interface UploadBody {
  /** The file fields, by the body's names: what the multipart reader takes (`HttpRoute.files`). */
  readonly files: FileFields;
  /** The body as its declared type, each file stored; or the problem of a body that is not it (a 400). */
  read(request: UploadSource): Promise<JsonRead<unknown>>;
}
