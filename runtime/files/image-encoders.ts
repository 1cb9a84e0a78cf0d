import type { Sharp } from "sharp";
import type { ImageFormat } from "./image-signature.js";

/** The formats a variant can be written in. */
export type VariantFormat = "webp" | "avif" | "jpeg" | "png";

/**
 * Writes a normalised original in the format it came in. The settings keep what was uploaded as
 * close as a re-encoding can, at a memory and time cost an upload can bear (measured on a
 * 4000 × 3000 photo, docs/guides/files.md, "Images"):
 * - JPEG at quality 90, without optimised Huffman tables or progressive scans: both make libjpeg
 *   hold the whole image's coefficients (an 8064 × 6048 photo grew the process by 305 MB with
 *   them, by 26 MB without). The file is 8 to 22 % larger for it (a grainy and a smooth photo):
 *   storage is cheaper than a memory peak that can stop a small server, and pages show variants;
 * - PNG lossless; a palette PNG stays a palette PNG (re-encoding it as true colour would make it
 *   several times larger), its colours kept exactly;
 * - GIF with its own palette reused;
 * - WebP lossy at quality 90, effort 2 (2.4× faster than the default effort 4, 4 % larger);
 * - AVIF at quality 60, effort 0: every higher effort took 7 to 30 times as long, too slow for
 *   an upload to wait for.
 */
export function encodeOriginal(pipeline: Sharp, format: ImageFormat, isPalette: boolean): Sharp {
  switch (format) {
    case "jpeg":
      return pipeline.jpeg({ quality: 90, optimiseCoding: false, progressive: false });
    case "png":
      return isPalette ? pipeline.png({ palette: true, quality: 100, dither: 0 }) : pipeline.png();
    case "gif":
      return pipeline.gif({ reuse: true });
    case "webp":
      return pipeline.webp({ quality: 90, effort: 2 });
    case "avif":
      return pipeline.avif({ quality: 60, effort: 0 });
  }
}

/**
 * Writes a variant. Defaults: WebP at quality 80 and effort 4 (sharp's own defaults: a 200 ×
 * 150 thumbnail of a 4000 × 3000 photo in ~30 ms, a 1200 × 900 one in ~280 ms); AVIF at quality
 * 50, effort 0 (see encodeOriginal); JPEG at quality 80, progressive (variants are small, so the
 * whole-image buffering costs little); PNG lossless.
 */
export function encodeVariant(pipeline: Sharp, format: VariantFormat, quality: number | undefined): Sharp {
  switch (format) {
    case "webp":
      return pipeline.webp({ quality: quality ?? 80 });
    case "avif":
      return pipeline.avif({ quality: quality ?? 50, effort: 0 });
    case "jpeg":
      return pipeline.jpeg({ quality: quality ?? 80, progressive: true });
    case "png":
      return pipeline.png();
  }
}

/** The formats that can carry an animation: a variant in another format is made of the first frame. */
export function keepsAnimation(format: VariantFormat): boolean {
  return format === "webp";
}
