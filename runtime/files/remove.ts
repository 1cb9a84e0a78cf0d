import { rm } from "node:fs/promises";

/** Removes files that may or may not exist (spooled parts, partial writes); never throws for a missing one. */
export async function removeAll(paths: readonly string[]): Promise<void> {
  await Promise.all(paths.map((path) => rm(path, { force: true })));
}
