import { createRequire } from "node:module";
import { join } from "node:path";

const TSPC = "ts-patch/bin/tspc.js";

/**
 * ts-patch's `tspc`, the compiler with transformers on: the app's own install first (its
 * TypeScript version is the one the app is built with), else the one fw depends on.
 */
export function resolveTspc(projectDir: string): string {
  try {
    return createRequire(join(projectDir, "package.json")).resolve(TSPC);
  } catch {
    return createRequire(import.meta.url).resolve(TSPC);
  }
}
