// The db part (issue 20): fw/db's pages and store against a hand-written peer.
//  - Show (one row by key) and Index (50 rows of 60, a pager) of a table model's derived pages,
//    through a layout with a session cookie: fw (bench/servers/db-app, on DbApp, migrated) on
//    PostgreSQL and on PGlite, against Fastify + pg running the same SQL and building the same
//    bytes by hand (bench/servers/db-fastify.mjs). wrk as the throughput part: servers pinned to
//    core 0, wrk to core 1 (and PostgreSQL, a throwaway cluster, to core 1 too), rounds interleaved.
//  - SqlStore insert and read-by-key ops/s on each engine (bench/db-worker.mjs), one operation at
//    a time and 10 in flight.
//  - Idle RSS and boot time of an app on the embedded engine, and PGlite's cold start (first open
//    of an empty directory, then a reopen).
// Without PostgreSQL on the machine it says so in one line and runs the PGlite rows alone.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { bigTables } from "./big-tables.mjs";
import { idleRss } from "./memory.mjs";
import { DB_APP_MAIN } from "./lib/db-app.mjs";
import { postgresSupport } from "./lib/postgres.mjs";
import { measureGroups } from "./lib/rounds.mjs";
import { csrfOf, signIn } from "./lib/sides.mjs";
import { freePort, log, pinned, ROOT, run, startServer, summary, WORK } from "./lib/util.mjs";
import { wrk } from "./lib/wrk.mjs";

const SERVER_CORE = 0;
const LOAD_CORE = 1;
const RUN_DIR = join(WORK, "db-run");
const SHOW_PATH = "/posts/7";
const INDEX_PATH = "/posts";
/** The rows `db seed` writes (bench/servers/db-app/src/seed.ts). */
const SEEDED = 60;

function check(condition, message) {
  if (!condition) throw new Error(`db preflight: ${message}`);
}

/** Runs one command of an app (`db new …`, `db migrate`, `db seed`) in `cwd`; throws with its output when it fails. */
async function appCommand(script, args, cwd, env) {
  const result = await run(process.execPath, [script, ...args], { cwd, env, timeoutMs: 180_000 });
  if (result.code !== 0) throw new Error(`node ${script} ${args.join(" ")} failed (${result.code ?? result.signal}):\n${result.output}`);
  return result;
}

/**
 * A working directory for the bench app on one engine, its table created by the app's own
 * commands: `db new` writes the migration from the model, `db migrate` applies it, `db seed`
 * writes the rows. On PGlite the database is `.fw/db` under it.
 */
export async function prepareApp(name, env) {
  const cwd = join(RUN_DIR, name);
  rmSync(cwd, { recursive: true, force: true });
  mkdirSync(cwd, { recursive: true });
  for (const args of [["db", "new", "create_posts"], ["db", "migrate"], ["db", "seed"]]) await appCommand(DB_APP_MAIN, args, cwd, env);
  return cwd;
}

async function start(name, script, { env, cwd, timeoutMs = 30_000 }) {
  const port = await freePort();
  const t0 = performance.now();
  const server = await startServer({ name, script, env: { ...env, PORT: String(port) }, core: SERVER_CORE, cwd, timeoutMs });
  return { ...server, port, url: `http://127.0.0.1:${port}`, bootMs: performance.now() - t0 };
}

/**
 * Pins the cluster's postmaster and the processes it has forked to the load core: the backends
 * it forks later inherit it, so the server under test has its core alone.
 */
function pinPostgres(url) {
  const port = new URL(url).port;
  const all = readdirSync("/proc").filter((p) => /^\d+$/.test(p));
  const cmd = (pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    } catch {
      return [];
    }
  };
  const postmaster = all.find((pid) => {
    const argv = cmd(pid);
    return /postgres$/.test(argv[0] ?? "") && argv.includes("-p") && argv[argv.indexOf("-p") + 1] === port;
  });
  if (postmaster === undefined) return false;
  const children = all.filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")[1] === postmaster;
    } catch {
      return false;
    }
  });
  for (const pid of [postmaster, ...children]) spawnSync("taskset", ["-p", "-c", String(LOAD_CORE), pid], { stdio: "ignore" });
  return true;
}

/** The bytes of an answer's head as sent (status line, headers) and of its body. */
function sizes(res, body) {
  let head = `HTTP/1.1 ${res.status} ${res.statusText}\r\n`.length + 2;
  for (const [name, value] of res.headers) head += name.length + 2 + Buffer.byteLength(value) + 2;
  return { head, body: Buffer.byteLength(body) };
}

