import { IMAGE_TYPES, type FileField } from "../http/uploads.js";
import { HTML_TYPE, SVG_TYPE, TEXT_TYPE } from "./sniff.js";

/** A file's type once its field accepted it, or why not (a sentence end, shown beside the field). */
export type Verdict = { readonly ok: true; readonly type: string } | { readonly ok: false; readonly message: string };

/** The patterns a field accepts: an image field takes the raster image types its `accept` allows, or all of them. */
export function acceptedPatterns(field: FileField): readonly string[] {
  if (field.image !== true) return field.accept;
  const allowed = IMAGE_TYPES.filter((type) => field.accept.length === 0 || field.accept.some((pattern) => matches(pattern, type)));
  return allowed;
}

/**
 * Whether `pattern` takes `type`. `type/*` takes the type's subtypes, except two that must be
 * named: SVG (`image/*` does not take a document that can carry scripts) and HTML (`text/*`).
 */
export function matches(pattern: string, type: string): boolean {
  if (pattern === type) return true;
  if (!pattern.endsWith("/*") || type === SVG_TYPE || type === HTML_TYPE) return false;
  return type.startsWith(pattern.slice(0, -1));
}

/**
 * Decides a file by its sniffed type (sniff.ts) against its field. Text has no magic number: a
 * file of plain UTF-8 text (`text/plain`) is taken by any text pattern (`text/csv`,
 * `text/markdown`, `text/*`), and stored as the type the client named when that is one the field
 * takes, else as the first text type the field names: the bytes say "text", the client may say
 * which kind, and every text type is served the same way (as a download).
 */
export function decide(sniffed: string, claimed: string, field: FileField): Verdict {
  const patterns = acceptedPatterns(field);
  if (sniffed !== TEXT_TYPE && patterns.some((pattern) => matches(pattern, sniffed))) return { ok: true, type: sniffed };
  if (sniffed === TEXT_TYPE) {
    const text = patterns.filter((pattern) => pattern.startsWith("text/"));
    const named = essence(claimed);
    if (text.length > 0) {
      const type = named.startsWith("text/") && named !== HTML_TYPE && text.some((pattern) => matches(pattern, named)) ? named : concrete(text[0] as string);
      return { ok: true, type };
    }
  }
  return { ok: false, message: `must be ${described(patterns)}, and this file is ${kindOf(sniffed)}` };
}

/**
 * Whether a field may take a type that only a check of the whole file can grant: text, SVG or
 * XML (no magic number). A field that takes none of them needs only the start of a file that has
 * no magic number, to name what it refuses.
 */
export function takesText(field: FileField): boolean {
  return acceptedPatterns(field).some((pattern) => pattern.startsWith("text/") || pattern === SVG_TYPE || pattern === "application/xml");
}

/** The MIME type of a Content-Type value, lower case, without parameters. */
function essence(contentType: string): string {
  const semi = contentType.indexOf(";");
  return (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

function concrete(pattern: string): string {
  return pattern.endsWith("/*") ? TEXT_TYPE : pattern;
}

const NAMES: Readonly<Record<string, string>> = {
  "image/png": "PNG",
  "image/jpeg": "JPEG",
  "image/gif": "GIF",
  "image/webp": "WebP",
  "image/avif": "AVIF",
  "image/svg+xml": "SVG",
  "application/pdf": "PDF",
  "text/plain": "text",
  "text/csv": "CSV",
  "text/html": "an HTML document",
  "application/xml": "XML",
  "application/zip": "a ZIP archive",
  "application/octet-stream": "of no type fw recognises",
};

function kindOf(type: string): string {
  const name = NAMES[type];
  if (name === undefined) return type;
  return name.startsWith("an ") || name.startsWith("a ") || name.startsWith("of ") ? name : `${/^[AEIOU]/.test(name) ? "an" : "a"} ${name} file`;
}

function described(patterns: readonly string[]): string {
  const names = patterns.map((pattern) => (pattern.endsWith("/*") ? `any ${pattern.slice(0, -2)} type` : (NAMES[pattern] ?? pattern)));
  const list = names.length <= 1 ? (names[0] ?? "nothing") : `${names.slice(0, -1).join(", ")} or ${names[names.length - 1] as string}`;
  return `a file of type ${list}`;
}
