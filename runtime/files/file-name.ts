/**
 * Names a client sends with a file or a form part, checked and made safe. A stored file's name is
 * only ever shown (a page, a download's `Content-Disposition`): storage keys are random.
 */

/** The longest file name fw keeps, in UTF-8 bytes: what common file systems allow. */
export const MAX_FILE_NAME_BYTES = 255;
/** The longest form field name fw reads. */
export const MAX_FIELD_NAME_LENGTH = 100;
/** The name a file gets when nothing of its own name is left. */
export const FALLBACK_FILE_NAME = "file";

// C0 controls, DEL and C1 controls.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/gu;
// Bidirectional embeddings, overrides and isolates: they make "gpj.exe" read as "exe.jpg".
const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/u;
// Everything invisible that changes how a name reads: the above, and the direction marks,
// zero-width characters, the BOM, and the line and paragraph separators.
const INVISIBLE = /[\u202a-\u202e\u2066-\u2069\u200b-\u200f\u061c\u2028\u2029\ufeff]/gu;

/**
 * Why fw refuses a file part's name (a 400 naming the field), or undefined when it will take
 * it: a name no browser sends from a real file. NUL and other control characters, bidi
 * overrides (a name that reads other than it is), a path (`/` or `\`: browsers send the base
 * name alone), `.` and `..`, or more than 255 bytes.
 */
export function fileNameRefusal(name: string): string | undefined {
  if (CONTROL.test(name)) return "it contains a control character (such as NUL)";
  if (BIDI_CONTROL.test(name)) return "it contains a bidirectional override, which makes a name read other than it is";
  if (name.includes("/") || name.includes("\\")) return "it is a path (it contains / or \\), not a file name";
  if (name === "." || name === "..") return `"${name}" is no file name`;
  if (Buffer.byteLength(name) > MAX_FILE_NAME_BYTES) return `it is longer than ${MAX_FILE_NAME_BYTES} bytes`;
  return undefined;
}

/**
 * Why fw refuses a form part's field name (a 400), or undefined: none at all, more than 100
 * characters, or control or bidi characters. Field names are the app's own (its inputs'
 * `name`s): anything else is not a form of this app.
 */
export function fieldNameRefusal(name: string | undefined): string | undefined {
  if (name === undefined || name === "") return "a part of the form has no name";
  if (name.length > MAX_FIELD_NAME_LENGTH) return `a part of the form has a name longer than ${MAX_FIELD_NAME_LENGTH} characters`;
  if (CONTROL.test(name) || BIDI_CONTROL.test(name)) return "a part of the form has a name with control or bidi characters";
  return undefined;
}

/**
 * A name safe to store and show, from any string: the last segment of a path, Unicode NFC,
 * without control characters or invisible ones (bidi controls, zero-width characters), without
 * leading and trailing spaces and dots (Windows drops trailing ones; a leading dot hides a file),
 * cut to 255 UTF-8 bytes with its extension kept, never cutting a character in two; and
 * "file" when nothing is left. Total: any string gives a name.
 */
export function sanitizeFileName(name: string): string {
  const base = name.split(/[/\\]/u).pop() ?? "";
  const visible = base.normalize("NFC").replace(CONTROLS, "").replace(INVISIBLE, "");
  const trimmed = visible.replace(/^[\s.]+|[\s.]+$/gu, "");
  const cut = withinBytes(trimmed, MAX_FILE_NAME_BYTES);
  return cut === "" ? FALLBACK_FILE_NAME : cut;
}

/** `name` cut to at most `limit` UTF-8 bytes, keeping a short extension, whole characters only. */
function withinBytes(name: string, limit: number): string {
  if (Buffer.byteLength(name) <= limit) return name;
  const dot = name.lastIndexOf(".");
  const extension = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : "";
  const stem = name.slice(0, name.length - extension.length);
  return (cutChars(stem, limit - Buffer.byteLength(extension)).replace(/[\s.]+$/u, "") + extension).replace(/^[\s.]+/u, "");
}

function cutChars(text: string, limit: number): string {
  let out = "";
  let bytes = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char);
    if (bytes + size > limit) break;
    out += char;
    bytes += size;
  }
  return out;
}
