// Issue 44, running in production: what its parts cost where they sit on a request's path. Each
// group compares the same server with the feature on and off (or two ways of doing it), wrk as the
// throughput part (servers pinned to core 0, wrk to core 1, interleaved rounds, paired ratios).
//   logs: the session page (`GET /posts/7` of bench/servers/fw.mjs) with its access log written as
//         JSON lines (pino, production's default) against text lines; target ≤ 5 % (≥ 0.95×).
//   metrics: the session page with Prometheus metrics on (FW_METRICS_TOKEN: each request observed
//         in a histogram by route and status) against off; target ≤ 3 %.
//   cache: the example's posts Index (`GET /posts`, signed out, 1,000 posts on its embedded
//         PGlite) with fw/cache on (the page's rows kept, tagged `posts`) against FW_CACHE=off;
//         target ≥ 3×.
//   fan-out: a chat message to 1,000 sockets spread over two app processes (the scale fixture on
//         one PostgreSQL), through Redis (FW_FANOUT) and through PostgreSQL's LISTEN/NOTIFY: the
//         time from the send to each socket's arrival, p50 and p99 side by side.
//   tracing: the session page traced (OpenTelemetry, OTLP/HTTP to a receiver in this process that
//         answers every export) with a 10 % sampler (parentbased_traceidratio, 0.1) against not
//         traced; target ≤ 10 %.
import { cpSync, mkdirSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { measureGroups } from "./lib/rounds.mjs";
import { wrk } from "./lib/wrk.mjs";
import { signIn } from "./lib/sides.mjs";
import { freePort, log, pairedRatios, ROOT, run, startServer, WORK } from "./lib/util.mjs";

const SERVER_CORE = 0;
const LOAD_CORE = 1;

/** The warm-up each server gets as soon as it starts (run() sets it from the part's options). */
let startWarmup = 1;

/**
 * Starts one of fw's bench servers and loads it at once (`GET /`, the API route), before its
 * preflight: a process that serves a few requests and then idles while still cold stays 20-30 %
 * slower for good (V8's memory reducer, finding 14), and which server of a pair fell into it
 * depended on its place in the run, not on the feature measured (finding 28).
 */
async function start(name, script, env) {
  const port = await freePort();
  const server = await startServer({ name, script: join("bench", "servers", script), env: { ...env, PORT: String(port) }, core: SERVER_CORE });
  const url = `http://127.0.0.1:${port}`;
  await wrk({ url: `${url}/`, seconds: startWarmup, core: LOAD_CORE });
  return { ...server, port, url };
}

function check(condition, message) {
  if (!condition) throw new Error(`preflight: ${message}`);
}

/**
 * A group's two sides started `pairs` times each (A₁ B₁ A₂ B₂ …): one process per side left a
 * 3–5 % target to where V8 happened to place a process's code and heap (two identical servers
 * differed by 12–18 % under load, FINDINGS 32). Rows `off` and `on` are the first pair, `off-2` and
 * `on-2` the next, each paired with its own pair's baseline; `off-2` is also paired with `off`: an
 * A/A row, the noise floor the group's ratios should be read against. `start(side, pair)` starts
 * one side's process and returns its row (without id and baseline).
 */
async function pairedRows(pairs, [baseId, featureId], startSide) {
  const rows = [];
  for (let pair = 1; pair <= pairs; pair++) {
    const suffix = pair === 1 ? "" : `-${pair}`;
    const base = await startSide(baseId, pair);
    const feature = await startSide(featureId, pair);
    rows.push({ ...base, id: `${baseId}${suffix}`, ...(pair === 1 ? {} : { baseline: baseId, label: `${base.label} (process pair ${pair}: against the first, A/A)` }) });
    rows.push({ ...feature, id: `${featureId}${suffix}`, baseline: `${baseId}${suffix}`, ...(pair === 1 ? {} : { label: `${feature.label} (process pair ${pair})` }) });
  }
  return rows;
}

/**
 * After the rounds: the feature's ratio over all its pairs (every round of every pair, each against
 * its own pair's baseline) and the A/A rows' (every later pair's baseline against the first's):
 * `group.paired = { feature, pairs, roundRatios, cpuRoundRatios, control: { roundRatios, cpuRoundRatios } }`.
 */
export function pairedSummary(group) {
  if (group.pairs === undefined) return;
  const [baseId, featureId] = group.sides;
  const rowOf = (id) => group.rows.find((row) => row.id === id);
  const runs = [];
  const baseRuns = [];
  const aaRuns = [];
  const aaBase = [];
  for (let pair = 1; pair <= group.pairs; pair++) {
    const suffix = pair === 1 ? "" : `-${pair}`;
    runs.push(...rowOf(`${featureId}${suffix}`).runs);
    baseRuns.push(...rowOf(`${baseId}${suffix}`).runs);
    if (pair > 1) {
      aaRuns.push(...rowOf(`${baseId}${suffix}`).runs);
      aaBase.push(...rowOf(baseId).runs);
    }
  }
  const { roundRatios, cpuRoundRatios } = pairedRatios(runs, baseRuns);
  const control = aaRuns.length === 0 ? undefined : pairedRatios(aaRuns, aaBase);
  group.paired = { feature: featureId, pairs: group.pairs, roundRatios, cpuRoundRatios, control: control && { roundRatios: control.roundRatios, cpuRoundRatios: control.cpuRoundRatios } };
}

/** The logs group: the session page, access log on, JSON against text. */
async function logsGroup(env, servers, pairs) {
  const formats = { text: ["text", "fw, access log as text (`FW_LOG_FORMAT=text`)"], json: ["JSON", "fw, access log as JSON (`FW_LOG_FORMAT=json`, production's default)"] };
  let cookie;
  const rows = await pairedRows(pairs, ["text", "json"], async (side, pair) => {
    const key = `log-${side}-${pair}`;
    servers[key] = await start(`fw (access log, ${formats[side][0]}, pair ${pair})`, "fw.mjs", { ...env, FW_BENCH_ACCESS_LOG: "1", FW_LOG_FORMAT: side });
    cookie ??= await signIn(servers[key].url);
    const page = await fetch(`${servers[key].url}/posts/7`, { headers: { cookie } });
    check(page.status === 200 && (await page.text()).includes("Signed in as ada"), `${key} should serve the session page`);
    return { label: formats[side][1], url: `${servers[key].url}/posts/7`, server: servers[key] };
  });
  // The access line each writes, read from its output: the JSON one parses and carries the request id.
  await new Promise((done) => setTimeout(done, 200));
  // The last one: the output kept is its tail, whose first line may be cut (the warm-up's lines came first).
  const jsonLine = servers["log-json-1"].output().split("\n").findLast((line) => line.includes('"msg":"request"') && line.includes('"path":"/posts/7"'));
  check(jsonLine !== undefined && typeof JSON.parse(jsonLine).requestId === "string", "the JSON server should write a JSON access entry with a requestId");
  check(/GET \/posts\/7 200 [\d.]+ms/.test(servers["log-text-1"].output()), "the text server should write a text access line");
  const headers = [`Cookie: ${cookie}`];
  return {
    id: "logs",
    title: "Access log on the session page `GET /posts/7`: JSON lines (pino) against text lines",
    baseline: "text",
    pairs,
    sides: ["text", "json"],
    rows: rows.map((row) => ({ ...row, headers })),
  };
}

const METRICS_TOKEN = "bench-metrics-token-0123456789";

/** The metrics group: the session page, metrics on against off (access log off on both). */
async function metricsGroup(env, servers, pairs) {
  let cookie;
  const rows = await pairedRows(pairs, ["off", "on"], async (side, pair) => {
    const key = `metrics-${side}-${pair}`;
    servers[key] = await start(`fw (metrics ${side}, pair ${pair})`, "fw.mjs", side === "on" ? { ...env, FW_METRICS_TOKEN: METRICS_TOKEN } : env);
    const signedIn = await signIn(servers[key].url);
    cookie ??= signedIn;
    if (side === "on") {
      const scraped = await fetch(`${servers[key].url}/fw/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      check(scraped.status === 200 && (await scraped.text()).includes('fw_http_request_duration_seconds_count{method="GET",route="/login",status="200"} 1'), "the metrics server should count its requests");
    } else check((await fetch(`${servers[key].url}/fw/metrics`)).status === 404, "the server without metrics should answer /fw/metrics 404");
    const label = side === "on" ? "fw, metrics on (a histogram observation per request)" : "fw, metrics off";
    return { label, url: `${servers[key].url}/posts/7`, server: servers[key] };
  });
  const headers = [`Cookie: ${cookie}`];
  return {
    id: "metrics",
    title: "Prometheus metrics on the session page `GET /posts/7`: on (`FW_METRICS_TOKEN`) against off",
    baseline: "off",
    pairs,
    sides: ["off", "on"],
    rows: rows.map((row) => ({ ...row, headers })),
  };
}

/** A receiver that takes OTLP exports and throws them away, counting the requests. */
export function otlpSink() {
  let exports = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      exports++;
      response.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  return new Promise((done) =>
    server.listen(0, "127.0.0.1", () =>
      done({ url: `http://127.0.0.1:${server.address().port}`, exports: () => exports, stop: () => new Promise((closed) => (server.close(() => closed()), server.closeAllConnections())) }),
    ),
  );
}

/**
 * The tracing group's warm-up, in seconds, a side: 5 where the part's is 1 (FINDINGS 41). A traced
 * server runs its sampled path (the SDK's span, fw's encoder) on a tenth of the requests, so that
 * code reaches V8's optimizing tiers ten times later than the request path, and when it does the
 * request path's optimized code that inlined its branches is deoptimized and compiled again: after
 * 1 s the traced side still compiled 116-126 functions in its first 2 s round (the untraced side
 * 6-30) and read ~10 % slower than after 5 s, where the pair read within 2-5 %. Both sides of the
 * group get the same warm-up, then the part's 1 s each as the other groups (rounds.mjs), so that
 * the first row warmed does not idle 15 s before its first round.
 */
const TRACING_WARMUP_FACTOR = 5;

/** The tracing group: the session page with 10 % of its requests traced against not traced. */
async function tracingGroup(env, servers, pairs) {
  const sink = await otlpSink();
  servers.otlpSink = sink;
  const traced = { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.1" };
  let cookie;
  const rows = await pairedRows(pairs, ["off", "on"], async (side, pair) => {
    const key = `tracing-${side}-${pair}`;
    servers[key] = await start(side === "on" ? `fw (traces, 10 % sampled, pair ${pair})` : `fw (no traces, pair ${pair})`, "fw.mjs", side === "on" ? { ...env, ...traced } : env);
    cookie ??= await signIn(servers[key].url);
    if (side === "on") {
      const before = sink.exports();
      for (let i = 0; i < 100; i++) await fetch(`${servers[key].url}/posts/7`, { headers: { cookie } }).then((r) => r.text());
      const deadline = Date.now() + 15_000;
      while (sink.exports() === before && Date.now() < deadline) await new Promise((done) => setTimeout(done, 200));
      check(sink.exports() > before, `${key} should export spans to the receiver`);
    }
    const label = side === "on" ? "fw, traced: parentbased_traceidratio 0.1, OTLP/HTTP to a local receiver" : "fw, no tracing";
    return { label, url: `${servers[key].url}/posts/7`, server: servers[key] };
  });
  const headers = [`Cookie: ${cookie}`];
  return {
    id: "tracing",
    title: `OpenTelemetry traces on the session page \`GET /posts/7\`: 10 % of requests sampled (exported over OTLP) against no tracing, after a ${startWarmup * TRACING_WARMUP_FACTOR} s and a ${startWarmup} s warm-up each (the sampled path tiers up late: FINDINGS 41)`,
    baseline: "off",
    pairs,
    warmup: startWarmup * TRACING_WARMUP_FACTOR,
    sides: ["off", "on"],
    rows: rows.map((row) => ({ ...row, headers })),
  };
}

const EXAMPLE = join(ROOT, "example", "dist", "main.js");
const CACHE_POSTS = 1_000;

/** A folder for the example with its migrations applied to a PGlite database of 1,000 posts (half published). */
async function seededExample(name) {
  const cwd = join(WORK, "ops", name);
  rmSync(cwd, { recursive: true, force: true });
  mkdirSync(cwd, { recursive: true });
  cpSync(join(ROOT, "example", "db", "migrations"), join(cwd, "db", "migrations"), { recursive: true });
  // The example keeps covers and attachments (fw/files): production needs FW_STORAGE.
  const env = { DATABASE_URL: `pglite:${join(cwd, "db")}`, FW_STORAGE: `file://${join(cwd, "files")}` };
  const migrated = await run(process.execPath, [EXAMPLE, "db", "migrate"], { cwd, env, timeoutMs: 300_000 });
  if (migrated.code !== 0) throw new Error(`db migrate failed for ${name}:\n${migrated.output}`);
  const seeded = await run(process.execPath, [join("bench", "big-tables.mjs"), "seed", join(cwd, "db"), String(CACHE_POSTS)], { timeoutMs: 300_000 });
  if (seeded.code !== 0) throw new Error(`seeding ${name} failed:\n${seeded.output}`);
  return { cwd, env };
}

/** The cache group: the example's Index for signed-out visitors, fw/cache on against off. */
async function cacheGroup(servers) {
  const serveExample = async (name, label, extra) => {
    const { cwd, env } = await seededExample(name);
    const port = await freePort();
    servers[name] = await startServer({ name: label, script: EXAMPLE, env: { ...env, ...extra, PORT: String(port) }, core: SERVER_CORE, cwd, timeoutMs: 180_000 });
    return `http://127.0.0.1:${port}`;
  };
  const off = await serveExample("cacheOff", "the example, FW_CACHE=off", { FW_CACHE: "off" });
  const on = await serveExample("cacheOn", "the example, fw/cache on", {});
  for (const url of [off, on]) {
    const page = await fetch(`${url}/posts`);
    const html = await page.text();
    check(page.status === 200 && (html.match(/<a href="\/posts\/\d+">/g) ?? []).length >= 50, `${url}/posts should list a page of 50 posts (answered ${page.status})`);
  }
  // The same page from both: the cached one is what the database says.
  const strip = (html) => html.replace(/name="_csrf" value="[^"]*"|data-fw-csrf="[^"]*"/g, "");
  check(strip(await (await fetch(`${off}/posts`)).text()) === strip(await (await fetch(`${on}/posts`)).text()), "the cached Index should be the uncached one, byte for byte (but its CSRF token)");
  log("ops: cache: the example's Index, cached and not, answer the same page");
  return {
    id: "cache",
    title: `The example's posts Index \`GET /posts\` signed out (${CACHE_POSTS.toLocaleString("en")} posts on PGlite, a page of 50): fw/cache on against off`,
    baseline: "off",
    rows: [
      { id: "off", label: "the example, `FW_CACHE=off` (the rows read on every request)", url: `${off}/posts`, server: servers.cacheOff },
      { id: "on", label: "the example, fw/cache on (the rows kept, tagged `posts`: the quick layer, then the fw_cache table)", url: `${on}/posts`, server: servers.cacheOn },
    ],
  };
}

/** A throwaway redis-server on a free loopback port (Debian's), or undefined without one. */
async function startRedis() {
  const { existsSync } = await import("node:fs");
  const { spawn } = await import("node:child_process");
  const bin = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"].find((path) => existsSync(path));
  if (bin === undefined) return undefined;
  const port = await freePort();
  const child = spawn(bin, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  const { createConnection } = await import("node:net");
  for (let i = 0; i < 200; i++) {
    const ok = await new Promise((done) => {
      const socket = createConnection({ port, host: "127.0.0.1" }, () => (socket.end(), done(true)));
      socket.on("error", () => done(false));
    });
    if (ok) break;
    await new Promise((done) => setTimeout(done, 50));
  }
  return { url: `redis://127.0.0.1:${port}`, stop: () => new Promise((done) => (child.once("exit", done), child.kill("SIGTERM"))) };
}

/**
 * One chat message to `sockets` sockets, half on each of two app processes, `messages` times: the
 * milliseconds from each send (on a socket of A) to its arrival on every socket.
 */
async function fanOutLatency(env, { sockets, messages }) {
  const { WebSocket } = await import("ws");
  const { serveApp } = await import("./scale.mjs");
  const a = await serveApp("ops: fan-out A", env);
  const b = await serveApp("ops: fan-out B", env);
  const all = [];
  try {
    const open = (base) =>
      new Promise((done, fail) => {
        const socket = new WebSocket(`${base.replace(/^http/, "ws")}/chat/socket`, { origin: base });
        socket.once("open", () => done(socket)).once("error", fail);
      });
    for (let i = 0; i < sockets; i++) all.push(await open(i % 2 === 0 ? a.url : b.url));
    const sender = all[0];
    const sentAt = new Map();
    const latencies = [];
    let arrivals = 0;
    for (const socket of all) {
      socket.on("message", (data) => {
        const id = /: (\d+)$/.exec(String(data))?.[1];
        if (id !== undefined && sentAt.has(id)) {
          latencies.push(performance.now() - sentAt.get(id));
          arrivals++;
        }
      });
    }
    await new Promise((done) => setTimeout(done, 500));
    for (let i = 0; i < messages; i++) {
      const before = arrivals;
      sentAt.set(String(i), performance.now());
      sender.send(String(i));
      const deadline = Date.now() + 10_000;
      while (arrivals - before < sockets && Date.now() < deadline) await new Promise((done) => setTimeout(done, 2));
      await new Promise((done) => setTimeout(done, 20));
    }
    const sorted = [...latencies].sort((x, y) => x - y);
    const at = (p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
    return { sockets, messages, deliveries: latencies.length, lost: sockets * messages - latencies.length, p50: at(50), p99: at(99), max: sorted.at(-1) };
  } finally {
    for (const socket of all) socket.terminate();
    await a.stop();
    await b.stop();
  }
}

/** The fan-out rows: Redis against PostgreSQL, on one throwaway cluster (skipped, saying why, without PostgreSQL or redis-server). */
async function fanOut({ sockets, messages }) {
  const { postgresBin, startCluster, prepare } = await import("./scale.mjs");
  const bin = postgresBin();
  if (bin === undefined) return { skipped: "PostgreSQL not found on this machine" };
  const redis = await startRedis();
  if (redis === undefined) return { skipped: "redis-server not found on this machine (apt-get install redis-server)" };
  const cluster = await startCluster(bin);
  try {
    const env = { DATABASE_URL: cluster.url, NODE_ENV: "production", FW_ALLOWED_HOSTS: "127.0.0.1,localhost", FW_ORIGIN: "http://localhost", FW_MAILBOX: ".fw/bench-mail" };
    await prepare(env);
    const postgres = await fanOutLatency(env, { sockets, messages });
    log(`ops: fan-out through PostgreSQL: p50 ${postgres.p50?.toFixed(1)} ms, p99 ${postgres.p99?.toFixed(1)} ms (${postgres.lost} lost)`);
    const viaRedis = await fanOutLatency({ ...env, FW_FANOUT: redis.url }, { sockets, messages });
    log(`ops: fan-out through Redis: p50 ${viaRedis.p50?.toFixed(1)} ms, p99 ${viaRedis.p99?.toFixed(1)} ms (${viaRedis.lost} lost)`);
    return { postgres, redis: viaRedis };
  } finally {
    cluster.destroy();
    await redis.stop();
  }
}

/** Runs the groups. Options: seconds per round, rounds, warm-up seconds, connections. */
export async function ops({ seconds, rounds, warmup, connections, pairs = 1, fanOut: fanOutOptions }) {
  const env = { FW_SECRET: process.env.FW_SECRET, FW_ALLOWED_HOSTS: "127.0.0.1,localhost", FW_ORIGIN: "http://localhost", FW_MAILBOX: ".fw/bench-mail" };
  const servers = {};
  startWarmup = warmup;
  try {
    const groups = [await logsGroup(env, servers, pairs), await metricsGroup(env, servers, pairs), await tracingGroup(env, servers, pairs), await cacheGroup(servers)];
    await measureGroups(groups, { seconds, rounds, warmup, connections, core: LOAD_CORE, what: "ops" });
    for (const group of groups) pairedSummary(group);
    // The wrk groups' servers stop first: the fan-out's processes and sockets use both cores.
    await Promise.all(Object.values(servers).map((server) => server.stop()));
    for (const key of Object.keys(servers)) delete servers[key];
    // A failure of the fan-out rows (a process that would not start) keeps the groups measured above.
    const fanOutRows = await fanOut(fanOutOptions).catch((error) => {
      log(`ops: fan-out not measured: ${error?.stack ?? error}`);
      return { skipped: `it failed: ${String(error?.message ?? error).split("\n")[0]}` };
    });
    return { groups, fanOut: fanOutRows };
  } finally {
    await Promise.all(Object.values(servers).map((server) => server.stop()));
  }
}
