import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Cache, CACHE_TABLE, MemoryCacheStore, SqlCacheStore, type CacheStore } from "../../runtime/cache/index.js";
import { TextLogger } from "../../runtime/log/logger.js";
import { processLogger, setProcessLogger } from "../../runtime/log/process-logger.js";
import { publish } from "../../runtime/ws/topics.js";
import { onEveryEngine, type EngineHandle } from "../db/engines.js";

// Issue 44 item 4: fw/cache. One conformance suite for every store (memory, the database on
// PGlite and on PostgreSQL), then the cache's own rules on them.

const wait = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Lines the process's logger writes while `work` runs. */
async function logged(work: () => Promise<void>): Promise<string[]> {
  const lines: string[] = [];
  const before = processLogger();
  setProcessLogger(new TextLogger({ sink: { out: (line) => lines.push(line), err: (line) => lines.push(line) }, level: "info", stacks: false }));
  try {
    await work();
  } finally {
    setProcessLogger(before);
  }
  return lines;
}

function storeConformance(name: string, make: () => CacheStore, reset: () => Promise<void>): void {
  describe(`a cache store: ${name}`, () => {
    beforeEach(reset);

    it("keeps text until it expires; a key set again is replaced", async () => {
      const store = make();
      await store.set("a", "one", Date.now() + 60_000, []);
      await store.set("b", "short", Date.now() + 150, []);
      expect(await store.get("a")).toEqual({ text: "one", tags: [] });
      expect((await store.get("b"))?.text).toBe("short");
      await store.set("a", "two", Date.now() + 60_000, ["t1", "t2"]);
      expect(await store.get("a")).toEqual({ text: "two", tags: ["t1", "t2"] });
      await wait(250);
      expect(await store.get("b")).toBeUndefined();
      await store.sweep();
      expect((await store.get("a"))?.text).toBe("two");
      expect(await store.get("missing")).toBeUndefined();
    });

    it("drops every entry carrying a tag, and entries by key", async () => {
      const store = make();
      const later = Date.now() + 60_000;
      await store.set("p1", "x", later, ["posts"]);
      await store.set("p2", "x", later, ["posts", "users"]);
      await store.set("u1", "x", later, ["users"]);
      await store.set("n1", "x", later, []);
      await store.invalidate(["posts"]);
      expect([await store.get("p1"), await store.get("p2"), (await store.get("u1"))?.text, (await store.get("n1"))?.text]).toEqual([undefined, undefined, "x", "x"]);
      await store.delete(["u1", "n1"]);
      expect([await store.get("u1"), await store.get("n1")]).toEqual([undefined, undefined]);
    });
  });
}

storeConformance("memory", () => new MemoryCacheStore(), async () => undefined);

onEveryEngine((engine: EngineHandle) => {
  const store = (): SqlCacheStore => new SqlCacheStore(() => engine.db());
  storeConformance(`the database (${engine.name})`, store, async () => {
    await store().sweep(); // makes the table when it is missing
    await engine.db().query(`DELETE FROM ${CACHE_TABLE}`);
  });

  describe(`fw/cache on ${engine.name}`, () => {
    it("the table is UNLOGGED (no WAL: a write costs what a read does, a crash empties it)", async () => {
      await store().sweep();
      const kind = await engine.db().query<{ relpersistence: string }>(`SELECT relpersistence FROM pg_class WHERE relname = $1`, [CACHE_TABLE]);
      expect(kind.rows[0]?.relpersistence).toBe("u");
    });

    it("an entry that cannot be decoded is a miss, logged and removed; wrap computes it again", async () => {
      const cache = new Cache({ store: store(), local: false });
      await engine.db().query(`INSERT INTO ${CACHE_TABLE} (key, value, tags, expires_at) VALUES ($1, $2, '{}', now() + interval '1 hour') ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`, ["broken", '{"v":1,"d":{"cut in the mid']);
      let lines: string[] = [];
      let value: unknown;
      lines = await logged(async () => {
        value = await cache.wrap("broken", {}, () => ({ fresh: true }));
      });
      expect(value).toEqual({ fresh: true });
      expect(lines).toEqual([expect.stringMatching(/^fw\/cache: the entry "broken" cannot be decoded \(.+\): read as a miss, and removed$/)]);
      expect(await cache.get("broken")).toEqual({ fresh: true });
    });
  });
});

