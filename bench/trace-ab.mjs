#!/usr/bin/env node
// A/B of the ops part's tracing row (issue 44, bench/FINDINGS.md 28 and 33): the session page
// `GET /posts/7` of bench/servers/fw.mjs under wrk -c50 (server on core 0, wrk on core 1), sides
// that differ in one thing, interleaved rounds. Per side: the server's CPU time per request (from
// /proc), req/s, the share of the machine other processes used, and what V8's collector did
// (`--trace-gc-nvp`, summed per request: bytes allocated and promoted, scavenges and major
// collections per 1,000 requests, their pauses).
//
//   node bench/trace-ab.mjs off on                 untraced against the ops row's traced side
//   node bench/trace-ab.mjs off als on0 on --rounds=6 --seconds=3
//   node bench/trace-ab.mjs on on@before           a side on a snapshot (node bench/ab.mjs snapshot before)
//
// Sides: off (no tracing), on (OTLP to a receiver in this process, parentbased_traceidratio 0.1,
// as bench/ops.mjs), on0 (the same, ratio 0: the SDK loaded, nothing sampled), on100 (ratio 1),
// als (untraced, one AsyncLocalStorage.run() at boot: its hooks on for good), client (untraced,
// with node:http's client POSTing 64 KB to the receiver every 300 ms, as the exporter does), and
// any of them followed by `+KEY=VALUE,KEY=VALUE` (more environment; NODE_ARGS=… is node's own
// command line, for flags NODE_OPTIONS refuses: `on+NODE_ARGS=--trace-deopt --trace-opt`) or `@snapshot`.
//
// --ops runs the sides as bench/ops.mjs does (FINDINGS 41): no `--trace-gc-nvp` (no collector
// figures then), 1 s of `GET /` at start, 100 page requests one at a time, --idle seconds (60)
// with nothing to do (ops.mjs's servers wait through the groups measured before theirs), 1 s of
// page warm-up, rounds of 2 s. --warm=S and --idle=S set the two waits on their own.
import { spawn } from "node:child_process";
import { mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { buildBenchPages } from "./lib/bench-pages.mjs";
import { cpuSnapshot, freePort, otherShare, pinned, ROOT, sleep, summary, WORK } from "./lib/util.mjs";
import { wrk } from "./lib/wrk.mjs";
import { signIn, SNAPSHOTS } from "./lib/sides.mjs";
import { otlpSink } from "./ops.mjs";

const args = process.argv.slice(2);
const flag = (name, fallback) => Number(args.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
const opsLike = args.includes("--ops");
const rounds = flag("rounds", opsLike ? 4 : 6);
const seconds = flag("seconds", opsLike ? 2 : 3);
const pageWarmup = flag("warm", opsLike ? 1 : 2);
const idle = flag("idle", opsLike ? 60 : 0);
const gcTrace = !opsLike;
// --perf: every side runs with --perf-basic-prof, and `perf record -e cpu-clock` samples it during
// its rounds (all threads: V8's collector and compiler, the kernel's time on its behalf), into
// bench/.work/trace-ab/side-N.perf.data; read with `perf report -i … --sort dso,sym`.
const perfOn = args.includes("--perf") || args.includes("--perf-g");
const perfCalls = args.includes("--perf-g"); // with call chains (-g)
const names = args.filter((a) => !a.startsWith("--"));
if (names.length === 0) {
  console.error("usage: node bench/trace-ab.mjs <off|on|on0|on100|als>[+K=V,...][@snapshot]... [--rounds=6] [--seconds=3]");
  process.exit(2);
}

const DIR = join(WORK, "trace-ab");
mkdirSync(DIR, { recursive: true });
// The wrapper each side runs: AsyncLocalStorage's hooks turned on first when asked, then the server.
const WRAPPER = join(DIR, "wrapper.mjs");
writeFileSync(
  WRAPPER,
  `import { AsyncLocalStorage } from "node:async_hooks";\n` +
    `if (process.env.TRACE_AB_ALS === "1") new AsyncLocalStorage().run(1, () => undefined);\n` +
    // side `client`: untraced, but an HTTP client POSTs 64 KB to the receiver every 300 ms, as the
    // exporter's batches do at 10 % of ~14,000 req/s (node:http's client beside its server)
    `if (process.env.TRACE_AB_CLIENT) { const http = await import("node:http"); const agent = new http.Agent({ keepAlive: true }); const body = Buffer.alloc(64 * 1024, 1);\n` +
    `  setInterval(() => { const r = http.request(process.env.TRACE_AB_CLIENT, { method: "POST", agent, headers: { "content-type": "application/x-protobuf", "content-length": body.length } }, (res) => { res.resume(); }); r.on("error", () => {}); r.end(body); }, 300).unref(); }\n` +
    `await import(process.env.TRACE_AB_SCRIPT);\n`,
);

process.env.FW_SECRET ??= randomBytes(32).toString("base64url");
process.env.FW_ALLOWED_HOSTS ??= "127.0.0.1,localhost";
process.env.FW_ORIGIN ??= "http://localhost";
process.env.FW_MAILBOX ??= ".fw/bench-mail";

function sideOf(name, sink) {
  const [head, snapshot] = name.split("@");
  const [base, extra = ""] = head.split("+");
  const traced = (ratio) => ({ OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: ratio });
  const bases = { off: {}, als: { TRACE_AB_ALS: "1" }, client: { TRACE_AB_CLIENT: sink.url }, on: traced("0.1"), on0: traced("0"), on100: traced("1") };
  if (!(base in bases)) throw new Error(`unknown side ${base}`);
  const env = { ...bases[base] };
  for (const pair of extra.split(",").filter((p) => p !== "")) {
    const eq = pair.indexOf("=");
    env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  const root = snapshot === undefined ? ROOT : join(SNAPSHOTS, snapshot);
  return { name, env: { ...env, TRACE_AB_SCRIPT: join(root, "bench", "servers", "fw.mjs") } };
}

/** Starts a side pinned to core 0 with `--trace-gc-nvp`, its output into a file of its own. */
async function start(side, index) {
  const port = await freePort();
  const log = join(DIR, `side-${index}.log`);
  const fd = openSync(log, "w");
  const { command, args: argv } = pinned(0, process.execPath, [...(gcTrace ? ["--trace-gc-nvp"] : []), ...(perfOn ? ["--perf-basic-prof", `--logfile=${join(DIR, `v8-${index}.log`)}`, "--no-logfile-per-isolate"] : []), ...(side.env.NODE_ARGS ?? "").split(" ").filter(Boolean), WRAPPER]);
  const child = spawn(command, argv, { cwd: ROOT, env: { ...process.env, ...side.env, PORT: String(port) }, stdio: ["ignore", fd, fd] });
  for (let i = 0; i < 300 && !/listening|serving/.test(readFileSync(log, "utf8")); i++) await sleep(100);
  if (!/listening|serving/.test(readFileSync(log, "utf8"))) throw new Error(`${side.name} did not start:\n${readFileSync(log, "utf8")}`);
  return { ...side, child, log, url: `http://127.0.0.1:${port}`, rounds: [] };
}

/** What the collector did between two offsets of a side's log, per request. */
function gcOf(text, requests) {
  const lines = text.split("\n");
  const sums = { allocated: 0, promoted: 0, scavengePause: 0, majorPause: 0, scavenges: 0, majors: 0 };
  for (const line of lines) {
    const gc = / gc=(\w+) /.exec(line)?.[1];
    if (gc === undefined) continue;
    const pause = Number(/ pause=([\d.]+)/.exec(line)?.[1] ?? 0);
    if (gc === "s") {
      sums.scavenges++;
      sums.scavengePause += pause;
      sums.allocated += Number(/ allocated=(\d+)/.exec(line)?.[1] ?? 0);
      sums.promoted += Number(/ promoted=(\d+)/.exec(line)?.[1] ?? 0);
    } else {
      // mark-compact and the incremental marking's steps (mc, mmc, ms, ...): the old generation's work
      sums.majors += gc === "mc" || gc === "ms" ? 1 : 0;
      sums.majorPause += pause;
    }
  }
  const per = (v) => v / Math.max(1, requests);
  return { allocB: per(sums.allocated), promotedB: per(sums.promoted), scavPerK: per(sums.scavenges) * 1000, majorsPerK: per(sums.majors) * 1000, scavUs: per(sums.scavengePause) * 1000, majorUs: per(sums.majorPause) * 1000 };
}

const index = (side) => sides.indexOf(side);

/** `perf record` of a side's process for one round's length, appended round by round (`-o` per round, merged by the reader). */
function recordPerf(side, i, round) {
  const out = join(DIR, `side-${i}.r${round}.perf.data`);
  const child = spawn("perf", ["record", "-q", ...(perfCalls ? ["-g"] : []), "-e", "cpu-clock", "-F", "2000", "-p", String(side.child.pid), "-o", out, "--", "sleep", String(seconds)], { stdio: "ignore" });
  return new Promise((done) => child.on("exit", done));
}

const sink = await otlpSink();
buildBenchPages();
const sides = [];
try {
  for (const [i, name] of names.entries()) sides.push(await start(sideOf(name, sink), i));
  const cookie = await signIn(sides[0].url);
  const headers = [`Cookie: ${cookie}`];
  for (const side of sides) {
    const page = await fetch(`${side.url}/posts/7`, { headers: { cookie } });
    if (page.status !== 200 || !(await page.text()).includes("Signed in as ada")) throw new Error(`${side.name} should serve the session page`);
    await wrk({ url: `${side.url}/`, seconds: 1, core: 1 }); // finding 14: never idle cold
    // as ops.mjs's preflight of a traced side: 100 page requests one at a time
    if (opsLike) for (let i = 0; i < 100; i++) await fetch(`${side.url}/posts/7`, { headers: { cookie } }).then((r) => r.text());
  }
  if (idle > 0) await sleep(idle * 1000);
  for (const side of sides) await wrk({ url: `${side.url}/posts/7`, seconds: pageWarmup, core: 1, headers });
  for (let round = 0; round < rounds; round++) {
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
      const from = readFileSync(side.log, "utf8").length;
      const perf = perfOn ? recordPerf(side, index(side), round) : undefined;
      const result = await wrk({ url: `${side.url}/posts/7`, seconds, core: 1, headers, serverPid: side.child.pid });
      if (perf !== undefined) await perf;
      const text = readFileSync(side.log, "utf8").slice(from);
      // with NODE_ARGS=--trace-deopt --trace-opt: V8's deoptimizations and optimizations in the round
      const count = (re) => text.match(re)?.length ?? 0;
      if (/bailout \(kind|completed (optimizing|compiling)/.test(text)) writeFileSync(join(DIR, `side-${index(side)}.round-${round + 1}.log`), text);
      side.rounds.push({ ...result, ...gcOf(text, result.total), deopts: count(/bailout \(kind/g), opts: count(/completed (optimizing|compiling)/g) });
    }
    console.log(`round ${round + 1}/${rounds}: ${sides.map((s) => { const r = s.rounds[round]; return `${s.name} ${r.cpuUs.toFixed(1)} µs (others ${(r.other * 100).toFixed(0)} %${r.deopts + r.opts > 0 ? `, ${r.deopts} deopts, ${r.opts} opts` : ""})`; }).join(", ")}`);
  }
  const base = sides[0];
  const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  console.log(`\nGET /posts/7 -c50, ${rounds} rounds of ${seconds} s${opsLike || idle > 0 ? ` (idle ${idle} s, then ${pageWarmup} s of warm-up)` : ""}, load ${load}; ratios by CPU to ${base.name}, paired round by round (median, range)`);
  const med = (side, key) => summary(side.rounds.map((r) => r[key])).median;
  for (const s of sides) {
    const ratio = summary(s.rounds.map((r, i) => base.rounds[i].cpuUs / r.cpuUs));
    console.log(
      `${s.name.padEnd(24)} CPU ${med(s, "cpuUs").toFixed(1)} µs/req, ratio ${ratio.median.toFixed(3)} (${ratio.min.toFixed(3)}–${ratio.max.toFixed(3)}); ${Math.round(med(s, "rps"))} req/s; others ${(med(s, "other") * 100).toFixed(0)} %\n` +
        `${"".padEnd(24)} alloc ${Math.round(med(s, "allocB"))} B/req, promoted ${Math.round(med(s, "promotedB"))} B/req; scavenges ${med(s, "scavPerK").toFixed(1)}/1k req ${med(s, "scavUs").toFixed(2)} µs/req; majors ${med(s, "majorsPerK").toFixed(2)}/1k req, old-gen pauses ${med(s, "majorUs").toFixed(2)} µs/req`,
    );
  }
} finally {
  for (const side of sides) side.child.kill();
  await sink.stop();
}
