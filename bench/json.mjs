// JSON answers (issue 31, item 6): `GET /api/posts`, 50 posts (28 KB of JSON), from fw with the
// build's typed writer (runtime/http/json-writer.ts) (bench/servers/json-app, built by lib/json-app.mjs), the same fw app's
// route declared `: Response` (JSON.stringify), Fastify with a response schema (fast-json-stringify)
// and without, and raw node:http. wrk as the throughput part: servers pinned to core 0, wrk to
// core 1, warm-up first, interleaved rounds, ratios to Fastify with its schema round by round.
// Then the writers alone in one process (bench/json-worker.mjs): the route's writer as the build
// wrote it, typia's checked typed stringify alone, JSON.stringify, fast-json-stringify.
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { join } from "node:path";
import { JSON_APP, JSON_APP_MAIN } from "./lib/json-app.mjs";
import { measureGroups } from "./lib/rounds.mjs";
import { freePort, log, pinned, ROOT, run, startServer, summary, WORK } from "./lib/util.mjs";
import { wrk } from "./lib/wrk.mjs";

const SERVER_CORE = 0;
const LOAD_CORE = 1;

async function start(name, script, env, cwd, timeoutMs) {
  const port = await freePort();
  const server = await startServer({ name, script, env: { ...env, PORT: String(port) }, core: SERVER_CORE, ...(cwd === undefined ? {} : { cwd }), ...(timeoutMs === undefined ? {} : { timeoutMs }) });
  return { ...server, port, url: `http://127.0.0.1:${port}` };
}

/** Every side answers the same posts (byte for byte: typia and fast-json-stringify write the members in the type's order, the order the posts were built in). */
async function preflight(rows) {
  const bodies = {};
  for (const row of rows) {
    const res = await fetch(row.url);
    const text = await res.text();
    if (res.status !== 200) throw new Error(`preflight: ${row.id} answered ${res.status}: ${text.slice(0, 200)}`);
    if (!(res.headers.get("content-type") ?? "").startsWith("application/json")) throw new Error(`preflight: ${row.id} answered ${res.headers.get("content-type")}`);
    bodies[row.id] = text;
  }
  const [first, ...others] = rows;
  const value = JSON.parse(bodies[first.id]);
  if (!Array.isArray(value) || value.length !== 50) throw new Error(`preflight: ${first.id} did not answer 50 posts`);
  for (const row of others) {
    if (!isDeepStrictEqual(JSON.parse(bodies[row.id]), value)) throw new Error(`preflight: ${row.id} answers other posts than ${first.id}`);
    if (bodies[row.id] !== bodies[first.id]) throw new Error(`preflight: ${row.id}'s body differs from ${first.id}'s (same posts, other bytes)`);
  }
  return { bytes: Buffer.byteLength(bodies[first.id]) };
}

/** The writers alone, pinned to the server core, in a process of their own. */
async function writers(roundMs, rounds) {
  // The worker imports the app's routes, whose auth.ts opens an embedded database at load: one of
  // its own, in a folder of its own, never the served app's (.fw/db under the app) nor the checkout's.
  const cwd = join(WORK, "json-worker");
  rmSync(cwd, { recursive: true, force: true });
  mkdirSync(join(cwd, ".fw"), { recursive: true });
  const { command, args } = pinned(SERVER_CORE, process.execPath, [join(ROOT, "bench", "json-worker.mjs"), String(roundMs), String(rounds)]);
  const result = await run(command, args, { cwd, timeoutMs: 120_000 });
  if (result.code !== 0) throw new Error(`bench/json-worker.mjs failed (${result.code ?? result.signal}):\n${result.output}`);
  const { writers: measured, bytes } = JSON.parse(result.output.trim().split("\n").pop());
  const base = measured["JSON.stringify"];
  return {
    bytes,
    rows: Object.entries(measured).map(([name, runs]) => ({ name, opsPerSecond: summary(runs), ratio: summary(runs.map((ops, i) => ops / base[i])) })),
  };
}

/** The API key and the per-user token the fw app's two guarded copies of the route take (issue 42). */
const API_KEY = "bench-service-key-0123456789abcdef0123456789";

/**
 * The token rows answer what the open route answers, and their refusals are what they say; the
 * statements a call sends the database, counted by the app (`GET /api/statements`) over 20 calls
 * of each: what the report prints beside the rows.
 */
