/**
 * The sizes of an image field's variants (issue 40), shared by the pages that link them (an
 * `<img width height>` without reading the file) and fw/files, which makes them: `thumb` for an
 * Index, `large` for a Show, each fit inside its box, ratio kept, never enlarged.
 */
import type { StoredImage } from "./file-types.js";

/** A variant's box. */
export interface VariantBox {
  readonly width: number;
  readonly height: number;
}

/** The variants fw makes of an image field: `thumb` for an Index, `large` for a Show. */
export const defaultVariants = {
  thumb: { width: 200, height: 200 },
  large: { width: 1200, height: 1200 },
} as const satisfies Record<string, VariantBox>;

export type VariantName = keyof typeof defaultVariants;

/** Whether `name` is one of the variants fw makes. */
export function isVariantName(name: string): name is VariantName {
  return Object.hasOwn(defaultVariants, name);
}

/** The size a variant of an image of `size` has, as fw/files makes it (libvips' "inside" fit, never enlarged). */
export function variantSize(variant: VariantBox, size: { readonly width: number; readonly height: number }): { width: number; height: number } {
  const xFactor = size.width / variant.width;
  const yFactor = size.height / variant.height;
  if (xFactor <= 1 && yFactor <= 1) return { width: size.width, height: size.height };
  // As libvips sizes "inside": the side that constrains gets the box's size, the other is rounded.
  if (xFactor >= yFactor) return { width: variant.width, height: Math.max(1, Math.round(size.height / xFactor)) };
  return { width: Math.max(1, Math.round(size.width / yFactor)), height: variant.height };
}

/** What an `<img>` needs to show a variant: where it is served, and its size (so the page does not jump as it loads). */
export interface ImageVariant {
  readonly src: string;
  readonly width: number;
  readonly height: number;
}

/**
 * A stored image's variant, for a page of your own (the derived pages write theirs):
 * `<img src={thumb.src} width={thumb.width} height={thumb.height} alt="">` with
 * `const thumb = imageVariant(post.cover, "thumb")`. Served beside the file, by its row's read
 * rule, made on first request. The image must come from a row read through its store, which sets
 * its `url` (as seen from the site's root: under `Route.under`, pass `src` to `request.href`).
 */
export function imageVariant(image: StoredImage, name: VariantName): ImageVariant {
  if (image.url === undefined) {
    throw new TypeError(`imageVariant: the image ${JSON.stringify(image.name)} has no url. Read its row through the model's store (which sets url), not from elsewhere.`);
  }
  return { src: `${image.url}/${name}`, ...variantSize(defaultVariants[name], image) };
}
