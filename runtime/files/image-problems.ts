import type { ImageFormat } from "./image-signature.js";

/** The formats' names as a sentence says them. */
const FORMAT_NAMES: Readonly<Record<ImageFormat, string>> = { png: "PNG", jpeg: "JPEG", gif: "GIF", webp: "WebP", avif: "AVIF" };

const ACCEPTED = "PNG, JPEG, GIF, WebP or AVIF";

/** The sentences shown beside a file field when its image is refused (a 422 with the form). */
export const imageProblems = {
  empty: (): string => `The file is empty: choose a ${ACCEPTED} image.`,
  notAnImage: (): string => `The file is not a ${ACCEPTED} image.`,
  unreadable: (format: ImageFormat): string =>
    `The ${FORMAT_NAMES[format]} image could not be read: the file is damaged or incomplete.`,
  tooSlow: (seconds: number): string => `The image took more than ${seconds} seconds to process: save it again at a smaller size.`,
  tooManyPixels: (size: { width: number; height: number; frames: number }, maxPixels: number): string => {
    const limit = `at most ${pixels(maxPixels)} pixels are accepted.`;
    if (size.frames === 1) return `The image is ${size.width} × ${size.height} pixels; ${limit}`;
    const total = size.width * size.height * size.frames;
    return `The animation is ${size.width} × ${size.height} pixels in ${size.frames} frames (${pixels(total)} pixels); ${limit}`;
  },
};

/** 50000000 → "50 million", 1234567 → "1,234,567". */
function pixels(count: number): string {
  if (count >= 1_000_000 && count % 1_000_000 === 0) return `${count / 1_000_000} million`;
  return count.toLocaleString("en-US");
}

/** Whether sharp stopped a task at its `timeout` ("timeout: 60% complete", as sharp's docs test it). */
export function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith("timeout:");
}