/** Each side's Show and Index, checked alike before any load: status, rows, session, and the same bytes as the first side. */
async function preflight(sides, cookie, csrf) {
  const facts = {};
  for (const [path, what] of [[SHOW_PATH, "show"], [INDEX_PATH, "index"]]) {
    let reference;
    for (const side of sides) {
      const res = await fetch(`${side.server.url}${path}`, { headers: { cookie } });
      const html = await res.text();
      check(res.status === 200, `${side.id} GET ${path} answered ${res.status}: ${html.slice(0, 300)}`);
      check(html.includes("Signed in as ada"), `${side.id} GET ${path} lacks the session's user`);
      check(res.headers.get("set-cookie") === null, `${side.id} GET ${path} should not set a cookie`);
      if (what === "show") {
        check(html.includes('href="/posts/7/delete"'), `${side.id} Show lacks its Delete link (the confirm page)`);
        check(html.includes("Post #7: &quot;Fair&quot; benchmarks &amp; &lt;other&gt; stories"), `${side.id} Show lacks row 7's title, escaped`);
      } else {
        const rows = (html.match(/<a href="\/posts\/\d+">Show<\/a>/g) ?? []).length;
        check(rows === 50, `${side.id} Index should list 50 rows (a page), not ${rows}`);
        check(html.includes(`Page 1 of ${Math.ceil(SEEDED / 50)}`), `${side.id} Index lacks its pager`);
      }
      if (reference === undefined) reference = { id: side.id, html };
      else if (html !== reference.html) {
        let at = 0;
        while (html[at] === reference.html[at]) at++;
        throw new Error(`db preflight: ${side.id}'s ${path} differs from ${reference.id}'s at byte ${at}:\n  ${reference.id}: ${reference.html.slice(at - 40, at + 60)}\n  ${side.id}: ${html.slice(at - 40, at + 60)}`);
      }
      facts[what] ??= {};
      facts[what][side.id] = sizes(res, html);
    }
  }
  return facts;
}

/** The store ops of one engine, in a process pinned to the server core. */
async function storeOps(target, ms) {
  const { command, args } = pinned(SERVER_CORE, process.execPath, [join("bench", "db-worker.mjs"), "store", target, String(ms)]);
  const result = await run(command, args, { timeoutMs: 120_000 });
  if (result.code !== 0) throw new Error(`bench/db-worker.mjs store failed (${result.code ?? result.signal}):\n${result.output}`);
  return JSON.parse(result.output.trim().split("\n").pop());
}

/** PGlite's open of `dir` (empty: the first open, from fw's template), timed in a fresh pinned process; relaxed as dev opens it, or durable. */
async function pgliteOpen(dir, durability = "relaxed") {
  const { command, args } = pinned(SERVER_CORE, process.execPath, [join("bench", "db-worker.mjs"), "open", dir, durability]);
  const result = await run(command, args, { timeoutMs: 180_000 });
  if (result.code !== 0) throw new Error(`bench/db-worker.mjs open failed (${result.code ?? result.signal}):\n${result.output}`);
  return JSON.parse(result.output.trim().split("\n").pop());
}

/**
 * Apps measured at rest on the embedded engine: started fresh in their working directory
 * (migrated before), sent a few requests, RSS read after they settle, and the time from spawn to
 * "serving" (the engine's reopen included). The example joins once its main is on DbApp: started
 * with a temp working directory, its migrations copied in and applied by its own `db migrate`.
 */
function embeddedApps(pgliteCwd) {
  const apps = [{ id: "benchApp", label: "the bench's fw app (`DbApp`, one table model)", script: DB_APP_MAIN, cwd: () => pgliteCwd, paths: ["/login", INDEX_PATH, SHOW_PATH] }];
  const example = join(ROOT, "example", "dist", "main.js");
  if (existsSync(example) && readFileSync(example, "utf8").includes("DbApp")) {
    apps.push({
      id: "example",
      label: "the example (`example/dist/main.js`)",
      script: example,
      cwd: async (env) => {
        const cwd = join(RUN_DIR, "example");
        rmSync(cwd, { recursive: true, force: true });
        mkdirSync(cwd, { recursive: true });
        const migrations = join(ROOT, "example", "db", "migrations");
        if (existsSync(migrations)) cpSync(migrations, join(cwd, "db", "migrations"), { recursive: true });
        await appCommand(example, ["db", "migrate"], cwd, env);
        return cwd;
      },
      paths: ["/", "/posts"],
    });
  }
  return apps;
}