describe("fw/cache: wrap, time to live, tags", () => {
  let cache: Cache;
  beforeEach(() => {
    cache = new Cache({ store: new MemoryCacheStore() });
  });
  afterEach(() => {
    delete process.env["FW_CACHE"];
  });

  it("wrap runs make once, then answers the kept value (a JSON copy) until it expires", async () => {
    let made = 0;
    const make = () => ({ n: ++made, when: "now" });
    expect(await cache.wrap("k", { ttlMs: 200 }, make)).toEqual({ n: 1, when: "now" });
    expect(await cache.wrap("k", { ttlMs: 200 }, make)).toEqual({ n: 1, when: "now" });
    await wait(300);
    expect(await cache.wrap("k", { ttlMs: 200 }, make)).toEqual({ n: 2, when: "now" });
  });

  it("a kept value is answered frozen: changing it throws, and the next asker reads it unchanged", async () => {
    const make = () => ({ rows: [{ id: 1, tags: ["a"] }], total: 1 });
    await cache.wrap("frozen", {}, make);
    const first = await cache.wrap("frozen", {}, make);
    expect(Object.isFrozen(first) && Object.isFrozen(first.rows) && Object.isFrozen(first.rows[0]) && Object.isFrozen(first.rows[0]?.tags)).toBe(true);
    expect(() => first.rows[0]?.tags.push("b")).toThrow(TypeError);
    expect(() => {
      (first as { total: number }).total = 2;
    }).toThrow(TypeError);
    expect(await cache.get("frozen")).toEqual({ rows: [{ id: 1, tags: ["a"] }], total: 1 });
  });

  it("with a quick layer in front of the store, a kept value is decoded once: every hit answers the same frozen object until the entry is set again", async () => {
    const layered = new Cache({ store: new MemoryCacheStore(), local: {} });
    await layered.set("page", { rows: [1, 2] });
    const first = await layered.get<{ rows: number[] }>("page");
    expect(await layered.get("page")).toBe(first);
    expect(Object.isFrozen(first?.rows)).toBe(true);
    await layered.set("page", { rows: [3] });
    const next = await layered.get<{ rows: number[] }>("page");
    expect(next).not.toBe(first);
    expect(next).toEqual({ rows: [3] });
  });

  it("concurrent misses of one key run make once", async () => {
    let made = 0;
    const make = async () => {
      made++;
      await wait(50);
      return "value";
    };
    expect(await Promise.all([1, 2, 3, 4].map(() => cache.wrap("same", {}, make)))).toEqual(["value", "value", "value", "value"]);
    expect(made).toBe(1);
  });

  it("a tag's topic published (a model's write, in this process or through the fan-out) drops its entries", async () => {
    await cache.set("index", ["a post"], { tags: ["posts-tag-1"] });
    await cache.set("other", "kept", { tags: ["notes-tag-1"] });
    publish("posts-tag-1");
    await wait(10);
    expect(await cache.get("index")).toBeUndefined();
    expect(await cache.get("other")).toBe("kept");
    await cache.invalidate("notes-tag-1");
    expect(await cache.get("other")).toBeUndefined();
  });

  it("a value whose tag was published while it was being made is answered but not kept (it may be stale)", async () => {
    let made = 0;
    const value = await cache.wrap("racy", { tags: ["racy-tag"] }, async () => {
      made++;
      await cache.set("warm", 1, { tags: ["racy-tag"] }); // the tag is heard from here on
      publish("racy-tag"); // a write lands while the page is read
      return "read before the write";
    });
    expect(value).toBe("read before the write");
    expect(await cache.get("racy")).toBeUndefined();
    await cache.wrap("racy", { tags: ["racy-tag"] }, () => `made ${++made}`);
    expect(await cache.get("racy")).toBe("made 2");
  });

  it("FW_CACHE=off: every read a miss, nothing kept", async () => {
    process.env["FW_CACHE"] = "off";
    let made = 0;
    await cache.wrap("k", {}, () => ++made);
    await cache.wrap("k", {}, () => ++made);
    expect(made).toBe(2);
  });

  it("bad keys, tags and lives are refused, named", async () => {
    await expect(cache.set("", 1)).rejects.toThrow(/a key is 1 to 1,000 characters/);
    await expect(cache.set("k", 1, { ttlMs: 0 })).rejects.toThrow(/ttlMs must be a positive number of milliseconds, not 0/);
    await expect(cache.set("k", 1, { tags: [""] })).rejects.toThrow(/a tag must be a topic's name/);
  });
});
