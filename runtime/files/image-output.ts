import { randomBytes } from "node:crypto";
import { rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * Runs `write` against a hidden part file beside `output`, then renames it into place: a reader
 * sees either no file or the whole one, and a failed write (a damaged image found halfway, a full
 * disk) leaves nothing behind. libvips itself leaves what it wrote so far when it fails.
 * The part file has no image extension: the writer must name its format explicitly.
 */
export async function writeInPlace<T>(output: string, write: (part: string) => Promise<T>): Promise<T> {
  const part = join(dirname(output), `.${basename(output)}.${randomBytes(6).toString("hex")}.part`);
  try {
    const result = await write(part);
    await rename(part, output);
    return result;
  } catch (error) {
    await rm(part, { force: true });
    throw error;
  }
}
