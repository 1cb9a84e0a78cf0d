import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deflateSync } from "node:zlib";

/** A folder of its own in the test file's temp folder; remove it with `rmSync(…, { recursive: true })`. */
export function tempFolder(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** What a folder holds (nothing, after every request, for a spool folder). */
export function left(folder: string): string[] {
  return readdirSync(folder);
}

export function removeFolder(folder: string): void {
  rmSync(folder, { recursive: true, force: true });
}

function crc32(bytes: Buffer): number {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A real PNG of `width` × `height` grey pixels (decodable by any image library). */
export function png(width = 1, height = 1): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale
  const rows = Buffer.alloc((width + 1) * height, 0x80);
  for (let y = 0; y < height; y++) rows[y * (width + 1)] = 0; // filter byte per row
  return Buffer.concat([Buffer.from("89504e470d0a1a0a", "hex"), chunk("IHDR", header), chunk("IDAT", deflateSync(rows)), chunk("IEND", Buffer.alloc(0))]);
}

/** One part of a hand-written multipart body: its headers as written, and its content. */
export interface RawPart {
  readonly headers: string;
  readonly content?: string | Buffer;
}

export const BOUNDARY = "----fwTestBoundary7MA4YWxkTrZu0gW";

/** A multipart body written byte by byte, so a test can send what no client library would. */
export function multipartBody(parts: readonly RawPart[], boundary = BOUNDARY): Buffer {
  const pieces: Buffer[] = [];
  for (const part of parts) {
    pieces.push(Buffer.from(`--${boundary}\r\n${part.headers}\r\n\r\n`, "utf8"), Buffer.from(part.content ?? ""), Buffer.from("\r\n"));
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(pieces);
}

export const field = (name: string, value: string): RawPart => ({ headers: `Content-Disposition: form-data; name="${name}"`, content: value });

export const file = (name: string, fileName: string, content: string | Buffer, type = "application/octet-stream"): RawPart => ({
  headers: `Content-Disposition: form-data; name="${name}"; filename="${fileName}"\r\nContent-Type: ${type}`,
  content,
});

export const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;
