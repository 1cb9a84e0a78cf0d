#!/usr/bin/env node
// Profiles one throughput scenario: the server runs under `node --cpu-prof` (pinned to core 0),
// wrk loads it (core 1) after a warm-up, and the profile is summarised as microseconds of CPU
// per request, by function and by file. Also says how busy the server and wrk were, so a
// saturated load generator shows.
//
//   node bench/profile.mjs page-fw            (see SCENARIOS below)
//   node bench/profile.mjs text-fw-api --seconds=8 --top=40
//   node bench/profile.mjs page-fw --script=bench/.work/exp/fw-patched.mjs
//   node bench/profile.mjs upload-fw          the files part's 100 MiB uploads (bench/files-client.mjs, not wrk): per upload
//   node bench/profile.mjs db-drafts-fw       the policy rows' page (bench/db-policy.mjs): its app on a throwaway PostgreSQL, signed in
import { readFileSync, readdirSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { buildBenchPages } from "./lib/bench-pages.mjs";
import { freePort, pinned, ROOT, sleep, startServer, WORK } from "./lib/util.mjs";
import { buildDbApp, DB_APP_MAIN, POLICY_APP_MAIN } from "./lib/db-app.mjs";
import { postgresSupport } from "./lib/postgres.mjs";
import { prepareApp } from "./db.mjs";
import { filesServer, prepareFiles, sweepStores, UPLOAD_FILE } from "./files.mjs";
import { signIn } from "./lib/sides.mjs";
import { policySignIn } from "./db-policy.mjs";
import { otlpSink } from "./ops.mjs";
import { cookiesScript } from "./lib/wrk.mjs";
import { spawn } from "node:child_process";

const args = process.argv.slice(2);
const name = args.find((a) => !a.startsWith("--"));
const opt = (key, dflt) => Number(args.find((a) => a.startsWith(`--${key}=`))?.split("=")[1] ?? dflt);
const seconds = opt("seconds", 6);
const top = opt("top", 30);

const SCENARIOS = {
  "text-raw": { script: "raw.mjs", path: "/" },
  // raw receiving the session cookie text-fw-browser sends (it ignores it): the same bytes in
  "text-raw-cookie": { script: "raw.mjs", path: "/", cookie: true },
  "text-fw-api": { script: "fw.mjs", env: { FW_TEXT_ROUTE: "api" }, path: "/" },
  "text-fw-browser": { script: "fw.mjs", env: { FW_TEXT_ROUTE: "browser" }, path: "/", cookie: true },
  "text-fw-fresh": { script: "fw.mjs", env: { FW_TEXT_ROUTE: "browser" }, path: "/" },
  "page-raw": { script: "raw.mjs", path: "/posts/7", cookie: true },
  "page-fw": { script: "fw.mjs", path: "/posts/7", cookie: true },
  // 2,048 sessions in turn: more than fw's 1,024 remembered cookies, as in the bench's rows
  "page-raw-many": { script: "raw.mjs", path: "/posts/7", cookie: true, many: 2048 },
  "page-fw-many": { script: "fw.mjs", path: "/posts/7", cookie: true, many: 2048 },
  "404-fw": { script: "fw.mjs", path: "/nothing/here", cookie: true },
  // the ops part's sides (bench/ops.mjs, issue 44): the session page with its access log as text or JSON,
  // with Prometheus metrics on, traced at a 10 % sampler (OTLP to a receiver in this process)
  "page-fw-log-text": { script: "fw.mjs", path: "/posts/7", cookie: true, env: { FW_BENCH_ACCESS_LOG: "1", FW_LOG_FORMAT: "text" } },
  "page-fw-log-json": { script: "fw.mjs", path: "/posts/7", cookie: true, env: { FW_BENCH_ACCESS_LOG: "1", FW_LOG_FORMAT: "json" } },
  "page-fw-metrics": { script: "fw.mjs", path: "/posts/7", cookie: true, env: { FW_METRICS_TOKEN: "bench-metrics-token-0123456789" } },
  "page-fw-traced": { script: "fw.mjs", path: "/posts/7", cookie: true, otlp: true, env: { OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.1" } },
  // the db part's pages (bench/db.mjs): a throwaway PostgreSQL cluster, the bench app migrated and seeded
  "db-show-fw": { db: "fw", path: "/articles/7", cookie: true },
  "db-show-fastify": { db: "fastify", path: "/articles/7", cookie: true },
  "db-index-fw": { db: "fw", path: "/articles", cookie: true },
  "db-index-fastify": { db: "fastify", path: "/articles", cookie: true },
  "db-show-fw-pglite": { db: "pglite", path: "/articles/7", cookie: true },
  "db-index-fw-pglite": { db: "pglite", path: "/articles", cookie: true },
  // the relations' pages: a post's Show (its author's label, its 20 comments), the posts' Index (50 author labels)
  "db-post-fw": { db: "fw", path: "/posts/7", cookie: true },
  "db-post-fastify": { db: "fastify", path: "/posts/7", cookie: true },
  "db-posts-fw": { db: "fw", path: "/posts", cookie: true },
  "db-posts-fastify": { db: "fastify", path: "/posts", cookie: true },
  // the policy rows (bench/db-policy.mjs, issue 41): the policy app's Index under `owned` and under its policy, ada signed in
  "db-memos-fw": { db: "policy", path: "/memos", cookie: true },
  "db-drafts-fw": { db: "policy", path: "/drafts", cookie: true },
  // the files part's sides (bench/files.mjs): 100 MiB uploads one after another, and the stored 5 MiB file served
  "upload-fw": { files: "fw", upload: true, path: "/upload" },
  "upload-fastify": { files: "fastify", upload: true, path: "/upload" },
  "upload-fastify-sha256": { files: "fastifySha", upload: true, path: "/upload" },
  "file-fw": { files: "fw", path: "/file", connections: 10 },
  "file-fastify": { files: "fastify", path: "/file", connections: 10 },
};

const scenario = SCENARIOS[name];
if (scenario === undefined) {
  console.error(`usage: node bench/profile.mjs <${Object.keys(SCENARIOS).join("|")}> [--seconds=6] [--top=30]`);
  process.exit(2);
}

/** utime + stime of a process, in seconds. */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function runWrk(url, secs, headers) {
  if (scenario.upload) return runUploads(url, secs);
  const script = manyScript === undefined ? [] : ["-s", manyScript];
  const argv = ["-t1", `-c${scenario.connections ?? 50}`, `-d${secs}s`, ...script, ...headers.flatMap((h) => ["-H", h]), url];
  const { command, args: a } = pinned(1, "wrk", argv);
  const child = spawn(command, a, { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (c) => (out += c));
  return { child, done: new Promise((ok) => child.on("close", () => ok(out))) };
}

/** Uploads of the files part's 100 MiB file for `secs` seconds, one at a time; its output read as wrk's is (uploads as requests). */
function runUploads(url, secs) {
  const { command, args: a } = pinned(1, process.execPath, [join("bench", "files-client.mjs"), url, `--file=${UPLOAD_FILE}`, `--seconds=${secs}`]);
  const child = spawn(command, a, { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (c) => (out += c));
  return {
    child,
    done: new Promise((ok) =>
      child.on("close", () => {
        const { uploads, ms } = JSON.parse(out.trim().split("\n").pop());
        ok(`${uploads} requests in ${ms} ms\nRequests/sec: ${(uploads / (ms / 1000)).toFixed(2)}`);
      }),
    ),
  };
}

/** The db part's app (or its Fastify peer) and the database it reads, migrated and seeded by the app's own commands. */
async function dbScenario(side) {
  buildDbApp();
  if (side === "pglite") {
    const env = { DATABASE_URL: "" };
    return { script: DB_APP_MAIN, env, cwd: await prepareApp("profile-pglite", env) };
  }
  const support = await postgresSupport();
  const bin = support.postgresBin();
  if (bin === undefined) throw new Error("PostgreSQL not found (no /usr/lib/postgresql/*/bin/initdb, PG_BIN unset): only db-show-fw-pglite and db-index-fw-pglite run here");
  const cluster = await support.startCluster(bin);
  const env = { DATABASE_URL: cluster.url };
  if (side === "policy") return { cluster, env, cwd: await prepareApp("profile-policy", env, POLICY_APP_MAIN), script: POLICY_APP_MAIN };
  const cwd = await prepareApp("profile-postgres", env);
  return { cluster, env, cwd, script: side === "fw" ? DB_APP_MAIN : join(ROOT, "bench", "servers", "db-fastify.mjs") };
}

process.env.FW_SECRET ??= randomBytes(32).toString("base64url");

// Production boots refuse without the hosts they answer for (issue 32).

process.env.FW_ALLOWED_HOSTS ??= "127.0.0.1,localhost";
// The example sends mail (fw/mail): links on FW_ORIGIN, messages into a folder instead of SMTP.
process.env.FW_ORIGIN ??= "http://localhost";
process.env.FW_MAILBOX ??= ".fw/bench-mail";
buildBenchPages();
const dir = join(WORK, "prof", name);
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const port = await freePort();
// A traced scenario: a receiver for its OTLP exports, in this process.
const sink = scenario.otlp ? await otlpSink() : undefined;
if (sink !== undefined) scenario.env = { ...scenario.env, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url };
// A db scenario: its database made first (PostgreSQL, or PGlite under the app's working directory).
const database = scenario.db === undefined ? undefined : await dbScenario(scenario.db);
// A files scenario: the part's files made (or kept) under bench/.work/files, its server and environment.
if (scenario.files !== undefined) {
  prepareFiles();
  Object.assign(scenario, filesServer(scenario.files));
}
const server = await startServer({
  name,
  // --script=FILE runs another server (an experimental copy of fw, say) on the same scenario
  script: args.find((a) => a.startsWith("--script="))?.slice("--script=".length) ?? database?.script ?? (scenario.files === undefined ? join("bench", "servers", scenario.script) : scenario.script),
  env: { ...scenario.env, ...database?.env, PORT: String(port) },
  core: 0,
  nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${dir}`],
  ...(database === undefined ? {} : { cwd: database.cwd, timeoutMs: 120_000 }),
});
const url = `http://127.0.0.1:${port}${scenario.path}`;
let headers = [];
let manyScript;
if (scenario.cookie) {
  // a session signed by fw: from a fw server if this is one, else from a helper fw server
  const helper = scenario.script === "fw.mjs" || (scenario.db !== undefined && scenario.db !== "fastify") ? undefined : await startServer({ name: "helper", script: "bench/servers/fw.mjs", env: { PORT: String(await freePort()) }, core: 1 });
  const base = helper === undefined ? `http://127.0.0.1:${port}` : /on (http:\/\/[^\s"]+)/.exec(helper.output())[1];
  // the policy app signs in through fw/auth's form (its pages need a user), the others' sessions are fw's bench cookie
  headers = [`Cookie: ${scenario.db === "policy" ? await policySignIn(base) : await signIn(base)}`];
  if (scenario.many !== undefined) {
    const cookies = [];
    for (let i = 0; i < scenario.many; i++) cookies.push(await signIn(base));
    headers = [];
    manyScript = cookiesScript(cookies, scenario.path, join(dir, "many-sessions.lua"));
  }
  await helper?.stop();
}
// Uploads one after another would fill the page cache with what they stored, and the kernel's writeback
// would then pace them: what they stored is removed as they go, as the bench removes it after each run.
const sweeper = scenario.upload ? setInterval(sweepStores, 500) : undefined;
await runWrk(url, 3, headers).done; // warm-up
const cpu0 = cpuSeconds(server.pid);
const t0 = performance.now();
const load = runWrk(url, seconds, headers);
await sleep(200);
const wrkCpu0 = cpuSeconds(load.child.pid);
const wrkT0 = performance.now();
await sleep((seconds - 1) * 1000);
const wrkCpu = (cpuSeconds(load.child.pid) - wrkCpu0) / ((performance.now() - wrkT0) / 1000);
const out = await load.done;
const wall = (performance.now() - t0) / 1000;
const serverCpu = cpuSeconds(server.pid) - cpu0;
// A long grace: the profile is written on exit, which takes seconds on a busy machine (SIGKILL would lose it).
await server.stop(60_000);
await database?.cluster?.destroy();
await sink?.stop();
clearInterval(sweeper);
if (scenario.files !== undefined) prepareFiles(); // what the uploads stored goes: an empty folder again
for (let i = 0; i < 50 && !readdirSync(dir).some((f) => f.endsWith(".cpuprofile")); i++) await sleep(100);
const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
console.log(`${name}: ${/Requests\/sec:\s+\S+/.exec(out)?.[0]}, server CPU ${(serverCpu / wall * 100).toFixed(0)} % of a core, ` +
  `${((serverCpu / requests) * 1e6).toFixed(1)} µs CPU per request; wrk at ${(wrkCpu * 100).toFixed(0)} % of its core`);

// ---------- the profile, as µs per request ----------
const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
const p = JSON.parse(readFileSync(join(dir, file), "utf8"));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
// Samples from 1.5 s after the start (boot is over, warm-up load running) to 1 s before the end
// (shutdown): steady-state load. Shares of that busy time are turned into µs per request with
// the server's CPU time per request measured from /proc over the timed run.
let at = p.startTime;
const times = p.samples.map((_, i) => (at += p.timeDeltas[i]));
const windowStart = p.startTime + 1.5e6;
const windowEnd = times[times.length - 1] - 1e6;
const self = new Map();
const files = new Map();
const inclusive = new Map();
const shortUrl = (url) => url.replace("file://", "").replace(ROOT + "/", "").replace(/^.*\/work\/main\//, "");
const key = (n) => `${n.callFrame.functionName || "(anon)"} ${shortUrl(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
const fileOf = (n) => shortUrl(n.callFrame.url) || `(${n.callFrame.functionName})`;
let counted = 0;
for (let i = 1; i < p.samples.length; i++) {
  if (times[i] < windowStart || times[i] > windowEnd) continue;
  const dt = p.timeDeltas[i];
  const n = byId.get(p.samples[i]);
  if (n.callFrame.functionName === "(idle)") continue;
  counted += dt;
  self.set(key(n), (self.get(key(n)) ?? 0) + dt);
  files.set(fileOf(n), (files.get(fileOf(n)) ?? 0) + dt);
  const seen = new Set();
  for (let id = p.samples[i]; id !== undefined; id = parent.get(id)) {
    const k = key(byId.get(id));
    if (!seen.has(k)) inclusive.set(k, (inclusive.get(k) ?? 0) + dt);
    seen.add(k);
  }
}
const lines = [];
const show = (title, map, n, filter = () => true) => {
  lines.push(`-- ${title} (µs per request, share of busy time)`);
  for (const [k, us] of [...map].filter(([k]) => filter(k)).sort((a, b) => b[1] - a[1]).slice(0, n)) {
    lines.push(`${(us / counted * serverCpu / requests * 1e6).toFixed(2).padStart(7)} µs ${((us / counted) * 100).toFixed(1).padStart(5)} %  ${k}`);
  }
};
show("self, by function", self, top);
show("self, by file", files, 25);
show("inclusive, fw's functions", inclusive, top, (k) => /\.m?js:\d+$/.test(k) && !k.includes("node:"));
const text = lines.join("\n");
writeFileSync(join(dir, "summary.txt"), text + "\n");
console.log(text);
console.log(`(profile and summary in ${dir})`);
