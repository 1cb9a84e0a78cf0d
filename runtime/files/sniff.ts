import { isUtf8 } from "node:buffer";
import { open } from "node:fs/promises";

/** The type of a file whose bytes fw could not name: never accepted where a type is asked for. */
export const UNKNOWN_TYPE = "application/octet-stream";
/** A file of UTF-8 text (no NUL, no control characters but tab, line feed, form feed, carriage return). */
export const TEXT_TYPE = "text/plain";
export const HTML_TYPE = "text/html";
export const SVG_TYPE = "image/svg+xml";
export const XML_TYPE = "application/xml";

/** How much of a file's start is read to tell text from binary and HTML from SVG. */
const HEAD_BYTES = 64 * 1024;

type FileTypeModule = typeof import("file-type");
let fileType: Promise<FileTypeModule> | undefined;

/**
 * The type of the file at `path`, read from its bytes alone (what the client said is never
 * asked). Binary formats by their magic numbers (`file-type`, loaded on first use); a file
 * without one is text when it is valid UTF-8 without NUL or control characters throughout, and
 * then HTML (by the patterns browsers sniff for), SVG or XML by how it starts, else `text/plain`;
 * anything else is `application/octet-stream`.
 */
export async function sniffFile(path: string, options: { readonly wholeText?: boolean } = {}): Promise<string> {
  fileType ??= import("file-type");
  const found = await (await fileType).fileTypeFromFile(path);
  // file-type names an XML file by its `<?xml` start alone: whether it is SVG is read below.
  if (found !== undefined && found.mime !== XML_TYPE) return found.mime;
  // A field that takes no text needs only a name for what it refuses: the start of the file is read, not all of it.
  return (await isText(path, options.wholeText === false ? HEAD_BYTES : Infinity)) ? markupType(await readHead(path)) : UNKNOWN_TYPE;
}

async function readHead(path: string): Promise<string> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    // Text already checked whole: a character cut at the end of the head decodes as U+FFFD, harmless here.
    return buffer.subarray(0, bytesRead).toString("utf8");
  } finally {
    await handle.close();
  }
}

/**
 * Whether the file (its first `limit` bytes) is UTF-8 text: no NUL nor control character but
 * tab, line feed, form feed and carriage return, and valid UTF-8 throughout (checked by Node's
 * native `isUtf8` chunk by chunk, a character split between two reads carried over to the next).
 * An empty file is text.
 */
export async function isText(path: string, limit = Infinity): Promise<boolean> {
  const handle = await open(path, "r");
  try {
    let carry = Buffer.alloc(0);
    let read = 0;
    for await (const chunk of handle.createReadStream({ highWaterMark: HEAD_BYTES, ...(limit === Infinity ? {} : { end: limit - 1 }) })) {
      read += (chunk as Buffer).length;
      const bytes = carry.length === 0 ? (chunk as Buffer) : Buffer.concat([carry, chunk as Buffer]);
      if (CONTROL_BYTES.test(bytes.toString("latin1"))) return false;
      const cut = unfinished(bytes);
      if (!isUtf8(bytes.subarray(0, bytes.length - cut))) return false;
      carry = Buffer.from(bytes.subarray(bytes.length - cut));
    }
    // A character cut by the end of the file is invalid; one cut by `limit` is the read's doing.
    return carry.length === 0 || read >= limit;
  } finally {
    await handle.close();
  }
}

// The control bytes text may not hold, matched on the bytes read as Latin-1 (one character a byte).
const CONTROL_BYTES = /[\x00-\x08\x0b\x0e-\x1f\x7f]/;

/** How many bytes at the end start a UTF-8 character that the next read completes (0 to 3). */
function unfinished(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back] as number;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const needs = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needs > back ? back : 0;
  }
  return 0;
}

// The tags the WHATWG MIME Sniffing standard (7.1, "identifying a resource with an unknown MIME
// type") takes for HTML, each followed by a space or ">"; and "<!--".
const HTML_START = /^<(!doctype html|html|head|script|iframe|h1|div|font|table|a|style|title|b|body|br|p)[\s>]|^<!--/iu;

/** What text is, by how it starts (after a BOM and white space). */
function markupType(head: string): string {
  const start = head.replace(/^\ufeff/u, "").trimStart();
  if (HTML_START.test(start)) return HTML_TYPE;
  if (/^<svg[\s>]/iu.test(start) || (/^<\?xml[\s?]/iu.test(start) && /<svg[\s>]/iu.test(start))) return SVG_TYPE;
  if (/^<\?xml[\s?]/iu.test(start)) return XML_TYPE;
  return TEXT_TYPE;
}

// Anything in an SVG that can run or load: scripts, event handlers, javascript: and data: links,
// foreign HTML, embedded documents, and entity declarations (entity expansion bombs, XXE).
const ACTIVE_SVG = /<script|\bon[a-z]+\s*=|javascript:|<foreignobject|<iframe|<embed|<object|<!entity|href\s*=\s*["']?\s*data:/iu;

/**
 * Whether an SVG holds active content (see `ACTIVE_SVG`): fw refuses such a file even where the
 * field accepts SVG. A check on top of the real defence: SVG is never served inline, and always
 * under a sandboxing CSP.
 */
export async function svgIsActive(path: string): Promise<boolean> {
  const handle = await open(path, "r");
  try {
    // The whole file, decoded as text (sniffFile found it is): SVGs are small, and a field that
    // takes them sets its own maxBytes.
    return ACTIVE_SVG.test((await handle.readFile()).toString("utf8"));
  } finally {
    await handle.close();
  }
}
