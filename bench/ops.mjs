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
//   tracing: the session page traced (OpenTelemetry, OTLP/HTTP to a receiver in this process that
//         answers every export) with a 10 % sampler (parentbased_traceidratio, 0.1) against not
//         traced; target ≤ 10 %.
import { cpSync, mkdirSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { measureGroups } from "./lib/rounds.mjs";
import { signIn } from "./lib/sides.mjs";
import { freePort, log, ROOT, run, startServer, WORK } from "./lib/util.mjs";

const SERVER_CORE = 0;
const LOAD_CORE = 1;

async function start(name, script, env) {
  const port = await freePort();
  const server = await startServer({ name, script: join("bench", "servers", script), env: { ...env, PORT: String(port) }, core: SERVER_CORE });
  return { ...server, port, url: `http://127.0.0.1:${port}` };
}

function check(condition, message) {
  if (!condition) throw new Error(`preflight: ${message}`);
}

/** The logs group: the session page, access log on, JSON against text. */
async function logsGroup(env, servers) {
  servers.logText = await start("fw (access log, text)", "fw.mjs", { ...env, FW_BENCH_ACCESS_LOG: "1", FW_LOG_FORMAT: "text" });
  servers.logJson = await start("fw (access log, JSON)", "fw.mjs", { ...env, FW_BENCH_ACCESS_LOG: "1", FW_LOG_FORMAT: "json" });
  const cookie = await signIn(servers.logText.url);
  for (const name of ["logText", "logJson"]) {
    const page = await fetch(`${servers[name].url}/posts/7`, { headers: { cookie } });
    check(page.status === 200 && (await page.text()).includes("Signed in as ada"), `${name} should serve the session page`);
  }
  // The access line each writes, read from its output: the JSON one parses and carries the request id.
  await new Promise((done) => setTimeout(done, 200));
  const jsonLine = servers.logJson.output().split("\n").find((line) => line.includes('"msg":"request"'));
  check(jsonLine !== undefined && typeof JSON.parse(jsonLine).requestId === "string", "the JSON server should write a JSON access entry with a requestId");
  check(/GET \/posts\/7 200 [\d.]+ms/.test(servers.logText.output()), "the text server should write a text access line");
  const headers = [`Cookie: ${cookie}`];
  return {
    id: "logs",
    title: "Access log on the session page `GET /posts/7`: JSON lines (pino) against text lines",
    baseline: "text",
    rows: [
      { id: "text", label: "fw, access log as text (`FW_LOG_FORMAT=text`)", url: `${servers.logText.url}/posts/7`, server: servers.logText, headers },
      { id: "json", label: "fw, access log as JSON (`FW_LOG_FORMAT=json`, production's default)", url: `${servers.logJson.url}/posts/7`, server: servers.logJson, headers },
    ],
  };
}

const METRICS_TOKEN = "bench-metrics-token-0123456789";

/** The metrics group: the session page, metrics on against off (access log off on both). */
async function metricsGroup(env, servers) {
  servers.metricsOff = await start("fw (metrics off)", "fw.mjs", env);
  servers.metricsOn = await start("fw (metrics on)", "fw.mjs", { ...env, FW_METRICS_TOKEN: METRICS_TOKEN });
  const cookie = await signIn(servers.metricsOff.url);
  await signIn(servers.metricsOn.url);
  const scraped = await fetch(`${servers.metricsOn.url}/fw/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  check(scraped.status === 200 && (await scraped.text()).includes('fw_http_request_duration_seconds_count{method="GET",route="/login",status="200"} 1'), "the metrics server should count its requests");
  check((await fetch(`${servers.metricsOff.url}/fw/metrics`)).status === 404, "the server without metrics should answer /fw/metrics 404");
  const headers = [`Cookie: ${cookie}`];
  return {
    id: "metrics",
    title: "Prometheus metrics on the session page `GET /posts/7`: on (`FW_METRICS_TOKEN`) against off",
    baseline: "off",
    rows: [
      { id: "off", label: "fw, metrics off", url: `${servers.metricsOff.url}/posts/7`, server: servers.metricsOff, headers },
      { id: "on", label: "fw, metrics on (a histogram observation per request)", url: `${servers.metricsOn.url}/posts/7`, server: servers.metricsOn, headers },
    ],
  };
}

/** A receiver that takes OTLP exports and throws them away, counting the requests. */
function otlpSink() {
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

/** The tracing group: the session page with 10 % of its requests traced against not traced. */
async function tracingGroup(env, servers) {
  const sink = await otlpSink();
  servers.otlpSink = sink;
  servers.tracingOff = await start("fw (no traces)", "fw.mjs", env);
  servers.tracingOn = await start("fw (traces, 10 % sampled)", "fw.mjs", {
    ...env,
    OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
    OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
    OTEL_TRACES_SAMPLER_ARG: "0.1",
  });
  const cookie = await signIn(servers.tracingOff.url);
  for (let i = 0; i < 100; i++) await fetch(`${servers.tracingOn.url}/posts/7`, { headers: { cookie } }).then((r) => r.text());
  const deadline = Date.now() + 15_000;
  while (sink.exports() === 0 && Date.now() < deadline) await new Promise((done) => setTimeout(done, 200));
  check(sink.exports() > 0, "the traced server should export spans to the receiver");
  const headers = [`Cookie: ${cookie}`];
  return {
    id: "tracing",
    title: "OpenTelemetry traces on the session page `GET /posts/7`: 10 % of requests sampled (exported over OTLP) against no tracing",
    baseline: "off",
    rows: [
      { id: "off", label: "fw, no tracing", url: `${servers.tracingOff.url}/posts/7`, server: servers.tracingOff, headers },
      { id: "on", label: "fw, traced: parentbased_traceidratio 0.1, OTLP/HTTP to a local receiver", url: `${servers.tracingOn.url}/posts/7`, server: servers.tracingOn, headers },
    ],
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
  const env = { DATABASE_URL: `pglite:${join(cwd, "db")}` };
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

/** Runs the groups. Options: seconds per round, rounds, warm-up seconds, connections. */
export async function ops({ seconds, rounds, warmup, connections }) {
  const env = { FW_SECRET: process.env.FW_SECRET, FW_ALLOWED_HOSTS: "127.0.0.1,localhost", FW_ORIGIN: "http://localhost", FW_MAILBOX: ".fw/bench-mail" };
  const servers = {};
  try {
    const groups = [await logsGroup(env, servers), await metricsGroup(env, servers), await tracingGroup(env, servers), await cacheGroup(servers)];
    await measureGroups(groups, { seconds, rounds, warmup, connections, core: LOAD_CORE, what: "ops" });
    return { groups };
  } finally {
    await Promise.all(Object.values(servers).map((server) => server.stop()));
  }
}
