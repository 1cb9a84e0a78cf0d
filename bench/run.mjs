#!/usr/bin/env node
// `npm run bench` — installs what the bench needs (its own deps, wrk), builds fw, measures
// throughput, routing, build and memory side by side, and writes BENCHMARKS.md.
//
//   npm run bench                      full run (under 15 minutes on 2 cores, bench/README.md "Time budget"), writes BENCHMARKS.md
//   npm run bench -- --quick           smoke run (one short round each; ~8 minutes loaded), writes bench/.work/BENCHMARKS.quick.md
//   npm run bench -- --only=routing,memory   some parts only (throughput, routing, build, memory, dev, db, scale, live, json, jobs, files, ops;
//                                      --only=build alone also builds the 1,000-file app);
//                                      writes bench/.work/BENCHMARKS.routing+memory.md, never BENCHMARKS.md
//   npm run bench -- --no-build        use dist/ and example/dist/ as they are (the memory part still bundles
//                                      the example with `fw bundle`, from example/dist as it is)
//   npm run bench -- --out=FILE        write the report elsewhere
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { buildBenchPages } from "./lib/bench-pages.mjs";
import { buildDbApp } from "./lib/db-app.mjs";
import { buildJsonApp } from "./lib/json-app.mjs";
import { BENCH, busyShare, log, machine, packageVersion, ROOT, WORK } from "./lib/util.mjs";
import { ensureWrk } from "./lib/wrk.mjs";

const argv = process.argv.slice(2);
const quick = argv.includes("--quick");
const noBuild = argv.includes("--no-build");
const only = argv.find((a) => a.startsWith("--only="))?.slice("--only=".length).split(",");
// BENCHMARKS.md is the report of a full run: a quick or partial run writes beside its results
// under bench/.work, so checking one part never replaces the committed report with a partial one.
const defaultOut = quick ? join(WORK, "BENCHMARKS.quick.md") : only !== undefined ? join(WORK, `BENCHMARKS.${only.join("+")}.md`) : join(ROOT, "BENCHMARKS.md");
const out = argv.find((a) => a.startsWith("--out="))?.slice("--out=".length) ?? defaultOut;
const wanted = (part) => only === undefined || only.includes(part);

const OPTIONS = quick
  ? {
      throughput: { seconds: 1, rounds: 1, warmup: 1, connections: 50 },
      routing: { sizes: [10, 100, 1000], rounds: 2, roundMs: 60 },
      build: { plan: [{ size: 20, cold: 1, inc: 1, unchecked: true }] },
      memory: { rounds: 1, wsConnections: 200 },
      dev: { routes: 50, edits: 2, starts: 1 },
      db: { seconds: 1, rounds: 1, relationsRounds: 1, warmup: 1, connections: 50, storeMs: 300, storeRounds: 1, rssRounds: 1, coldRounds: 1 },
      scale: { seconds: 2, rounds: 1, connections: 50, messages: 100, warmup: 2 },
      live: { events: 200, warmup: 50, sockets: 200, fanOut: { sockets: 100, writes: 15, rounds: 1 } },
      json: { seconds: 1, rounds: 1, warmup: 1, connections: 50, writerMs: 100, writerRounds: 2 },
      jobs: { jobs: 1000, windowMs: 3000, rounds: 1, samples: 50, slowSamples: 5 },
      ops: { seconds: 1, rounds: 1, warmup: 1, connections: 50, fanOut: { sockets: 200, messages: 10 } },
      files: { serveSeconds: 1, serveRounds: 1, connections: 10, warmup: 1, uploadRounds: 1, uploadsPerRun: 2, concurrentRounds: 1, concurrentUploads: 4, thumbnailRuns: 2 },
    }
  : {
      // Sized so that the whole run fits in 15 minutes on 2 cores (bench/README.md, "Time budget"):
      // every throughput ratio still comes from 3 interleaved rounds, paired round by round.
      throughput: { seconds: 2, rounds: 3, warmup: 1, connections: 50 },
      routing: { sizes: [10, 100, 1000, 10_000], rounds: 3, roundMs: 150 },
      // The cold builds run with --incremental and are what the incremental rounds start from (a
      // separate untimed priming build per variant cost ~70 s). At 200 files fw also builds with its
      // path and topic checks off (issue 31: their cost ≤ 10 %). The 1,000-file app (~5 minutes on
      // its own) is built by `--only=build` alone: BUILD_LARGE.
      build: { plan: [{ size: 200, cold: 3, inc: 3, unchecked: true }] },
      memory: { rounds: 3, wsConnections: 1000 },
      dev: { routes: 200, edits: 5, starts: 2 },
      db: { seconds: 2, rounds: 3, relationsRounds: 5, warmup: 1, connections: 50, storeMs: 500, storeRounds: 3, rssRounds: 1, coldRounds: 2 },
      scale: { seconds: 3, rounds: 3, connections: 50, messages: 300, warmup: 15 },
      live: { events: 1000, warmup: 200, sockets: 1000, fanOut: { sockets: 100, writes: 15, rounds: 3 } },
      json: { seconds: 2, rounds: 3, warmup: 1, connections: 50, writerMs: 300, writerRounds: 5 },
      jobs: { jobs: 2000, windowMs: 4000, rounds: 3, samples: 100, slowSamples: 10 },
      // Its 3–5 % targets get two process pairs a group and 4 rounds each: 8 paired ratios, and an A/A row.
      ops: { seconds: 2, rounds: 4, warmup: 1, connections: 50, pairs: 2, fanOut: { sockets: 1000, messages: 30 } },
      // Uploads one at a time (the target) get 5 rounds: their sides are close.
      files: { serveSeconds: 2, serveRounds: 3, connections: 10, warmup: 1, uploadRounds: 5, uploadsPerRun: 3, concurrentRounds: 3, concurrentUploads: 4, thumbnailRuns: 5 },
    };
