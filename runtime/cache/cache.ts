import { processDatabase } from "../db/process-database.js";
import { addGaugeSource } from "../observe/gauges.js";
import { processLogger } from "../log/process-logger.js";
import { publish, subscribe } from "../ws/topics.js";
import { broadcastNamed, registerRoom, type LocalRoom } from "../ws/fan-out.js";
import { MemoryCacheStore } from "./memory-store.js";
import { SqlCacheStore } from "./sql-store.js";
import type { CacheStore } from "./store.js";

/** How long an entry lives when its `set` or `wrap` names no `ttlMs`: one hour. */
export const DEFAULT_CACHE_TTL_MS = 60 * 60_000;
/** The longest an entry stays in a process's quick layer in front of a shared store: 30 s. */
export const LOCAL_TTL_MS = 30_000;
/** The room a cache's deleted keys travel on, to the quick layers of the app's other processes. */
const KEYS_ROOM = "fw.cache:keys";
/** The variable that turns every cache off (every read a miss, nothing kept): `FW_CACHE=off`. */
export const CACHE_ENV = "FW_CACHE";

export interface CacheOptions {
  /**
   * Where entries are kept. Default: the app's database (fw/db's, the one `DbApp` opens): an
   * UNLOGGED table `fw_cache` every process shares. `new MemoryCacheStore()` keeps them in this
   * process (tests, one-process apps).
   */
  readonly store?: CacheStore;
  /** An entry's life when its `set` names none. Default one hour. */
  readonly ttlMs?: number;
  /**
   * A quick layer in this process's memory in front of a shared store, holding what was read for
   * at most 30 s (or the entry's own life if shorter) and `maxEntries` entries (default 1,000):
   * a hit costs no statement. Tag invalidations and deletes reach every process's layer through
   * the app's fan-out. `false` reads the store every time. Default on for the database store.
   */
  readonly local?: false | { readonly maxEntries?: number };
}

export interface CacheEntryOptions {
  /** How long the entry lives. Default: the cache's `ttlMs` (one hour). */
  readonly ttlMs?: number;
  /**
   * What the entry depends on: a tag names a topic, and the entry is dropped when it is published.
   * A model's topic is its path name (`posts`), published by every write through its store in an
   * app with live pages (fw/live), in every process; `cache.invalidate("posts")` publishes it too.
   */
  readonly tags?: readonly string[];
}

/** Counted for metrics (`fw_cache_reads{outcome}`): hits and misses of every cache of the process. */
const reads = { hit: 0, miss: 0 };
let gauged = false;

/**
 * fw/cache: values the app computes once and reads many times, kept with a time to live and tags.
 * `wrap(key, { ttlMs, tags }, make)` answers the kept value, or runs `make` and keeps its answer.
 * Values are kept as JSON: what JSON cannot say (a Date, a Map, undefined in an array) comes back
 * as JSON says it. An entry that cannot be decoded (written by another version of the app, or
 * damaged) is a miss, logged once, and removed.
 */
export class Cache {
  readonly #options: CacheOptions;
  #store: CacheStore | undefined;
  #local: MemoryCacheStore | undefined;
  readonly #ttlMs: number;
  /** Tags this process hears: a publish drops their entries (`#dropTags`). */
  readonly #heard = new Set<string>();
  /** Bumped on each tag's publish: a value computed across one is not kept (it may be stale). */
  readonly #generations = new Map<string, number>();
  /**
   * The values of the quick layer's entries, decoded once (weak: gone with the entry): a hit on a
   * page's rows parsed their JSON again on every request, a tenth of the cached posts' Index.
   */
  readonly #decodedOf = new WeakMap<object, unknown>();
  /** Misses being computed now, by key: a second asker waits for the first (no stampede). */
  readonly #making = new Map<string, Promise<unknown>>();
  #lastSweep = 0;
  #listening = false;
  /**
   * Tag drops still on their way to the store: a read waits for them, so a page refreshed by the
   * same publish (a live page) never reads back the entry being dropped.
   */
  #dropping: Promise<void> | undefined;

