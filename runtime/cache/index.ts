/**
 * fw/cache — values computed once and read many times, with a time to live and tags dropped when
 * a model's rows change. Names are re-exported one by one.
 */
export { Cache, CACHE_ENV, DEFAULT_CACHE_TTL_MS, LOCAL_TTL_MS, type CacheEntryOptions, type CacheOptions } from "./cache.js";
export type { CacheStore } from "./store.js";
export { MemoryCacheStore } from "./memory-store.js";
export { SqlCacheStore, CACHE_TABLE } from "./sql-store.js";
