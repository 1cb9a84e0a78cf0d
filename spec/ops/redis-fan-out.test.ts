import { join, resolve } from "node:path";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisFanOut } from "../../runtime/fanout/redis-fan-out.js";
import { fanOutSetting } from "../../runtime/ws/fan-out-setting.js";
import { BootError } from "../../runtime/routing/boot-error.js";
import { openDatabase, usersTableSql } from "../../runtime/db/index.js";
import { Browser, freshEmail, PASSWORD } from "../auth/client.js";
import { noPostgresNotice, postgresBin, startCluster, type PostgresCluster } from "../support/postgres.js";
import { bootNode, runNode } from "../support/process.js";
import { noRedisNotice, REDIS_SERVER, startRedis, type RedisServer } from "../support/redis.js";
import { PRODUCTION_ENV } from "../support/serve.js";
import { scratchCopy, tspc } from "../support/tspc.js";
import { connect, type Client } from "../support/ws-client.js";

// Issue 44 item 5: the fan-out past one database. A throwaway redis-server per file (Debian's,
// .ci/run installs it). Two RedisFanOut instances stand for two processes; then real processes.
if (REDIS_SERVER === undefined) noRedisNotice();

function endpoint(url: string) {
  const received: string[] = [];
  const log: string[] = [];
  const fanOut = new RedisFanOut({ url, log: (line) => log.push(line), reconnectMs: 50 });
  return { fanOut, received, log, start: () => fanOut.start((room, text) => received.push(`${room}:${text}`)) };
}

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 20));
  }
}

describe("issue 44 item 5: FW_FANOUT chooses the fan-out", () => {
  const log = (): void => undefined;
  it("unset: none chosen (fw/db on PostgreSQL installs LISTEN/NOTIFY); none: rooms stay in their process; redis:// and rediss://: Redis", () => {
    expect(fanOutSetting({}, log)).toBeUndefined();
    expect(fanOutSetting({ FW_FANOUT: " " }, log)).toBeUndefined();
    expect(fanOutSetting({ FW_FANOUT: "none" }, log)).toBeNull();
    for (const url of ["redis://127.0.0.1:6379", "rediss://cache.internal:6380/2"]) expect(typeof fanOutSetting({ FW_FANOUT: url }, log)?.publish).toBe("function");
  });

  it("anything else stops the boot, naming the variable and what to set, without the URL's password", () => {
    const attempt = (): unknown => fanOutSetting({ FW_FANOUT: "nats://user:hunter2@broker:4222" }, log);
    expect(attempt).toThrow(BootError);
    expect(attempt).toThrow(/FW_FANOUT=.*is not a fan-out fw knows: set redis:\/\/host:6379/);
    expect(attempt).not.toThrow(/hunter2/);
  });
});

describe.skipIf(REDIS_SERVER === undefined)("issue 44 item 5: RedisFanOut (PUBLISH/SUBSCRIBE)", () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis(REDIS_SERVER as string);
  });
  afterAll(async () => {
    await redis.destroy();
  });

  it("what one process publishes reaches the other, in order, identical messages included; never itself", async () => {
    const a = endpoint(redis.url);
    const b = endpoint(redis.url);
    await Promise.all([a.start(), b.start()]);
    try {
      const sent = Array.from({ length: 300 }, (_, i) => (i % 10 === 0 ? "same" : `message ${i} é ✓`));
      for (const text of sent) a.fanOut.publish("chat", text);
      b.fanOut.publish("other", "from b");
      await until(() => b.received.length === sent.length && a.received.length === 1, "the messages");
      expect(b.received).toEqual(sent.map((text) => `chat:${text}`));
      expect(a.received).toEqual(["other:from b"]);
    } finally {
      await Promise.all([a.fanOut.close(), b.fanOut.close()]);
    }
  });

  it("a payload far over NOTIFY's 8,000 bytes goes through (a megabyte)", async () => {
    const a = endpoint(redis.url);
    const b = endpoint(redis.url);
    await Promise.all([a.start(), b.start()]);
    try {
      const big = "x".repeat(1024 * 1024);
      a.fanOut.publish("big", big);
      await until(() => b.received.length === 1, "the big message");
      expect(b.received[0]).toBe(`big:${big}`);
      expect(a.log).toEqual([]);
    } finally {
      await Promise.all([a.fanOut.close(), b.fanOut.close()]);
    }
  });

  it("Redis restarted mid-stream: nothing throws, the subscription comes back by itself, broadcasts arrive again, the log says when it was lost and back", async () => {
    const a = endpoint(redis.url);
    const b = endpoint(redis.url);
    await Promise.all([a.start(), b.start()]);
    try {
      a.fanOut.publish("chat", "before");
      await until(() => b.received.includes("chat:before"), "the first message");
      await redis.stop();
      // Broadcasts while Redis is down: they reach this process only; nothing throws.
      for (let i = 0; i < 5; i++) a.fanOut.publish("chat", `while down ${i}`);
      await until(() => b.log.some((line) => line.includes("lost the Redis connection")), "the lost line");
      await redis.start();
      await until(() => b.log.some((line) => line.includes("through Redis again")), "the back line");
      // The subscription was made again by the client: a new broadcast arrives.
      await until(async () => {
        a.fanOut.publish("chat", "after");
        await new Promise((done) => setTimeout(done, 100));
        return b.received.includes("chat:after");
      }, "a message after the restart");
      expect(b.received.filter((m) => m.startsWith("chat:while down"))).toEqual([]);
      expect(a.log.filter((line) => line.includes("cannot reach the other processes through Redis"))).toHaveLength(1);
      expect(b.log.filter((line) => line.includes("lost the Redis connection"))).toHaveLength(1);
    } finally {
      await Promise.all([a.fanOut.close(), b.fanOut.close()]);
    }
  });
});