  constructor(options: CacheOptions = {}) {
    this.#options = options;
    this.#ttlMs = options.ttlMs ?? DEFAULT_CACHE_TTL_MS;
    if (!gauged) {
      gauged = true;
      addGaugeSource({
        name: "fw_cache_reads",
        help: "fw/cache reads of this process since it started, by outcome (hit, miss).",
        labelNames: ["outcome"],
        aggregate: "sum",
        collect: () => [
          { labels: { outcome: "hit" }, value: reads.hit },
          { labels: { outcome: "miss" }, value: reads.miss },
        ],
      });
    }
  }

  /** The kept value of `key`, or undefined (missing, expired, undecodable, or caching off). */
  async get<T>(key: string): Promise<T | undefined> {
    if (off()) return undefined;
    checkKey(key);
    const local = this.#localLayer();
    const quick = local?.getNow(key);
    if (quick !== undefined) {
      // A quick entry is decoded once: its value is answered, frozen, as long as the entry lives.
      if (this.#decodedOf.has(quick)) {
        reads.hit++;
        return this.#decodedOf.get(quick) as T;
      }
      const value = this.#decode<T>(key, quick.text);
      if (value !== MISS) {
        this.#decodedOf.set(quick, value);
        reads.hit++;
        return value;
      }
    }
    if (this.#dropping !== undefined) await this.#dropping;
    const entry = await this.#storeOf().get(key);
    const value = entry === undefined ? MISS : this.#decode<T>(key, entry.text);
    if (value === MISS || entry === undefined) {
      reads.miss++;
      return undefined;
    }
    reads.hit++;
    if (local !== undefined) {
      // Kept here with its tags, heard from now on: a write elsewhere drops it here too.
      local.setNow(key, entry.text, Date.now() + LOCAL_TTL_MS, this.#listen(entry.tags));
    }
    return value;
  }

  /** Keeps `value` under `key` for `ttlMs`, dropped early when one of its `tags` is published. */
  async set<T>(key: string, value: T, options: CacheEntryOptions = {}): Promise<void> {
    if (off()) return;
    checkKey(key);
    const tags = this.#listen(options.tags ?? []);
    const ttlMs = options.ttlMs ?? this.#ttlMs;
    if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new TypeError(`fw/cache: ttlMs must be a positive number of milliseconds, not ${ttlMs} (key ${JSON.stringify(key)})`);
    const text = JSON.stringify({ v: 1, d: value });
    const expiresAt = Date.now() + ttlMs;
    await this.#storeOf().set(key, text, expiresAt, tags);
    this.#localLayer()?.setNow(key, text, Math.min(expiresAt, Date.now() + LOCAL_TTL_MS), tags);
    this.#sweepNowAndThen();
  }

  /**
   * The kept value of `key`; on a miss, `make()`'s, kept for next time. Concurrent misses of one
   * key in this process run `make` once. A value whose tags were published while it was made is
   * answered but not kept: it may have been read before the write.
   */
  async wrap<T>(key: string, options: CacheEntryOptions, make: () => Promise<T> | T): Promise<T> {
    if (off()) return make();
    const kept = await this.get<T>(key);
    if (kept !== undefined) return kept;
    const pending = this.#making.get(key);
    if (pending !== undefined) return pending as Promise<T>;
    const making = this.#make(key, options, make).finally(() => this.#making.delete(key));
    this.#making.set(key, making);
    return making;
  }

  async #make<T>(key: string, options: CacheEntryOptions, make: () => Promise<T> | T): Promise<T> {
    const tags = this.#listen(options.tags ?? []);
    const before = tags.map((tag) => this.#generations.get(tag) ?? 0);
    const value = await make();
    const stale = tags.some((tag, i) => (this.#generations.get(tag) ?? 0) !== before[i]);
    if (!stale && value !== undefined) await this.set(key, value, options);
    return value;
  }

  /** Drops `key`'s entry, here and in the other processes' quick layers. */
  async delete(key: string): Promise<void> {
    checkKey(key);
    this.#localLayer()?.deleteNow([key]);
    await this.#storeOf().delete([key]);
    broadcastNamed(KEYS_ROOM, JSON.stringify([key]), undefined);
  }

  /**
   * Drops every entry tagged with one of `tags`, in every process: it publishes each tag as a
   * topic, which live pages listening to it hear too (their data changed).
   */
  async invalidate(tags: string | readonly string[]): Promise<void> {
    const list = typeof tags === "string" ? [tags] : [...tags];
    this.#listen(list);
    for (const tag of list) publish(tag);
    await this.#storeOf().invalidate(list);
  }

  /** The store, chosen on first use (so a cache made at module load waits for the app's database). */
  #storeOf(): CacheStore {
    this.#store ??= this.#options.store ?? new SqlCacheStore(processDatabase);
    return this.#store;
  }

  #localLayer(): MemoryCacheStore | undefined {
    const local = this.#options.local;
    if (local === false) return undefined;
    if (this.#local !== undefined) return this.#local;
    const store = this.#storeOf();
    // A store in this process's memory needs no quick layer in front of it.
    if (store instanceof MemoryCacheStore && local === undefined) return undefined;
    this.#local = new MemoryCacheStore({ maxEntries: local?.maxEntries ?? 1_000 });
    this.#listenForKeys();
    return this.#local;
  }

  /** Hears `tags` from now on (each a topic), and answers them checked. */
  #listen(tags: readonly string[]): readonly string[] {
    for (const tag of tags) {
      if (typeof tag !== "string" || tag === "") throw new TypeError(`fw/cache: a tag must be a topic's name, not ${JSON.stringify(tag)}`);
      if (this.#heard.has(tag)) continue;
      this.#heard.add(tag);
      subscribe(tag, () => this.#dropTag(tag));
    }
    return tags;
  }

  /**
   * A tag was published (a write through a model's store, here or in another process, or
   * `invalidate`): its entries go from this process's quick layer and from the store. Every process
   * hears it and deletes from a shared store too: one indexed DELETE each, and none waits for another.
   */
  #dropTag(tag: string): void {
    this.#generations.set(tag, (this.#generations.get(tag) ?? 0) + 1);
    this.#local?.invalidateNow([tag]);
    const dropped = this.#storeOf()
      .invalidate([tag])
      .catch((error: unknown) => processLogger().write("warn", `fw/cache: could not drop the entries tagged ${JSON.stringify(tag)} (${error instanceof Error ? error.message : String(error)}); they expire with their time to live`));
    const all: Promise<void> = Promise.all([this.#dropping, dropped]).then(() => {
      if (this.#dropping === all) this.#dropping = undefined;
    });
    this.#dropping = all;
  }

  #listenForKeys(): void {
    if (this.#listening) return;
    this.#listening = true;
    const room: LocalRoom = {
      deliverHere: (text) => {
        try {
          const keys: unknown = JSON.parse(text);
          if (Array.isArray(keys)) this.#local?.deleteNow(keys.filter((key): key is string => typeof key === "string"));
        } catch {
          // not a message of ours
        }
      },
    };
    registerRoom(KEYS_ROOM, room);
  }

  /** A kept text as its value, frozen; `MISS` (logged, removed) when it is not one fw wrote. */
  #decode<T>(key: string, text: string): T | typeof MISS {
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === "object" && parsed !== null && (parsed as { v?: unknown }).v === 1 && "d" in parsed) return deepFrozen((parsed as { d: T }).d);
      throw new Error("not an entry fw/cache wrote");
    } catch (error) {
      processLogger().write("warn", `fw/cache: the entry ${JSON.stringify(key.slice(0, 200))} cannot be decoded (${error instanceof Error ? error.message : String(error)}): read as a miss, and removed`);
      this.#local?.deleteNow([key]);
      void this.#storeOf()
        .delete([key])
        .catch(() => undefined);
      return MISS;
    }
  }

  /** Expired entries go at most once a minute per process. */
  #sweepNowAndThen(): void {
    const now = Date.now();
    if (now - this.#lastSweep < 60_000) return;
    this.#lastSweep = now;
    void this.#storeOf()
      .sweep()
      .catch(() => undefined);
  }
}

const MISS: unique symbol = Symbol("fw.cache.miss");

function off(): boolean {
  return process.env[CACHE_ENV] === "off";
}

function checkKey(key: string): void {
  if (typeof key !== "string" || key === "" || key.length > 1000) throw new TypeError(`fw/cache: a key is 1 to 1,000 characters, not ${JSON.stringify(String(key).slice(0, 60))}`);
}

/**
 * `value` and everything in it frozen, and answered as is: what the cache answers may be the same
 * object to every asker in the process (its quick layer keeps it decoded), so none may change it
 * for the others; a change throws (ESM is strict) rather than showing up in someone else's page.
 */
function deepFrozen<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const member of Object.values(value as object)) deepFrozen(member);
  return value;
}
