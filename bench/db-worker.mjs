// One measurement of the db part (bench/db.mjs) in a process of its own, pinned like the servers;
// prints one JSON line.
//   node bench/db-worker.mjs open <dir> [relaxed|durable]
//                                                  open the embedded engine on <dir> (empty: its first
//                                                  open, from fw's template), SELECT 1, close; times each;
//                                                  relaxed (default) as dev and tests open it, durable as production
//   node bench/db-worker.mjs store <url|dir> <ms>  SqlStore insert and read-by-key ops/s on PostgreSQL
//                                                  (a postgres:// URL) or PGlite (a directory)
import { createTableSql, openDatabase, SqlStore } from "../dist/runtime/db/index.js";

const [command, target, msText] = process.argv.slice(2);

/** The store's table: the bench app's Article, under a name of its own. */
const ITEMS = {
  name: "bench_items",
  key: { field: "id", column: "id" },
  columns: [
    { field: "title", column: "title", type: "text", nullable: false, maxLength: 120 },
    { field: "author", column: "author", type: "text", nullable: false, maxLength: 80 },
    { field: "body", column: "body", type: "text", nullable: false, maxLength: 10000 },
    { field: "rating", column: "rating", type: "double precision", nullable: false },
    { field: "published", column: "published", type: "boolean", nullable: false },
  ],
};
/** Operations in flight at once in the concurrent rows (PostgreSQL's pool has 10 connections). */
const CONCURRENCY = 10;

function open(where) {
  return where.startsWith("postgres://") ? openDatabase({ url: where, log: () => undefined }) : openDatabase({ directory: where, env: {} });
}

function draft(i) {
  return { title: `Item #${i}: "fair" & <square>`, author: "Ada Lovelace <ada@example.com>", body: `A body of some length, row ${i}. `.repeat(8), rating: (i % 5) + 0.5, published: i % 2 === 0 };
}

/** This process's CPU time per operation, µs, of the last `opsPerSecond` (PostgreSQL's server time is not in it; PGlite's is). */
let lastCpuUs = NaN;

/**
 * Runs `op(i)` for `ms` milliseconds with `concurrency` calls in flight (each worker starts the
 * next when its last resolves); resolves with operations per second.
 */
async function opsPerSecond(ms, concurrency, op) {
  let next = 0;
  let done = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const until = started + ms;
  const worker = async () => {
    while (performance.now() < until) {
      await op(next++);
      done++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = performance.now() - started;
  const used = process.cpuUsage(cpu);
  lastCpuUs = (used.user + used.system) / done;
  return (done * 1000) / elapsed;
}

async function store(where, ms) {
  const db = await open(where);
  try {
    await db.script(`DROP TABLE IF EXISTS "bench_items"; ${createTableSql(ITEMS)}`);
    const items = new SqlStore(db, ITEMS);
    const keys = [];
    const insert = async (i) => keys.push((await items.insert(draft(i))).id);
    let missing = 0;
    const read = async (i) => {
      // keys spread over the table, in an order that is not the insertion order
      const key = keys[(i * 7919) % keys.length];
      if ((await items.get(key)) === undefined) missing++;
    };
    // warm-up: the driver, the statements and the JIT
    await opsPerSecond(Math.min(500, ms), 1, insert);
    await opsPerSecond(Math.min(500, ms), 1, read);
    const result = { engine: db.engine, cpuUs: {}, concurrency: CONCURRENCY };
    for (const [kind, concurrency, op] of [["insertSequential", 1, insert], ["insertConcurrent", CONCURRENCY, insert], ["readSequential", 1, read], ["readConcurrent", CONCURRENCY, read]]) {
      result[kind] = await opsPerSecond(ms, concurrency, op);
      result.cpuUs[kind] = lastCpuUs;
    }
    result.rows = keys.length;
    if (missing > 0) throw new Error(`${missing} reads by key found no row`);
    await db.script(`DROP TABLE "bench_items"`);
    return result;
  } finally {
    await db.close();
  }
}

async function openTimes(dir, durability) {
  const t0 = performance.now();
  // relaxed: as `dev` and the tests open it (what a new user meets first); durable: production's.
  const db = await openDatabase({ directory: dir, env: {}, durable: durability === "durable" });
  const opened = performance.now();
  await db.query("SELECT 1");
  const queried = performance.now();
  await db.close();
  return { openMs: opened - t0, firstQueryMs: queried - opened, closeMs: performance.now() - queried };
}

const result = command === "open" ? await openTimes(target, msText ?? "relaxed") : command === "store" ? await store(target, Number(msText)) : undefined;
if (result === undefined) {
  console.error("usage: node bench/db-worker.mjs open <dir> [relaxed|durable] | store <postgres-url|dir> <ms>");
  process.exitCode = 2;
} else console.log(JSON.stringify(result));
