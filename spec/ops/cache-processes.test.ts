import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { noPostgresNotice, postgresBin, startCluster, type PostgresCluster } from "../support/postgres.js";
import { bootNode } from "../support/process.js";
import { PRODUCTION_ENV } from "../support/serve.js";

// Issue 44 item 4, across processes: two app processes on one PostgreSQL share the cache's table,
// each with its quick layer; a tag published in one (a write) drops the entry in both.
const main = resolve("spec/ops/apps/cache-app.mjs");
const bin = postgresBin();
if (bin === undefined) noPostgresNotice();

describe.skipIf(bin === undefined)("issue 44 item 4: fw/cache across two processes on one PostgreSQL", () => {
  let cluster: PostgresCluster | undefined;
  const apps: ReturnType<typeof bootNode>[] = [];
  let a = "";
  let b = "";
  const read = async (base: string): Promise<string> => (await fetch(`${base}/cached`)).text();

  beforeAll(async () => {
    cluster = await startCluster(bin as string);
    const env = { ...PRODUCTION_ENV, DATABASE_URL: cluster.url };
    apps.push(bootNode(main, [], env), bootNode(main, [], env));
    [a = "", b = ""] = await Promise.all(apps.map((app) => app.url));
  }, 120_000);

  afterAll(async () => {
    for (const app of apps) app.child.kill("SIGTERM");
    await Promise.all(apps.map((app) => app.exited));
    await cluster?.destroy();
  });

  it("a value made in one process is read from the shared table by the other", async () => {
    const first = await read(a);
    expect(first).toMatch(/^made by \d+ \(#1\)$/);
    expect(await read(b)).toBe(first);
    expect(await read(a)).toBe(first);
  });

  it("a write in one process (its topic published) drops the entry in both, quick layers included", async () => {
    const before = await read(b); // in b's quick layer now
    expect((await fetch(`${b}/api/write`, { method: "POST" })).status).toBe(200);
    // NOTIFY travels to a: poll for the new value, which either process makes once.
    let after = before;
    for (let i = 0; i < 100 && after === before; i++) {
      await new Promise((done) => setTimeout(done, 50));
      after = await read(a);
    }
    expect(after).not.toBe(before);
    expect(await read(b)).toBe(after);
  });

  it("a key deleted in one process leaves the other's quick layer too", async () => {
    const kept = await read(a);
    expect(await read(b)).toBe(kept);
    expect((await fetch(`${a}/api/forget`, { method: "POST" })).status).toBe(200);
    let now = kept;
    for (let i = 0; i < 100 && now === kept; i++) {
      await new Promise((done) => setTimeout(done, 50));
      now = await read(b);
    }
    expect(now).not.toBe(kept);
  });
});
