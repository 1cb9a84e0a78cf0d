// Memory: idle RSS of the built example app (example/dist/main.js, production boot with
// FW_SECRET), as built and as `fw bundle` bundles it for production (example/dist/bundle/main.js,
// which run.mjs makes), against a raw node:http hello server (and Fastify/Hono for reference), each started
// fresh per round and read after a few requests; then RSS with N idle WebSocket connections to
// a fw `Route.ws` route, against node:http + ws doing nothing else.
import { join } from "node:path";
import { WebSocket } from "../node_modules/ws/wrapper.mjs";
import { freePort, log, rssOf, sleep, startServer, summary } from "./lib/util.mjs";

const SERVER_CORE = 0;

async function start(name, script, env = {}) {
  const port = await freePort();
  const server = await startServer({ name, script, env: { ...env, PORT: String(port) }, core: SERVER_CORE });
  return { ...server, port, url: `http://127.0.0.1:${port}` };
}

/** A few requests to `paths` in turn (a first visit, then the same browser again), then a settled RSS reading. */
export async function idleRss(server, paths = ["/"]) {
  let cookie;
  for (let i = 0; i < 5; i++) {
    const path = paths[i % paths.length];
    const res = await fetch(`${server.url}${path}`, { headers: cookie === undefined ? {} : { cookie } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${server.name}: GET ${path} answered ${res.status}`);
    cookie ??= res.headers.get("set-cookie")?.split(";")[0];
  }
  await sleep(1000);
  // the lowest of a few readings a moment apart: RSS after the allocator settled
  const readings = [];
  for (let i = 0; i < 3; i++) {
    readings.push(rssOf(server.pid));
    await sleep(200);
  }
  return Math.min(...readings);
}

const IDLE = [
  { id: "raw", label: "raw node:http hello", script: "bench/servers/hello.mjs" },
  { id: "fw", label: "fw example app, as built (`example/dist/main.js`)", script: "example/dist/main.js" },
  { id: "fwBundle", label: "fw example app, production bundle (`fw bundle` → `example/dist/bundle/main.js`)", script: "example/dist/bundle/main.js", target: 1.15 },
  { id: "fastify", label: "Fastify (bench server)", script: "bench/servers/fastify.mjs" },
  { id: "hono", label: "Hono (bench server)", script: "bench/servers/hono.mjs" },
];

function openClients(url, origin, count, timeoutMs) {
  const sockets = [];
  let started = 0;
  let opened = 0;
  return new Promise((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`only ${opened}/${count} WebSockets opened within ${timeoutMs} ms`)), timeoutMs);
    const launch = () => {
      if (started >= count) return;
      started++;
      const socket = new WebSocket(url, { origin, perMessageDeflate: false });
      sockets.push(socket);
      socket.once("open", () => {
        opened++;
        if (opened === count) {
          clearTimeout(timer);
          done(sockets);
        } else launch();
      });
      socket.once("unexpected-response", (_req, res) => fail(new Error(`WebSocket handshake answered ${res.statusCode}`)));
      socket.once("error", (error) => fail(error));
    };
    // 50 handshakes in flight at a time
    for (let i = 0; i < Math.min(50, count); i++) launch();
  });
}

async function wsRss(label, script, count) {
  const server = await start(label, script, { FW_SECRET: process.env.FW_SECRET });
  try {
    const url = `ws://127.0.0.1:${server.port}/ws`;
    // One socket first: fw loads the ws package on the first handshake, which is a one-off cost,
    // not a per-connection one; "before" is read with that socket open, for both servers.
    const first = await openClients(url, `http://127.0.0.1:${server.port}`, 1, 10_000);
    const before = await idleRss(server);
    const sockets = [...first, ...(await openClients(url, `http://127.0.0.1:${server.port}`, count - 1, 60_000))];
    await sleep(1500);
    const after = Math.min(rssOf(server.pid), (await sleep(200), rssOf(server.pid)));
    for (const socket of sockets) socket.terminate();
    return { before, after, perConnection: (after - before) / count };
  } finally {
    await server.stop();
  }
}

export async function memory({ rounds, wsConnections }) {
  const env = { FW_SECRET: process.env.FW_SECRET };
  const idle = Object.fromEntries(IDLE.map((s) => [s.id, []]));
  for (let round = 0; round < rounds; round++) {
    for (const spec of IDLE) {
      const server = await start(spec.label, spec.script, env);
      try {
        idle[spec.id].push(await idleRss(server));
      } finally {
        await server.stop();
      }
    }
    log(`memory: idle round ${round + 1}/${rounds}: ${IDLE.map((s) => `${s.id} ${(idle[s.id][round] / 1048576).toFixed(1)} MB`).join(", ")}`);
  }
  const rows = IDLE.map((spec) => ({ ...spec, rss: summary(idle[spec.id]) }));
  for (const row of rows) row.ratio = row.rss.median / rows[0].rss.median;

  log(`memory: ${wsConnections} idle WebSockets`);
  const ws = [
    { id: "fw", label: "fw `Route.ws`", ...(await wsRss("fw ws", join("bench", "servers", "fw-ws.mjs"), wsConnections)) },
    { id: "ws", label: "node:http + ws (reference)", ...(await wsRss("raw ws", join("bench", "servers", "ws-raw.mjs"), wsConnections)) },
  ];
  return { idle: rows, ws, wsConnections };
}
