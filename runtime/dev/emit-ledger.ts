import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";

/**
 * What the compiler wrote, by content: it tells whether the code on disk differs from the code
 * the running app loaded. tsc re-emits files whose output did not change (the generated route
 * module's rewrite triggers a second compile, a reverted edit emits the old text again), and
 * restarting for those would only cost time.
 */
export class EmitLedger {
  /** File → hash of its content, as last written. */
  #disk = new Map<string, string>();
  /** The same, when the running app was started. */
  #loaded = new Map<string, string>();

  /** Records the files a compile wrote (absolute paths). */
  record(files: readonly string[]): void {
    for (const file of files) {
      const hash = hashOf(file);
      if (hash === undefined) this.#disk.delete(file);
      else this.#disk.set(file, hash);
    }
  }

  /** True when some file on disk differs from what the running app was started with. */
  get changed(): boolean {
    if (this.#disk.size !== this.#loaded.size) return true;
    for (const [file, hash] of this.#disk) if (this.#loaded.get(file) !== hash) return true;
    return false;
  }

  /** The app is being started from the code on disk now. */
  markLoaded(): void {
    this.#loaded = new Map(this.#disk);
  }
}

function hashOf(file: string): string | undefined {
  try {
    return createHash("sha1").update(readFileSync(file)).digest("hex");
  } catch {
    return undefined; // listed but gone again: nothing to load
  }
}
