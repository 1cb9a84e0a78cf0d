// The jobs part of `npm run bench` (issue 32): fw/jobs against pg-boss on the same throwaway
// PostgreSQL in the same run, and fw/jobs on PGlite.
//
//   node bench/run.mjs --only=jobs [--quick] [--no-build]
//
// Each measurement runs in a fresh process (bench/jobs-worker.mjs), the sides interleaved round
// by round (fw, pg-boss, …) so the machine's other load falls on both alike. Throughput: no-op
// jobs enqueued first, then jobs claimed and run per second with 10 in flight. Latency: enqueue
// → the handler's start, one job at a time. Without PostgreSQL the part runs the PGlite rows alone.
import { join } from "node:path";
import { postgresSupport } from "./lib/postgres.mjs";
import { BENCH, fmtInt, fmtNum, log, packageVersion, run, sorted, summary } from "./lib/util.mjs";

const WORKER = join(BENCH, "jobs-worker.mjs");

async function measure(side, what, options) {
  const ran = await run(process.execPath, [WORKER, side, what, JSON.stringify(options)], { timeoutMs: 180_000 });
  const line = ran.output.trim().split("\n").filter((l) => l.startsWith("{")).pop();
  if (ran.code !== 0 || line === undefined) throw new Error(`jobs: ${side} ${what} failed (${ran.code ?? ran.signal}):\n${ran.output}`);
  return JSON.parse(line);
}

function quantile(values, q) {
  const s = sorted(values);
  if (s.length === 0) return NaN;
  const at = (s.length - 1) * q;
  return s[Math.floor(at)] + (s[Math.ceil(at)] - s[Math.floor(at)]) * (at - Math.floor(at));
}

const SIDES = {
  "fw-pg": "fw/jobs on PostgreSQL",
  "pgboss-fetch": "pg-boss fetch + complete, 10 loops (no poll wait)",
  "pgboss-work": "pg-boss `work()`, 10 workers, 0.5 s poll",
  "fw-pglite": "fw/jobs on PGlite (durable, in the process)",
};

export async function jobs({ jobs: count, windowMs, rounds, samples, slowSamples }) {
  const support = await postgresSupport();
  const bin = support.postgresBin();
  const cluster = bin === undefined ? undefined : await support.startCluster(bin);
  if (cluster === undefined) log("jobs: PostgreSQL not found: the PostgreSQL and pg-boss rows are skipped; PGlite runs.");
  const url = cluster?.url;
  const sides = Object.keys(SIDES).filter((side) => url !== undefined || side === "fw-pglite");
  const results = { options: { jobs: count, windowMs, rounds, samples, slowSamples, concurrency: 10 }, pgboss: packageVersion(BENCH, "pg-boss"), postgres: url === undefined ? "not found" : "a throwaway cluster (fsync off)", throughput: {}, latency: {} };
  try {
    for (let round = 0; round < rounds; round++) {
      for (const side of sides) {
        const r = await measure(side, "throughput", { url, jobs: count, windowMs, concurrency: 10 });
        (results.throughput[side] ??= []).push(r);
        log(`jobs: round ${round + 1} ${side}: ${fmtInt(r.perSecond)} jobs/s run (${r.ran} of ${count}), ${fmtInt(r.enqueuePerSecond)} enqueued/s`);
      }
    }
    const latency = [
      // The polled ones wait up to a poll (1 s, 0.5 s) past a pause as long, so their arrivals fall anywhere in it.
      ["fw-pg", "same", samples, 50],
      ["fw-pg", "other", slowSamples, 1000],
      ["pgboss-work", "same", slowSamples, 1000],
      ["fw-pglite", "same", samples, 50],
    ].filter(([side]) => sides.includes(side));
    for (const [side, via, n, gapMs] of latency) {
      const r = await measure(side, "latency", { url, samples: n, via, gapMs, concurrency: 10 });
      results.latency[`${side}:${via}`] = { p50: quantile(r.ms, 0.5), p99: quantile(r.ms, 0.99), max: Math.max(...r.ms), n: r.ms.length };
      log(`jobs: latency ${side} (${via}): p50 ${fmtNum(quantile(r.ms, 0.5))} ms, p99 ${fmtNum(quantile(r.ms, 0.99))} ms`);
    }
  } finally {
    await cluster?.destroy();
  }
  const fw = results.throughput["fw-pg"];
  if (fw !== undefined) {
    // Paired round by round against the faster pg-boss way of that round.
    results.ratios = fw.map((x, i) => x.perSecond / Math.max(results.throughput["pgboss-fetch"][i].perSecond, results.throughput["pgboss-work"][i].perSecond));
  }
  return results;
}

export function jobsSection(r) {
  const { options } = r;
  const med = (rows, key) => summary(rows.map((x) => x[key])).median;
  const lines = [
    `${fmtInt(options.jobs)} no-op jobs enqueued (50 calls in flight), then claimed and run with ${options.concurrency} in flight until all ran ` +
      `or ${options.windowMs / 1000} s passed; ${options.rounds} rounds, the sides interleaved, each measurement in a fresh process. ` +
      `PostgreSQL: ${r.postgres}, pools of 10 connections on both sides; pg-boss ${r.pgboss}, the last major for Node 20 (its own schema, maintenance on, as it starts by default).`,
    "",
    "| side | jobs/s claimed and run (median, min–max) | enqueued/s (median) |",
    "|---|---:|---:|",
  ];
  for (const [side, label] of Object.entries(SIDES)) {
    const rows = r.throughput[side];
    if (rows === undefined) continue;
    const s = summary(rows.map((x) => x.perSecond));
    lines.push(`| ${label} | ${fmtInt(s.median)} (${fmtInt(s.min)}–${fmtInt(s.max)}) | ${fmtInt(med(rows, "enqueuePerSecond"))} |`);
  }
  if (r.ratios !== undefined) lines.push("", `fw/jobs on PostgreSQL ÷ the faster pg-boss way, per round: **${fmtNum(summary(r.ratios).median)}×** median (rounds: ${r.ratios.map((x) => fmtNum(x)).join(", ")}).`);
  lines.push(
    "",
    "Enqueue → handler start, one job at a time, each 20–70 ms after the last started (20–1,020 ms for the two polled rows, so that their arrivals fall anywhere in the poll; in the process that runs the worker; \"another queue\": enqueued through a second queue on its own connections, as another process would, so only the poll finds it):",
    "",
    "| side | p50 ms | p99 ms | max ms | jobs |",
    "|---|---:|---:|---:|---:|",
  );
  const names = { "fw-pg:same": "fw/jobs on PostgreSQL, enqueued in the worker's process (it wakes the worker)", "fw-pg:other": "fw/jobs on PostgreSQL, enqueued by another queue (1 s poll, the default)", "pgboss-work:same": "pg-boss `work()` (0.5 s poll, its shortest)", "fw-pglite:same": "fw/jobs on PGlite" };
  for (const [key, label] of Object.entries(names)) {
    const x = r.latency[key];
    if (x !== undefined) lines.push(`| ${label} | ${fmtNum(x.p50)} | ${fmtNum(x.p99)} | ${fmtNum(x.max)} | ${x.n} |`);
  }
  return lines.join("\n");
}