// Real processes: the scale fixture (a chat room, SqlUsers, sessions' sockets) twice on one
// PostgreSQL, FW_FANOUT=redis://… instead of LISTEN/NOTIFY; and fw/cache's tags (topics, as live
// pages hear them) between two cache apps.
const bin = postgresBin();
if (bin === undefined) noPostgresNotice();

describe.skipIf(REDIS_SERVER === undefined || bin === undefined)("issue 44 item 5: two processes whose rooms, topics and session endings travel through Redis", () => {
  let redis: RedisServer;
  let cluster: PostgresCluster | undefined;
  const apps: ReturnType<typeof bootNode>[] = [];
  let a = "";
  let b = "";
  let cacheA = "";
  let cacheB = "";
  // A copy of its own (spec/scale/processes.test.ts builds and migrates the fixture itself).
  let scale = "";

  beforeAll(async () => {
    scale = scratchCopy("scale");
    const scaleMain = join(scale, "dist/main.js");
    const [built] = await Promise.all([tspc(scale), startCluster(bin as string).then((c) => (cluster = c)), startRedis(REDIS_SERVER as string).then((r) => (redis = r))]);
    if (built.code !== 0) throw new Error(`building the scale fixture failed:\n${built.output}`);
    const env = { ...PRODUCTION_ENV, DATABASE_URL: (cluster as PostgresCluster).url, FW_FANOUT: redis.url };
    mkdirSync(join(scale, "db/migrations"), { recursive: true });
    writeFileSync(join(scale, "db/migrations/0001_users.sql"), usersTableSql());
    for (const command of [["db", "new", "init"], ["db", "migrate"]]) {
      const ran = await runNode(scaleMain, command, env, scale);
      if (ran.code !== 0) throw new Error(`${command.join(" ")} failed:\n${ran.out}\n${ran.err}`);
    }
    apps.push(bootNode(scaleMain, [], env, scale), bootNode(scaleMain, [], env, scale));
    const cacheApp = resolve("spec/ops/apps/cache-app.mjs");
    // On the same database, from the fixture's folder (its migrations are the ones applied there).
    apps.push(bootNode(cacheApp, [], env, scale), bootNode(cacheApp, [], env, scale));
    [a = "", b = "", cacheA = "", cacheB = ""] = await Promise.all(apps.map((app) => app.url));
  }, 180_000);

  afterAll(async () => {
    for (const app of apps) app.child.kill("SIGTERM");
    await Promise.all(apps.map((app) => app.exited));
    await cluster?.destroy();
    await redis?.destroy();
    if (scale !== "") rmSync(scale, { recursive: true, force: true });
  });

  it("a chat message sent to a socket on one process reaches sockets on both", async () => {
    const clients: Client[] = [];
    try {
      clients.push(await connect(a, "/chat/socket"), await connect(b, "/chat/socket"));
      const [onA, onB] = clients as [Client, Client];
      onA.socket.send("hello through redis");
      const pidA = (await new Browser(a).get("/pid")).html;
      expect(await onB.next()).toBe(`${pidA}: hello through redis`);
      expect(await onA.next()).toBe(`${pidA}: hello through redis`);
    } finally {
      for (const client of clients) client.socket.close();
    }
  });

  it("signed out through one process, the session's socket in the other closes", async () => {
    const first = new Browser(a);
    expect((await first.signUp(freshEmail("redis"), PASSWORD)).status).toBe(303);
    const socket = await connect(a, "/who/socket", { headers: { cookie: first.cookie as string } });
    try {
      const throughB = new Browser(b);
      throughB.cookie = first.cookie;
      await throughB.get("/posts/new");
      expect((await throughB.post("/logout", {})).status).toBe(303);
      expect(await socket.closed).toEqual({ code: 1008, reason: "signed out" });
    } finally {
      socket.socket.close();
    }
  });

  it("a topic published in one process (a write) reaches the other: its cache entry is dropped there", async () => {
    const read = async (base: string): Promise<string> => (await fetch(`${base}/cached`)).text();
    const before = await read(cacheA);
    expect(await read(cacheB)).toBe(before);
    expect((await fetch(`${cacheB}/api/write`, { method: "POST" })).status).toBe(200);
    let after = before;
    await until(async () => (after = await read(cacheA)) !== before, "the entry dropped in the other process");
    expect(after).not.toBe(before);
    // No LISTEN/NOTIFY: FW_FANOUT chose Redis, so fw/db opened no listening connection.
    const db = await openDatabase({ url: (cluster as PostgresCluster).url, log: () => undefined });
    try {
      const listening = await db.query<{ n: string | number }>(`SELECT count(*) AS n FROM pg_stat_activity WHERE query ILIKE 'LISTEN%'`);
      expect(Number(listening.rows[0]?.n)).toBe(0);
    } finally {
      await db.close();
    }
  });
});
