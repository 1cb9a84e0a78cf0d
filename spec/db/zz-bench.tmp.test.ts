import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { it } from "vitest";
import { createTableSql, openDatabase, SqlStore, type Database, type TableSpec } from "../../runtime/db/index.js";
import { postgresBin, startCluster } from "../support/postgres.js";

const SPEC: TableSpec = { name: "posts", key: { field: "id", column: "id" }, columns: [{ field: "title", column: "title", type: "text", nullable: false }, { field: "body", column: "body", type: "text", nullable: true }] };

async function measure(name: string, db: Database): Promise<void> {
  await db.script(createTableSql(SPEC));
  const store = new SqlStore<{ id: number; title: string; body?: string }>(db, SPEC);
  const N = 2000;
  let t = performance.now();
  for (let i = 0; i < N; i++) await store.insert({ title: `t${i}`, body: "x".repeat(200) });
  const ins = N / ((performance.now() - t) / 1000);
  t = performance.now();
  for (let i = 0; i < N; i++) await store.get(1 + (i % N));
  const get = N / ((performance.now() - t) / 1000);
  t = performance.now();
  for (let i = 0; i < 200; i++) await store.list({ offset: (i * 50) % N, limit: 50 });
  const list = 200 / ((performance.now() - t) / 1000);
  console.log(`${name}: insert ${ins | 0}/s, get ${get | 0}/s, list50 ${list | 0}/s, rss ${(process.memoryUsage().rss / 1e6) | 0} MB`);
}

it("bench", async () => {
  const dir = mkdtempSync(join(tmpdir(), "bench-pglite-"));
  let t = performance.now();
  let db = await openDatabase({ directory: dir, env: {} });
  console.log(`PGlite first open (initdb) ${(performance.now() - t) | 0} ms`);
  await db.close();
  const rss0 = process.memoryUsage().rss;
  t = performance.now();
  db = await openDatabase({ directory: dir, env: {} });
  console.log(`PGlite reopen ${(performance.now() - t) | 0} ms, rss ${(rss0 / 1e6) | 0} -> ${(process.memoryUsage().rss / 1e6) | 0} MB`);
  await measure("PGlite", db);
  await db.close();
  const bin = postgresBin();
  if (bin === undefined) return;
  const cluster = await startCluster(bin);
  t = performance.now();
  const pg = await openDatabase({ url: cluster.url });
  console.log(`PostgreSQL open (pool + SELECT 1) ${(performance.now() - t) | 0} ms`);
  await measure("PostgreSQL", pg);
  await pg.close();
  await cluster.destroy();
}, 600_000);
