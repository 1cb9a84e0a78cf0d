/**
 * Images for fw/files: checks an uploaded image's header against a pixel limit, normalises it once
 * at upload (oriented, every metadata removed, re-encoded in its own format) and makes its variants
 * (thumbnails) in a web format. Every function works from a path on disk to a path on disk, so no
 * image is ever held whole in memory by fw, and decoding goes through a few slots at a time.
 *
 * sharp (libvips) does the decoding and encoding, loaded with the first image a process handles,
 * not at boot: it is some 150 modules and a native library, which an app with an image field
 * would otherwise load in every process, and a command (`routes`, `db migrate`) never needs. Its
 * operation cache is turned off as it loads (`sharp.cache(false)`): it keeps recent operations'
 * results in memory (50 MB by default) for re-use, and uploads are never processed twice. libvips' threads per image stay at
 * sharp's default (1 on glibc Linux, to limit memory fragmentation; the core count elsewhere).
 */
import { stat } from "node:fs/promises";
import { devNull } from "node:os";
import type { Metadata, OutputInfo, SharpOptions } from "sharp";
import { encodeOriginal, encodeVariant, keepsAnimation, type VariantFormat } from "./image-encoders.js";
import { writeInPlace } from "./image-output.js";
import { imageProblems, isTimeout } from "./image-problems.js";
import { formatOfFile, type ImageFormat } from "./image-signature.js";
import { Slots } from "./image-slots.js";

export type { ImageFormat } from "./image-signature.js";
export type { VariantFormat } from "./image-encoders.js";

type SharpModule = (typeof import("sharp"))["default"];
let loading: Promise<SharpModule> | undefined;

/** sharp, imported on first use, its cache off. */
function loadSharp(): Promise<SharpModule> {
  loading ??= import("sharp").then(({ default: sharp }) => {
    sharp.cache(false);
    return sharp;
  });
  return loading;
}

/**
 * The default largest image accepted, in pixels (all frames of an animation counted): 50
 * million, which takes the 48 to 50 megapixel photos of today's phones and refuses a
 * decompression bomb (a 50,000 × 50,000 PNG of a few hundred bytes would decode to 7.5 GB).
 * Decoding an image at the limit takes up to ~150 MB while it is rotated. A field overrides it
 * (`Image<{ maxPixels: … }>`).
 */
export const DEFAULT_MAX_PIXELS = 50_000_000;

/** How many images are decoded at once by default, across the process; see setImageConcurrency. */
export const DEFAULT_IMAGE_CONCURRENCY = 2;

const slots = new Slots(DEFAULT_IMAGE_CONCURRENCY);

/**
 * When libvips gives up on an image: at its first warning, as sharp advises for untrusted input.
 * A truncated file, a bad checksum and data the decoder would have to guess at ("Corrupt JPEG
 * data", which libjpeg would paint grey) are all refused, rather than stored half grey.
 */
const FAIL_ON = "warning";

/**
 * Sets how many images fw decodes at once in this process (normalising and making variants);
 * the others wait their turn. Each costs up to ~3 bytes a pixel while it is rotated, so the
 * default of 2 keeps the worst case near 300 MB at the default pixel limit, and a few MB for
 * typical photos.
 */
export function setImageConcurrency(count: number): void {
  slots.resize(count);
}

/**
 * How long libvips may work on one image (sharp's `timeout`; the time waiting for a slot or a
 * thread is not counted) before it is stopped: a hang guard against a pathological file. The
 * slowest accepted work measured here, a 48-megapixel WebP re-encoded, took ~3 s on a busy core.
 */
export const IMAGE_SECONDS = 60;

/** The media types of the accepted formats, as stored and served. */
export const IMAGE_TYPES = {
  png: "image/png",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  avif: "image/avif",
} as const satisfies Record<ImageFormat, string>;

/** A media type of an accepted image format. */
export type ImageType = (typeof IMAGE_TYPES)[ImageFormat];

/** Limits of one image field: `maxPixels` defaults to DEFAULT_MAX_PIXELS. */
export interface ImageLimits {
  readonly maxPixels?: number;
}

