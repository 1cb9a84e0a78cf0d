// Memory: idle RSS of the built example app (example/dist/main.js, production boot with
// FW_SECRET, on its embedded database), as built and as `fw bundle` bundles it for production (example/dist/bundle/main.js,
// which run.mjs makes), against a raw node:http hello server (and Fastify/Hono for reference), each started
// fresh per round and read after a few requests; then RSS with N idle WebSocket connections to
// a fw `Route.ws` route, against node:http + ws doing nothing else.
import { cpSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { WebSocket } from "../node_modules/ws/wrapper.mjs";
import { postgresSupport } from "./lib/postgres.mjs";
import { freePort, log, ROOT, rssOf, run, sleep, startServer, summary, WORK } from "./lib/util.mjs";

const SERVER_CORE = 0;

async function start(name, script, env = {}, { cwd, timeoutMs } = {}) {
  const port = await freePort();
  const server = await startServer({ name, script: join(ROOT, script), env: { ...env, PORT: String(port) }, core: SERVER_CORE, ...(cwd === undefined ? {} : { cwd }), ...(timeoutMs === undefined ? {} : { timeoutMs }) });
  return { ...server, port, url: `http://127.0.0.1:${port}` };
}

/**
 * The example keeps its data in fw/db: it runs, as `npm start` does, in a folder with its
 * migrations, migrated once by its own `db migrate` — on a throwaway PostgreSQL server when the
 * machine has one (the app process then holds fw and the `pg` client: the framework's own cost,
 * which the 1.15× target is about), and on the embedded engine (the default a user gets, PGlite
 * in the process: reported beside it, no target).
 */
async function exampleFolder(name, env) {
  const cwd = join(WORK, `memory-example-${name}`);
  rmSync(cwd, { recursive: true, force: true });
  mkdirSync(cwd, { recursive: true });
  cpSync(join(ROOT, "example", "db", "migrations"), join(cwd, "db", "migrations"), { recursive: true });
  const migrated = await run(process.execPath, [join(ROOT, "example", "dist", "main.js"), "db", "migrate"], { cwd, env, timeoutMs: 180_000 });
  if (migrated.code !== 0) throw new Error(`the example's db migrate failed:\n${migrated.output}`);
  return cwd;
}

/**
 * The example's environment in its folder: production (no `dev` argument) refuses to boot without
 * being told where fw/files keeps its covers and attachments (issue 40), so FW_STORAGE names a
 * folder of its own beside its database, as live-fanout.mjs does.
 */
function exampleEnv(env, cwd) {
  return { ...env, FW_STORAGE: pathToFileURL(join(cwd, "files")).href };
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
  // The like-for-like baseline of the PostgreSQL rows: raw node:http with the pg pool fw/db holds.
  { id: "rawPg", label: "raw node:http hello with fw/db's pg pool (10 connections at most, one query per request), on PostgreSQL", script: "bench/servers/hello-pg.mjs", database: "postgres" },
  { id: "fw", label: "fw example app, as built (`example/dist/main.js`), on PostgreSQL", script: "example/dist/main.js", database: "postgres" },
  { id: "fwBundle", label: "fw example app, production bundle (`fw bundle` → `example/dist/bundle/main.js`), on PostgreSQL", script: "example/dist/bundle/main.js", database: "postgres" },
  { id: "fwPglite", label: "fw example app, production bundle, on its embedded database (PGlite, the default)", script: "example/dist/bundle/main.js", database: "pglite" },
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
  const server = await start(label, script, { FW_SECRET: process.env.FW_SECRET, FW_ALLOWED_HOSTS: "127.0.0.1,localhost", FW_ORIGIN: "http://localhost", FW_MAILBOX: ".fw/bench-mail" });
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
  const env = { FW_SECRET: process.env.FW_SECRET, FW_ALLOWED_HOSTS: "127.0.0.1,localhost", FW_ORIGIN: "http://localhost", FW_MAILBOX: ".fw/bench-mail", DATABASE_URL: "" };
  const support = await postgresSupport();
  const bin = support.postgresBin();
  if (bin === undefined) log("memory: PostgreSQL not found (no /usr/lib/postgresql/*/bin/initdb, PG_BIN unset): the example runs on its embedded database alone.");
  const cluster = bin === undefined ? undefined : await support.startCluster(bin);
  let rows;
  try {
    const pgliteCwd = await exampleFolder("pglite", env);
    const databases = { pglite: { env: exampleEnv(env, pgliteCwd), cwd: pgliteCwd } };
    if (cluster !== undefined) {
      const pg = { ...env, DATABASE_URL: cluster.url };
      const cwd = await exampleFolder("postgres", pg);
      databases.postgres = { env: exampleEnv(pg, cwd), cwd };
    }
    const specs = IDLE.filter((spec) => spec.database === undefined || databases[spec.database] !== undefined);
    const idle = Object.fromEntries(specs.map((s) => [s.id, []]));
    for (let round = 0; round < rounds; round++) {
      for (const spec of specs) {
        const database = spec.database === undefined ? undefined : databases[spec.database];
        const server = await start(spec.label, spec.script, database?.env ?? env, database === undefined ? {} : { cwd: database.cwd, timeoutMs: 120_000 });
        try {
          idle[spec.id].push(await idleRss(server));
        } finally {
          await server.stop();
        }
      }
      log(`memory: idle round ${round + 1}/${rounds}: ${specs.map((s) => `${s.id} ${(idle[s.id][round] / 1048576).toFixed(1)} MB`).join(", ")}`);
    }
    rows = specs.map((spec) => ({ ...spec, rss: summary(idle[spec.id]) }));
    const rawPg = rows.find((row) => row.id === "rawPg");
    for (const row of rows) {
      row.ratio = row.rss.median / rows[0].rss.median;
      // The rows on PostgreSQL against raw node:http holding the same pg pool (issue 30 item 8).
      if (rawPg !== undefined && row.database === "postgres") row.ratioToPg = row.rss.median / rawPg.rss.median;
    }
  } finally {
    await cluster?.destroy();
  }

  log(`memory: ${wsConnections} idle WebSockets`);
  const ws = [
    { id: "fw", label: "fw `Route.ws`", ...(await wsRss("fw ws", join("bench", "servers", "fw-ws.mjs"), wsConnections)) },
    { id: "ws", label: "node:http + ws (reference)", ...(await wsRss("raw ws", join("bench", "servers", "ws-raw.mjs"), wsConnections)) },
  ];
  return { idle: rows, ws, wsConnections };
}
