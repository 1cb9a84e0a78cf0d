import { open } from "node:fs/promises";

/** The image formats fw accepts, stores and serves inline. */
export type ImageFormat = "png" | "jpeg" | "gif" | "webp" | "avif";

/** How many bytes of a file's start the signature check reads: enough for an AVIF `ftyp` box's brands. */
const HEAD_BYTES = 64;

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function ascii(head: Buffer, start: number, end: number): string {
  return head.subarray(start, end).toString("latin1");
}

/** AVIF is an ISO-BMFF file: an `ftyp` box whose major brand, or one of its compatible brands, is `avif` or `avis`. */
function isAvif(head: Buffer): boolean {
  if (head.length < 16 || ascii(head, 4, 8) !== "ftyp") return false;
  const boxEnd = Math.min(head.readUInt32BE(0), head.length);
  for (let at = 8; at + 4 <= boxEnd; at += 4) {
    // Bytes 12..16 are the minor version, not a brand.
    if (at === 12) continue;
    const brand = ascii(head, at, at + 4);
    if (brand === "avif" || brand === "avis") return true;
  }
  return false;
}

/** The format a file's first bytes announce, or undefined when they announce none of fw's image formats. */
export function formatOfHead(head: Buffer): ImageFormat | undefined {
  if (head.length >= 8 && head.subarray(0, 8).equals(PNG)) return "png";
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "jpeg";
  const six = ascii(head, 0, 6);
  if (six === "GIF87a" || six === "GIF89a") return "gif";
  if (head.length >= 12 && ascii(head, 0, 4) === "RIFF" && ascii(head, 8, 12) === "WEBP") return "webp";
  return isAvif(head) ? "avif" : undefined;
}

/**
 * The format a file's signature announces. libvips chooses its decoder from the same bytes, so a
 * file that passes here reaches one of the five decoders fw means to use, never another one
 * libvips has (SVG, PDF, TIFF, ...), whatever the sniffer upstream said.
 */
export async function formatOfFile(path: string): Promise<ImageFormat | undefined> {
  const file = await open(path, "r");
  try {
    const head = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await file.read(head, 0, HEAD_BYTES, 0);
    return formatOfHead(head.subarray(0, bytesRead));
  } finally {
    await file.close();
  }
}
