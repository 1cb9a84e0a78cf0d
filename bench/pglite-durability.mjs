// What a durable embedded database costs per write (issue 28, docs/guides/database.md "Durability"):
// single-row INSERTs, one at a time, each its own commit, on PGlite opened durable (fsync on every
// commit: production's default) and relaxed (PGlite's own fsync-off start: dev's), in interleaved
// rounds on one directory, so the machine's background load falls on both alike.
//   node bench/pglite-durability.mjs [rows=500] [rounds=3]      (needs dist/: npm run build)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../dist/runtime/db/index.js";

const rows = Number(process.argv[2] ?? 500);
const rounds = Number(process.argv[3] ?? 3);
const dir = mkdtempSync(join(tmpdir(), "fw-bench-durable-"));

/** Milliseconds for `rows` single-row inserts on a database opened with `durable`. */
async function inserts(durable) {
  const db = await openDatabase({ directory: dir, env: {}, durable });
  try {
    await db.query("INSERT INTO items (text) VALUES ($1)", ["warm-up"]);
    const start = performance.now();
    for (let i = 0; i < rows; i++) await db.query("INSERT INTO items (text) VALUES ($1)", [`row ${i}`]);
    return performance.now() - start;
  } finally {
    await db.close();
  }
}

try {
  const setup = await openDatabase({ directory: dir, env: {}, durable: false });
  await setup.script("CREATE TABLE items (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, text text NOT NULL)");
  await setup.close();
  const times = { durable: [], relaxed: [] };
  for (let round = 0; round < rounds; round++) {
    times.durable.push(await inserts(true));
    times.relaxed.push(await inserts(false));
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const perRow = (ms) => (ms / rows).toFixed(2);
  const durable = median(times.durable);
  const relaxed = median(times.relaxed);
  console.log(`${rows} single-row inserts, median of ${rounds} interleaved rounds, ${dir}:`);
  console.log(`  durable (fsync per commit): ${durable.toFixed(0)} ms, ${perRow(durable)} ms per insert, ${Math.round((rows * 1000) / durable)} inserts/s`);
  console.log(`  relaxed (fsync off):        ${relaxed.toFixed(0)} ms, ${perRow(relaxed)} ms per insert, ${Math.round((rows * 1000) / relaxed)} inserts/s`);
  console.log(`  durable costs ${perRow(durable - relaxed)} ms more per write (${(durable / relaxed).toFixed(1)}x the time)`);
  console.log(`  rounds (ms): durable ${times.durable.map((t) => t.toFixed(0)).join(", ")}; relaxed ${times.relaxed.map((t) => t.toFixed(0)).join(", ")}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