/** `--only=build` (not in the full run): the 200-file app as the full run builds it, then the 1,000-file app. */
const BUILD_LARGE = { plan: [{ size: 200, cold: 3, inc: 3, unchecked: true }, { size: 1000, cold: 2, inc: 2 }] };
if (!quick && only?.length === 1 && only[0] === "build") OPTIONS.build = BUILD_LARGE;
OPTIONS.throughput.wrkArgs = `-t1 -c${OPTIONS.throughput.connections} -d${OPTIONS.throughput.seconds}s`;
OPTIONS.build.coldNote =
  `Rounds: ${OPTIONS.build.plan.map((p) => `${p.cold} cold + ${p.inc} incremental at ${p.size} files`).join(", ")}, variants interleaved (fw, typia, tsc, fw, …; at ${OPTIONS.build.plan.filter((p) => p.unchecked).map((p) => p.size).join(", ")} files fw without its path checks too, after fw). ` +
  "A cold build starts with no output, no .tsbuildinfo and (fw) no generated table, and runs with --incremental, so it also writes its .tsbuildinfo (alike for the three variants); the incremental rounds start from the last cold build.";

function sh(command, args, what) {
  log(`${what}: ${command} ${args.join(" ")}`);
  const result = spawnSync(command, args, { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"], timeout: 600_000 });
  if (result.status !== 0) throw new Error(`${what} failed (${result.status ?? result.signal})`);
}

function ensureDeps() {
  const needed = ["find-my-way/package.json", "@hono/node-server", "pg-boss/package.json", "@fastify/multipart/package.json", "@fastify/static/package.json"];
  if (needed.every((p) => existsSync(join(BENCH, "node_modules", p)))) return;
  try {
    sh("npm", ["ci", "--prefix", "bench", "--no-audit", "--no-fund"], "bench dependencies");
  } catch {
    sh("npm", ["install", "--prefix", "bench", "--no-audit", "--no-fund"], "bench dependencies");
  }
}

async function main() {
  const started = performance.now();
  mkdirSync(WORK, { recursive: true });
  ensureDeps();
  if ((wanted("throughput") || wanted("db") || wanted("scale") || wanted("json") || wanted("files") || wanted("ops")) && !ensureWrk()) throw new Error("wrk is not installed and apt-get could not install it");
  if (!noBuild) sh("npm", ["run", "build"], "building fw and the example");
  buildBenchPages();
  if (wanted("db")) buildDbApp();
  if (wanted("json")) buildJsonApp();
  // The example's production bundle, made from example/dist as it is now (also with --no-build, so it never lags the build measured).
  if (wanted("memory")) sh("node", ["bin/fw.js", "bundle", "--project", "example"], "bundling the example (fw bundle)");
  for (const file of ["dist/runtime/index.js", "dist/transformer/index.js", "example/dist/main.js", "bench/.work/servers/fw-pages.js"]) {
    if (!existsSync(join(ROOT, file))) throw new Error(`${file} is missing: run npm run build`);
  }
  // What was measured: the commit (and whether runtime/ or transformer/ had uncommitted changes) as built now.
  const gitHead = spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8" }).stdout.trim();
  const dirty = spawnSync("git", ["status", "--porcelain", "--", "runtime", "transformer"], { cwd: ROOT, encoding: "utf8" }).stdout.trim() !== "";
  // One random secret per run; every server (fw and the peers) signs/verifies with it.
  process.env.FW_SECRET ??= randomBytes(32).toString("base64url");
  // Production boots refuse without the hosts they answer for (issue 32).
  process.env.FW_ALLOWED_HOSTS ??= "127.0.0.1,localhost";
  // The example sends mail (fw/mail): links on FW_ORIGIN, messages into a folder instead of SMTP.
  process.env.FW_ORIGIN ??= "http://localhost";
  process.env.FW_MAILBOX ??= ".fw/bench-mail";

  const idleBefore = await busyShare(2000);
  const load = () => spawnSync("cat", ["/proc/loadavg"], { encoding: "utf8" }).stdout.split(" ").slice(0, 3).join(" ");
  const loadBefore = load();
  log(`machine busy ${(idleBefore * 100).toFixed(0)} % before the run (load ${loadBefore})`);

  const results = { errors: [], options: OPTIONS, quick };
  const parts = [
    ["throughput", async () => (await import("./throughput.mjs")).throughput(OPTIONS.throughput)],
    ["routing", async () => (await import("./routing.mjs")).routing(OPTIONS.routing)],
    [
      "build",
      async () => {
        const { build } = await import("./build.mjs");
        const all = [];
        for (const step of OPTIONS.build.plan) {
          all.push(...(await build({ sizes: [step.size], coldRounds: step.cold, incRounds: step.inc, unchecked: step.unchecked === true })));
        }
        return all;
      },
    ],
    ["memory", async () => (await import("./memory.mjs")).memory(OPTIONS.memory)],
    [
      "dev",
      async () => {
        const reload = await (await import("./dev-reload.mjs")).devReload({ ...OPTIONS.dev, log: (line) => log(`dev: ${line}`) });
        // A second `npm start`: the build is this run's, so nothing is rebuilt; the first run (untimed) makes the example's database if it has none.
        const { firstPage } = await import("./first-page.mjs");
        await firstPage("start");
        const samples = [];
        for (let i = 0; i < OPTIONS.dev.starts; i++) samples.push((await firstPage("start")).ms);
        log(`dev: npm start → first page ${samples.map((ms) => `${Math.round(ms)} ms`).join(", ")}`);
        const sorted = [...samples].sort((a, b) => a - b);
        return { ...reload, start: { samples, median: sorted[Math.floor(sorted.length / 2)] } };
      },
    ],
    ["db", async () => (await import("./db.mjs")).db(OPTIONS.db)],
    ["scale", async () => (await import("./scale.mjs")).scale(OPTIONS.scale)],
    ["live", async () => (await import("./live.mjs")).live(OPTIONS.live)],
    ["json", async () => (await import("./json.mjs")).json(OPTIONS.json)],
    ["jobs", async () => (await import("./jobs.mjs")).jobs(OPTIONS.jobs)],
    ["ops", async () => (await import("./ops.mjs")).ops(OPTIONS.ops)],
    ["files", async () => (await import("./files.mjs")).files(OPTIONS.files)],
  ];
  const took = {};
  for (const [name, part] of parts) {
    if (!wanted(name)) continue;
    const t0 = performance.now();
    try {
      results[name] = await part();
    } catch (error) {
      log(`${name} failed: ${error.stack ?? error}`);
      results.errors.push(`${name}: ${String(error.message ?? error).split("\n")[0]}`);
    }
    took[name] = performance.now() - t0;
    log(`${name} took ${(took[name] / 1000).toFixed(0)} s`);
  }

  // A db page whose answers differ between fw and its peer (or fail a check) was not measured: the run fails, loudly.
  for (const [id, message] of Object.entries(results.db?.failed ?? {})) results.errors.push(`db: the ${id} page FAILED its preflight and was not measured: ${message.replace(/\s*\n\s*/g, " ")}`);
  const idleAfter = await busyShare(2000);
  const loadAfter = load();
  Object.assign(results, {
    command: `npm run bench${argv.length > 0 ? ` -- ${argv.join(" ")}` : ""}`,
    date: new Date().toISOString().replace("T", " ").slice(0, 16) + " UTC",
    durationMs: performance.now() - started,
    machine: machine(),
    built: !noBuild,
    git: `${gitHead}${dirty ? " (with uncommitted changes in runtime/ or transformer/)" : ""}`,
    versions: Object.fromEntries(
      ["fastify", "hono", "@hono/node-server", "find-my-way", "typescript", "ts-patch", "typia", "pg", "@electric-sql/pglite", "@fastify/multipart", "@fastify/static", "@fastify/busboy", "sharp"].map((n) => [n, packageVersion(BENCH, n)]),
    ),
    noise:
      `this machine is shared: CPU busy ${(idleBefore * 100).toFixed(0)} % in the 2 s before the run and ${(idleAfter * 100).toFixed(0)} % after it ` +
      `(with nothing of the bench running), load average ${loadBefore} before and ${loadAfter} after. Other developers build and test on it at the ` +
      `same time, so single runs can be off by tens of percent; the interleaved rounds, medians and per-round ratios are there for that.`,
    took,
  });
  const { report } = await import("./report.mjs");
  writeFileSync(out, report(results));
  // A partial run keeps its own file, so results.json always holds a full run's parts (the report is regenerated from it).
  const resultsName = `results${quick ? ".quick" : ""}${only === undefined ? "" : `.${only.join("+")}`}.json`;
  writeFileSync(join(WORK, resultsName), JSON.stringify(results, null, 1));
  log(`wrote ${relative(process.cwd(), out) || out} in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  if (results.errors.length > 0) process.exitCode = 1;
}

main().catch((error) => {
  log(`bench failed: ${error.stack ?? error}`);
  process.exitCode = 1;
});