/** What an image's header says. `height` is one frame's; `frames` is 1 unless it is an animation. */
export interface ImageHeader {
  readonly format: ImageFormat;
  readonly type: ImageType;
  readonly width: number;
  readonly height: number;
  readonly frames: number;
}

/** An image fw wrote: its header, as stored, and its size in bytes. */
export interface StoredImage extends ImageHeader {
  readonly size: number;
}

/** An image accepted (`ok`), or the sentence that says why not, for a 422 beside the field. */
export type ImageAnswer<T> = { readonly ok: true; readonly image: T } | { readonly ok: false; readonly problem: string };

interface Header {
  readonly answer: ImageAnswer<ImageHeader>;
  readonly isPalette: boolean;
}

/**
 * Reads an uploaded image's header, never its pixels, and answers its format and size, or a
 * problem: an empty file, a file that is none of PNG, JPEG, GIF, WebP or AVIF (by its bytes),
 * a header libvips cannot read, or more pixels than `maxPixels`. A damaged body is found only
 * by decoding it, which normaliseImage does.
 */
export async function inspectImage(path: string, limits: ImageLimits = {}): Promise<ImageAnswer<ImageHeader>> {
  return (await readHeader(path, maxPixelsOf(limits))).answer;
}

async function readHeader(path: string, maxPixels: number): Promise<Header> {
  const refused = (problem: string): Header => ({ answer: { ok: false, problem }, isPalette: false });
  if ((await stat(path)).size === 0) return refused(imageProblems.empty());
  const format = await formatOfFile(path);
  if (format === undefined) return refused(imageProblems.notAnImage());
  let metadata: Metadata;
  const sharp = await loadSharp();
  try {
    // No limit here: the header's size is read so the problem can say it; the check follows.
    metadata = await sharp(path, { limitInputPixels: false, failOn: FAIL_ON }).metadata();
  } catch {
    return refused(imageProblems.unreadable(format));
  }
  if (!decodedAs(format, metadata)) return refused(imageProblems.notAnImage());
  const frames = format === "gif" || format === "webp" ? (metadata.pages ?? 1) : 1;
  const size = { width: metadata.width, height: metadata.height, frames };
  if (size.width * size.height * frames > maxPixels) return refused(imageProblems.tooManyPixels(size, maxPixels));
  return { answer: { ok: true, image: { format, type: IMAGE_TYPES[format], ...size } }, isPalette: metadata.isPalette };
}

/** Whether libvips read the file as the format its signature announced (AVIF is HEIF coded in AV1; HEIC is refused). */
function decodedAs(format: ImageFormat, metadata: Metadata): boolean {
  if (format === "avif") return metadata.format === "heif" && metadata.compression === "av1";
  return metadata.format === format;
}

/**
 * Normalises an uploaded image once, before it is stored: checks it as inspectImage does, then
 * turns it upright by its EXIF orientation, converts its colours to sRGB through its ICC
 * profile, and writes it to `output` in its own format with no metadata at all (no EXIF, GPS,
 * XMP, IPTC, ICC profile or PNG text), so what is served to others never carries the uploader's
 * position or camera. An animated GIF or WebP keeps its animation (its frames count towards
 * the pixel limit). A damaged or truncated image is a problem, and nothing is written; `output`
 * may be `input`. An image libvips works on for more than IMAGE_SECONDS is a problem too.
 * Throws only when writing fails (a missing folder, a full disk).
 */
