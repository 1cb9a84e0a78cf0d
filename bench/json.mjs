// JSON answers (issue 31, item 6): `GET /api/posts`, 50 posts (28 KB of JSON), from fw with the
// build's typed writer (runtime/http/json-writer.ts) (bench/servers/json-app, built by lib/json-app.mjs), the same fw app's
// route declared `: Response` (JSON.stringify), Fastify with a response schema (fast-json-stringify)
// and without, and raw node:http. wrk as the throughput part: servers pinned to core 0, wrk to
// core 1, warm-up first, interleaved rounds, ratios to Fastify with its schema round by round.
// Then the writers alone in one process (bench/json-worker.mjs): the route's writer as the build
// wrote it, typia's checked typed stringify alone, JSON.stringify, fast-json-stringify.
import { isDeepStrictEqual } from "node:util";
import { join } from "node:path";
import { JSON_APP, JSON_APP_MAIN } from "./lib/json-app.mjs";
import { measureGroups } from "./lib/rounds.mjs";
import { freePort, log, pinned, run, startServer, summary } from "./lib/util.mjs";
import { wrk } from "./lib/wrk.mjs";

const SERVER_CORE = 0;
const LOAD_CORE = 1;

async function start(name, script, env, cwd) {
  const port = await freePort();
  const server = await startServer({ name, script, env: { ...env, PORT: String(port) }, core: SERVER_CORE, ...(cwd === undefined ? {} : { cwd }) });
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
  const { command, args } = pinned(SERVER_CORE, process.execPath, [join("bench", "json-worker.mjs"), String(roundMs), String(rounds)]);
  const result = await run(command, args, { timeoutMs: 120_000 });
  if (result.code !== 0) throw new Error(`bench/json-worker.mjs failed (${result.code ?? result.signal}):\n${result.output}`);
  const { writers: measured, bytes } = JSON.parse(result.output.trim().split("\n").pop());
  const base = measured["JSON.stringify"];
  return {
    bytes,
    rows: Object.entries(measured).map(([name, runs]) => ({ name, opsPerSecond: summary(runs), ratio: summary(runs.map((ops, i) => ops / base[i])) })),
  };
}

export async function json({ seconds, rounds, warmup, connections, writerMs, writerRounds }) {
  const env = { FW_SECRET: process.env.FW_SECRET };
  const servers = {};
  try {
    servers.raw = await start("raw (JSON)", join("bench", "servers", "json-peers.mjs"), { ...env, JSON_SIDE: "raw" });
    servers.fastify = await start("Fastify (schema)", join("bench", "servers", "json-peers.mjs"), { ...env, JSON_SIDE: "fastify" });
    servers.fastifyPlain = await start("Fastify (no schema)", join("bench", "servers", "json-peers.mjs"), { ...env, JSON_SIDE: "fastify-plain" });
    servers.fw = await start("fw (JSON app)", JSON_APP_MAIN, env, JSON_APP);
    const rows = [
      { id: "raw", label: "raw node:http, `JSON.stringify`", url: `${servers.raw.url}/api/posts`, server: servers.raw },
      { id: "fastifyPlain", label: "Fastify, no schema (`JSON.stringify`)", url: `${servers.fastifyPlain.url}/api/posts`, server: servers.fastifyPlain },
      { id: "fastify", label: "Fastify, response schema (fast-json-stringify)", url: `${servers.fastify.url}/api/posts`, server: servers.fastify },
      { id: "fwUntyped", label: "fw, handler declared `: Response` (`JSON.stringify`)", url: `${servers.fw.url}/api/posts-untyped`, server: servers.fw },
      { id: "fw", label: "fw, `Json(posts)` typed by the handler's return type (the build's writer: typia's exact check, then JSON.stringify; typia's typed stringify for what is not plain)", url: `${servers.fw.url}/api/posts`, server: servers.fw },
    ];
    for (const row of rows) await wrk({ url: row.url, seconds: warmup, connections, core: LOAD_CORE });
    const facts = await preflight(rows);
    const groups = [{ id: "json", title: `JSON API \`GET /api/posts\` (50 posts, ${facts.bytes} B)`, baseline: "fastify", rows }];
    await measureGroups(groups, { seconds, rounds, warmup, connections, core: LOAD_CORE, what: "json" });
    log(`json: the writers alone, ${writerRounds} rounds of ${writerMs} ms`);
    const alone = await writers(writerMs, writerRounds);
    log(`json: writers: ${alone.rows.map((r) => `${r.name} ${Math.round(r.opsPerSecond.median)}/s (×${r.ratio.median.toFixed(2)})`).join(", ")}`);
    return { groups, facts, writers: alone };
  } finally {
    await Promise.all(Object.values(servers).map((s) => s.stop()));
  }
}