export async function db({ seconds, rounds, warmup, connections, storeMs, rssRounds, coldRounds }) {
  const env = { FW_SECRET: process.env.FW_SECRET, FW_ALLOWED_HOSTS: "127.0.0.1,localhost", FW_ORIGIN: "http://localhost", FW_MAILBOX: ".fw/bench-mail" };
  const embedded = { ...env, DATABASE_URL: "" };
  const servers = {};
  let cluster;
  const results = { postgres: undefined, errors: [] };
  mkdirSync(RUN_DIR, { recursive: true });
  try {
    const support = await postgresSupport();
    const bin = support.postgresBin();
    if (bin === undefined) {
      log("db: PostgreSQL not found (no /usr/lib/postgresql/*/bin/initdb, PG_BIN unset): the PostgreSQL and Fastify + pg rows are skipped; PGlite runs.");
      results.postgres = "not found";
    } else {
      cluster = await support.startCluster(bin);
      results.postgres = `${bin} (a throwaway cluster: fsync off, max_connections 40${pinPostgres(cluster.url) ? `, pinned to core ${LOAD_CORE}` : ""})`;
      log(`db: PostgreSQL cluster at ${cluster.url}`);
    }
    const pg = cluster === undefined ? undefined : { ...env, DATABASE_URL: cluster.url };

    log("db: preparing the app's databases (db new, db migrate, db seed)");
    const pgCwd = pg === undefined ? undefined : await prepareApp("postgres", pg);
    const pgliteCwd = await prepareApp("pglite", embedded);

    if (pg !== undefined) {
      servers.fastify = await start("Fastify + pg", join(ROOT, "bench", "servers", "db-fastify.mjs"), { env: pg });
      servers.fwPg = await start("fw on PostgreSQL", DB_APP_MAIN, { env: pg, cwd: pgCwd });
    }
    servers.fwPglite = await start("fw on PGlite", DB_APP_MAIN, { env: embedded, cwd: pgliteCwd, timeoutMs: 120_000 });
    // The session every request sends: signed by fw ("ada" signed in, a CSRF token); the peer checks it by hand.
    const cookie = await signIn(servers.fwPg?.url ?? servers.fwPglite.url);
    const csrf = csrfOf(cookie);
    const headers = [`Cookie: ${cookie}`];
    // Every server serves load first, as in the throughput part (FINDINGS 14).
    for (const server of Object.values(servers)) {
      for (const path of [SHOW_PATH, INDEX_PATH]) await wrk({ url: `${server.url}${path}`, seconds: warmup, connections, core: LOAD_CORE, headers });
    }
    const sides = [
      ...(pg === undefined ? [] : [
        { id: "fastify", label: "Fastify + pg (same SQL, HTML by hand)", server: servers.fastify },
        { id: "fwPg", label: "fw on PostgreSQL (pg, pool of 10)", server: servers.fwPg, target: 0.95 },
      ]),
      { id: "fwPglite", label: "fw on PGlite (embedded, in the server's process)", server: servers.fwPglite },
    ];
    results.facts = await preflight(sides, cookie, csrf);
    results.facts.cookieBytes = cookie.length;
    const groups = [
      { id: "show", title: `Show \`GET ${SHOW_PATH}\` (one row by key)`, path: SHOW_PATH },
      { id: "index", title: `Index \`GET ${INDEX_PATH}\` (50 rows of ${SEEDED}, a pager)`, path: INDEX_PATH },
    ].map((g) => ({
      ...g,
      baseline: pg === undefined ? undefined : "fastify",
      rows: sides.map((side) => ({ id: side.id, label: side.label, target: side.target, url: `${side.server.url}${g.path}`, server: side.server, headers })),
    }));
    await measureGroups(groups, { seconds, rounds, warmup, connections, core: LOAD_CORE, what: "db" });
    for (const group of groups) {
      // The embedded engine against the same app on PostgreSQL, paired round by round (issue 30).
      const embeddedRow = group.rows.find((row) => row.id === "fwPglite");
      const onPostgres = group.rows.find((row) => row.id === "fwPg");
      if (embeddedRow !== undefined && onPostgres !== undefined) group.pgliteToPostgres = { rps: summary(embeddedRow.runs.map((run, i) => run.rps / onPostgres.runs[i].rps)) };
    }
    results.groups = groups;
    results.boot = Object.fromEntries(Object.entries(servers).map(([id, s]) => [id, s.bootMs]));
    await Promise.all(Object.values(servers).map((s) => s.stop()));
    for (const key of Object.keys(servers)) delete servers[key];

    // Issue 30 item 9: the example's Index and Show at 1,000 and 1,000,000 posts (bench/big-tables.mjs).
    // 10 connections: a page of PGlite's takes tens of ms, and 50 queued on it time out a 2 s round.
    try {
      results.bigTables = await bigTables({ seconds, rounds: Math.min(rounds, 3), warmup, connections: 10, clusterUrl: cluster?.url });
    } catch (error) {
      log(`db: big tables not measured: ${error.stack ?? error}`);
      results.errors.push(`big tables: ${String(error.message ?? error).split("\n")[0]}`);
    }

    log(`db: store ops (${storeMs} ms per operation kind)`);
    const targets = [...(pg === undefined ? [] : [["postgres", cluster.url]]), ["pglite", join(RUN_DIR, "store-pglite")]];
    const store = Object.fromEntries(targets.map(([id]) => [id, []]));
    rmSync(join(RUN_DIR, "store-pglite"), { recursive: true, force: true });
    for (let round = 0; round < rssRounds; round++) {
      for (const [id, target] of targets) store[id].push(await storeOps(target, storeMs));
      log(`  round ${round + 1}/${rssRounds}: ${targets.map(([id]) => `${id} ${Object.entries(store[id][round]).filter(([k]) => /^(insert|read)/.test(k)).map(([k, v]) => `${k} ${Math.round(v)}`).join(" ")}`).join("; ")}`);
    }
    const kinds = ["insertSequential", "insertConcurrent", "readSequential", "readConcurrent"];
    results.store = Object.fromEntries(Object.entries(store).map(([id, runs]) => [id, Object.fromEntries(kinds.map((k) => [k, summary(runs.map((r) => r[k]))]))]));
    results.storeCpu = Object.fromEntries(Object.entries(store).map(([id, runs]) => [id, Object.fromEntries(kinds.map((k) => [k, summary(runs.map((r) => r.cpuUs[k]))]))]));
    results.storeConcurrency = store.pglite[0].concurrency;

    log("db: PGlite cold start (first open of an empty directory, then a reopen)");
    const cold = { first: [], reopen: [], firstDurable: [] };
    for (let round = 0; round < coldRounds; round++) {
      const dir = join(RUN_DIR, `cold-${round}`);
      rmSync(dir, { recursive: true, force: true });
      cold.first.push((await pgliteOpen(dir)).openMs);
      cold.reopen.push((await pgliteOpen(dir)).openMs);
      rmSync(dir, { recursive: true, force: true });
      // Production's first start: the copy synced to disk (issue 28's durability).
      cold.firstDurable.push((await pgliteOpen(dir, "durable")).openMs);
      rmSync(dir, { recursive: true, force: true });
      log(`  round ${round + 1}/${coldRounds}: first open ${Math.round(cold.first[round])} ms, reopen ${Math.round(cold.reopen[round])} ms, durable first open ${Math.round(cold.firstDurable[round])} ms`);
    }
    results.cold = { first: summary(cold.first), reopen: summary(cold.reopen), firstDurable: summary(cold.firstDurable) };

    log("db: idle RSS and boot time on the embedded engine");
    const apps = embeddedApps(pgliteCwd);
    const rss = Object.fromEntries(apps.map((a) => [a.id, { rss: [], boot: [] }]));
    const references = [
      { id: "hello", label: "raw node:http hello (reference)", script: join(ROOT, "bench", "servers", "hello.mjs"), env, paths: ["/"] },
      ...(pg === undefined ? [] : [{ id: "benchAppPg", label: "the bench's fw app on PostgreSQL (reference: no engine in the process)", script: DB_APP_MAIN, env: pg, cwd: pgCwd, paths: ["/login", INDEX_PATH, SHOW_PATH] }]),
    ];
    for (const ref of references) rss[ref.id] = { rss: [], boot: [] };
    for (let round = 0; round < rssRounds; round++) {
      for (const app of [...apps.map((a) => ({ ...a, env: embedded })), ...references]) {
        try {
          const cwd = typeof app.cwd === "function" ? await app.cwd(app.env) : app.cwd;
          const server = await start(app.label, app.script, { env: app.env, cwd, timeoutMs: 120_000 });
          try {
            rss[app.id].rss.push(await idleRss(server, app.paths));
            rss[app.id].boot.push(server.bootMs);
          } finally {
            await server.stop();
          }
        } catch (error) {
          log(`db: ${app.id} not measured: ${String(error.message ?? error).split("\n")[0]}`);
          results.errors.push(`${app.id}: ${String(error.message ?? error).split("\n")[0]}`);
        }
      }
    }
    results.idle = [...apps, ...references]
      .filter((a) => rss[a.id].rss.length > 0)
      .map((a) => ({ id: a.id, label: a.label, rss: summary(rss[a.id].rss), boot: summary(rss[a.id].boot) }));
    return results;
  } finally {
    await Promise.all(Object.values(servers).map((s) => s.stop()));
    await cluster?.destroy();
  }
}
