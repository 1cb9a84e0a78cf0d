/**
 * Where a cache keeps its entries: text (the encoded value), when it expires, its tags. The cache
 * encodes and decodes; a store only keeps. fw has two: the app's database (`SqlCacheStore`, an
 * UNLOGGED table, the default under `DbApp`) and the process's memory (`MemoryCacheStore`).
 */
export interface CacheStore {
  /** The entry's text and tags, unless it is missing or expired. */
  get(key: string): Promise<{ readonly text: string; readonly tags: readonly string[] } | undefined>;
  /** Stores (or replaces) the entry. `expiresAt`: milliseconds since the epoch. */
  set(key: string, text: string, expiresAt: number, tags: readonly string[]): Promise<void>;
  /** Removes these entries. */
  delete(keys: readonly string[]): Promise<void>;
  /** Removes every entry carrying any of these tags. */
  invalidate(tags: readonly string[]): Promise<void>;
  /** Removes what has expired (now and then: a store that forgets by itself may do nothing). */
  sweep(): Promise<void>;
}
