import type { CacheStore } from "./store.js";

interface Entry {
  readonly text: string;
  readonly expiresAt: number;
  readonly tags: readonly string[];
}

/**
 * A cache in this process's memory: for tests, one-process apps, and as the quick layer in front
 * of a shared store. At most `maxEntries` (default 10,000): past that the least recently read goes.
 */
export class MemoryCacheStore implements CacheStore {
  readonly #entries = new Map<string, Entry>();
  readonly #maxEntries: number;

  constructor(options: { readonly maxEntries?: number } = {}) {
    this.#maxEntries = options.maxEntries ?? 10_000;
  }

  async get(key: string): Promise<{ readonly text: string; readonly tags: readonly string[] } | undefined> {
    const entry = this.getNow(key);
    return entry === undefined ? undefined : { text: entry.text, tags: entry.tags };
  }

  /** `get` without a promise (the quick layer is read on every hit). */
  getNow(key: string): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    // Least recently read last: Map keeps insertion order.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry;
  }

  async set(key: string, text: string, expiresAt: number, tags: readonly string[]): Promise<void> {
    this.setNow(key, text, expiresAt, tags);
  }

  setNow(key: string, text: string, expiresAt: number, tags: readonly string[]): void {
    this.#entries.delete(key);
    this.#entries.set(key, { text, expiresAt, tags });
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
  }

  async delete(keys: readonly string[]): Promise<void> {
    this.deleteNow(keys);
  }

  deleteNow(keys: readonly string[]): void {
    for (const key of keys) this.#entries.delete(key);
  }

  async invalidate(tags: readonly string[]): Promise<void> {
    this.invalidateNow(tags);
  }

  invalidateNow(tags: readonly string[]): void {
    for (const [key, entry] of this.#entries) if (entry.tags.some((tag) => tags.includes(tag))) this.#entries.delete(key);
  }

  async sweep(): Promise<void> {
    const now = Date.now();
    for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(key);
  }

  /** How many entries it holds (tests). */
  get size(): number {
    return this.#entries.size;
  }
}