async function tokenPreflight(url, token, posts) {
  const statements = async () => (await (await fetch(`${url}/api/statements`)).json()).statements;
  const perCall = {};
  for (const [id, path, key] of [["apiKey", "/api/keyed/posts", API_KEY], ["token", "/api/token/posts", token]]) {
    const before = await statements();
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${key}` } });
      const text = await res.text();
      if (res.status !== 200 || text !== posts) throw new Error(`preflight: ${path} answered ${res.status} (or other posts): ${text.slice(0, 200)}`);
    }
    perCall[id] = ((await statements()) - before) / 20;
    const refused = await fetch(`${url}${path}`, { headers: { authorization: "Bearer wrong" } });
    if (refused.status !== 403) throw new Error(`preflight: ${path} with a wrong key answered ${refused.status}, not 403`);
  }
  return perCall;
}

export async function json({ seconds, rounds, warmup, connections, writerMs, writerRounds }) {
  const env = { FW_SECRET: process.env.FW_SECRET };
  const servers = {};
  try {
    servers.raw = await start("raw (JSON)", join("bench", "servers", "json-peers.mjs"), { ...env, JSON_SIDE: "raw" });
    servers.fastify = await start("Fastify (schema)", join("bench", "servers", "json-peers.mjs"), { ...env, JSON_SIDE: "fastify" });
    servers.fastifyPlain = await start("Fastify (no schema)", join("bench", "servers", "json-peers.mjs"), { ...env, JSON_SIDE: "fastify-plain" });
    // The app opens its embedded database at boot (the token rows' users and tokens): a longer start.
    servers.fw = await start("fw (JSON app)", JSON_APP_MAIN, env, JSON_APP, 180_000);
    const rows = [
      { id: "raw", label: "raw node:http, `JSON.stringify`", url: `${servers.raw.url}/api/posts`, server: servers.raw },
      { id: "fastifyPlain", label: "Fastify, no schema (`JSON.stringify`)", url: `${servers.fastifyPlain.url}/api/posts`, server: servers.fastifyPlain },
      { id: "fastify", label: "Fastify, response schema (fast-json-stringify)", url: `${servers.fastify.url}/api/posts`, server: servers.fastify },
      { id: "fwUntyped", label: "fw, handler declared `: Response` (`JSON.stringify`)", url: `${servers.fw.url}/api/posts-untyped`, server: servers.fw },
      { id: "fw", label: "fw, `Json(posts)` typed by the handler's return type (the build's writer: typia's exact check, then JSON.stringify; typia's typed stringify for what is not plain)", url: `${servers.fw.url}/api/posts`, server: servers.fw },
    ];
    for (const row of rows) await wrk({ url: row.url, seconds: warmup, connections, core: LOAD_CORE });
    const facts = await preflight(rows);
    const token = readFileSync(join(JSON_APP, ".fw", "bench-token"), "utf8");
    const posts = await (await fetch(`${servers.fw.url}/api/posts`)).text();
    const statements = await tokenPreflight(servers.fw.url, token, posts);
    log(`json: statements a call: apiKey ${statements.apiKey}, per-user token ${statements.token}`);
    const tokenRows = [
      { id: "apiKey", label: `fw/auth \`apiKey\` (a map read at boot; ${statements.apiKey} statements a call)`, url: `${servers.fw.url}/api/keyed/posts`, server: servers.fw, headers: [`Authorization: Bearer ${API_KEY}`] },
      { id: "token", label: `fw/auth per-user token, scope \`posts:read\` (fw_api_tokens on PGlite, one process: the token remembered; ${statements.token} statements a call)`, url: `${servers.fw.url}/api/token/posts`, server: servers.fw, headers: [`Authorization: Bearer ${token}`] },
    ];
    const groups = [
      { id: "json", title: `JSON API \`GET /api/posts\` (50 posts, ${facts.bytes} B)`, baseline: "fastify", rows },
      { id: "tokens", title: `The same call behind a guard (issue 42): per-user token vs \`apiKey\``, baseline: "apiKey", rows: tokenRows, statements, rounds: Math.max(rounds, 7) },
    ];
    await measureGroups(groups, { seconds, rounds, warmup, connections, core: LOAD_CORE, what: "json" });
    log(`json: the writers alone, ${writerRounds} rounds of ${writerMs} ms`);
    let alone;
    try {
      alone = await writers(writerMs, writerRounds);
      log(`json: writers: ${alone.rows.map((r) => `${r.name} ${Math.round(r.opsPerSecond.median)}/s (×${r.ratio.median.toFixed(2)})`).join(", ")}`);
    } catch (error) {
      // A worker cut by its timeout on a loaded machine: the rows measured above are kept, the writers' table says why it is missing.
      log(`json: the writers alone were not measured: ${error.message.split("\n")[0]}`);
      alone = { error: error.message.split("\n")[0] };
    }
    return { groups, facts, writers: alone };
  } finally {
    await Promise.all(Object.values(servers).map((s) => s.stop()));
  }
}