export async function normaliseImage(input: string, output: string, limits: ImageLimits = {}): Promise<ImageAnswer<StoredImage>> {
  const maxPixels = maxPixelsOf(limits);
  const header = await readHeader(input, maxPixels);
  if (!header.answer.ok) return header.answer;
  const { format, frames } = header.answer.image;
  const options: SharpOptions = { failOn: FAIL_ON, limitInputPixels: maxPixels, animated: frames > 1 };
  const sharp = await loadSharp();
  try {
    const info = await slots.run(() =>
      writeInPlace(output, (part) =>
        encodeOriginal(sharp(input, { ...options, autoOrient: true }), format, header.isPalette).timeout({ seconds: IMAGE_SECONDS }).toFile(part),
      ),
    );
    return { ok: true, image: stored(format, info) };
  } catch (error) {
    if (isTimeout(error)) return { ok: false, problem: imageProblems.tooSlow(IMAGE_SECONDS) };
    // libvips' message does not say on which side it failed: decode again with nothing written.
    if (await decodes(input, options)) throw error;
    return { ok: false, problem: imageProblems.unreadable(format) };
  }
}

/** Whether the whole image decodes: every pixel read, written uncompressed to the null device (libvips has no null sink). */
async function decodes(input: string, options: SharpOptions): Promise<boolean> {
  const sharp = await loadSharp();
  try {
    await slots.run(() => sharp(input, options).png({ compressionLevel: 0 }).timeout({ seconds: IMAGE_SECONDS }).toFile(devNull));
    return true;
  } catch {
    return false;
  }
}

function stored(format: ImageFormat, info: OutputInfo): StoredImage {
  const frames = info.pages ?? 1;
  const height = frames > 1 && info.pageHeight !== undefined ? info.pageHeight : info.height;
  return { format, type: IMAGE_TYPES[format], width: info.width, height, frames, size: info.size };
}

/** A variant: fit inside `width` × `height`, ratio kept, never enlarged; WebP unless `format` says otherwise. */
export interface ImageVariant {
  readonly width: number;
  readonly height: number;
  readonly format?: VariantFormat;
  /** 1 to 100; the format's default (see image-encoders.ts) when absent. Not used by PNG. */
  readonly quality?: number;
}

/** The default variants and their sizes live in the core, where the pages linking them read them. */
export { defaultVariants, variantSize } from "../resource/image-variants.js";

/**
 * Makes a variant of an image (the normalised original) into `output`: fit inside the variant's
 * box, never enlarged, in its format, with no metadata. An animation stays one in WebP; another
 * format takes its first frame. Made once by the caller, who keeps it beside the original.
 * Throws when the input is no acceptable image (the original was checked at upload) or the write fails.
 */
export async function makeVariant(input: string, output: string, variant: ImageVariant, limits: ImageLimits = {}): Promise<StoredImage> {
  checkVariant(variant);
  const maxPixels = maxPixelsOf(limits);
  const header = (await readHeader(input, maxPixels)).answer;
  if (!header.ok) throw new Error(`fw/files cannot make a variant of ${input}: ${header.problem}`);
  const format = variant.format ?? "webp";
  const animated = header.image.frames > 1 && keepsAnimation(format);
  const sharp = await loadSharp();
  const info = await slots.run(() =>
    writeInPlace(output, (part) => {
      const source = sharp(input, { failOn: FAIL_ON, limitInputPixels: maxPixels, animated, autoOrient: true });
      const resized = source.resize(variant.width, variant.height, { fit: "inside", withoutEnlargement: true });
      return encodeVariant(resized, format, variant.quality).timeout({ seconds: IMAGE_SECONDS }).toFile(part);
    }),
  );
  return stored(format, info);
}

function maxPixelsOf(limits: ImageLimits): number {
  const maxPixels = limits.maxPixels ?? DEFAULT_MAX_PIXELS;
  if (!Number.isSafeInteger(maxPixels) || maxPixels < 1) {
    throw new RangeError(`An image's maxPixels must be a whole number of at least 1; got ${maxPixels}.`);
  }
  return maxPixels;
}

function checkVariant(variant: ImageVariant): void {
  for (const [name, value] of [["width", variant.width], ["height", variant.height]] as const) {
    if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`An image variant's ${name} must be a whole number of at least 1; got ${value}.`);
  }
  if (variant.quality !== undefined && (!Number.isInteger(variant.quality) || variant.quality < 1 || variant.quality > 100)) {
    throw new RangeError(`An image variant's quality must be a whole number from 1 to 100; got ${variant.quality}.`);
  }
}
