#!/usr/bin/env node
// Instructions per request, counted by valgrind: the A/B that does not drift with this shared
// machine's load. Each side's server runs under cachegrind twice, serving WARM requests and then
// WARM + N, one after another on one keep-alive connection; the difference of the two totals over
// N is what a warmed-up request costs the server, in instructions (user space: the kernel's share
// is not counted). Most repeated runs of one side agree within about 1 %; some land 2-4 % off, so
// compare small changes over several runs per side (README.md).
//
//   node bench/instructions.mjs raw fw                  text (GET / as Route.api), 20,000 requests
//   node bench/instructions.mjs raw fw@before fw --scenario=text-browser
//   node bench/instructions.mjs raw fw --by-function    where they differ, by JS function (callgrind)
//   node bench/instructions.mjs raw fw --mixed          each server first serves what npm run bench has it
//                                                       serve before its text group (other routes; see mix());
//                                                       on a db scenario, every page of the db part in turn
//   node bench/instructions.mjs fw@before fw --connections=50
//                                                       the requests over 50 connections at once (as wrk -c50
//                                                       sends them): what concurrency adds (live objects at a
//                                                       scavenge, several requests a turn) is counted too
//   node bench/instructions.mjs raw fw --cache          also simulates the caches and branch predictor: misses
//                                                       and mispredictions per request, and the cycles they cost
//   node bench/instructions.mjs fastify fw --scenario=db-posts
//                                                       the db part's pages (db-show, db-index, db-post, db-posts):
//                                                       Fastify + pg (bench/servers/db-fastify.mjs) against fw's db
//                                                       app (built first), on a throwaway PostgreSQL cluster,
//                                                       2,000 requests after 1,000; a side may also be the path of
//                                                       a built copy of the db app's main.js (a before/after A/B)
//   node bench/instructions.mjs fw@before fw --scenario=db-drafts
//                                                       the policy rows (db-memos under `owned`, db-drafts under the
//                                                       policy: bench/db-policy.mjs) on the policy app, ada signed in;
//                                                       sides fw, fw@<snapshot> (its copy of the policy app) or a main.js
//   node bench/instructions.mjs fw:/memos fw:/drafts --scenario=db-memos --by-function
//                                                       a side ending in `:/path` serves that path instead of the
//                                                       scenario's: two pages of one build compared function by function
//
// Sides as in bench/ab.mjs: raw, fw (the current build), fw@<snapshot>. valgrind is installed with
// apt-get when missing. --single-threaded keeps V8's compiler and GC on the counted thread, so
// their work is counted too and the runs repeat. A side takes about a minute (both of its runs in
// parallel); --by-function (callgrind, with node's --perf-basic-prof naming the JIT code) twice that.
//
// What a count is not: cache misses and branch mispredictions cost time and no instructions, so a
// change that allocates less can be faster by more than its count says. --cache counts them too
// (valgrind's model of this machine's caches and a branch predictor; little slower), and weighs
// them into estimated cycles (CYCLES below). FINDINGS.md 15 is what this found first, 17 what
// --cache found.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildBenchPages } from "./lib/bench-pages.mjs";
import { pathToFileURL } from "node:url";
import { csrfOf, scriptOf, signIn, SNAPSHOTS } from "./lib/sides.mjs";
import { ensureDebianTool, freePort, ROOT, startServer } from "./lib/util.mjs";
import { buildDbApp, DB_APP_MAIN, POLICY_APP_MAIN } from "./lib/db-app.mjs";
import { POLICY_PAGES, policySignIn } from "./db-policy.mjs";
import { postgresSupport } from "./lib/postgres.mjs";
import { DB_PAGE_PATHS, prepareApp } from "./db.mjs";

const WARM = 5000;
const ROOT_URL = `${pathToFileURL(ROOT).href}/`;
const SNAPSHOT_URL = new RegExp(`${pathToFileURL(SNAPSHOTS).href.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/[^/]+/`);
const SCENARIOS = {
  text: { path: "/", env: { FW_TEXT_ROUTE: "api" } },
  "text-browser": { path: "/", env: { FW_TEXT_ROUTE: "browser" }, cookie: true },
  page: { path: "/posts/7", cookie: true },
  // the db part's pages (bench/db.mjs), served from PostgreSQL: sides fastify and fw (or a db app's main.js)
  "db-show": { path: "/articles/7", cookie: true, db: true },
  "db-index": { path: "/articles", cookie: true, db: true },
  "db-post": { path: "/posts/7", cookie: true, db: true },
  "db-posts": { path: "/posts", cookie: true, db: true },
  // the policy rows (bench/db-policy.mjs): the policy app's Index under `owned` and under its policy
  "db-memos": { path: "/memos", cookie: true, db: true, policy: true },
  "db-drafts": { path: "/drafts", cookie: true, db: true, policy: true },
};
/** A db page costs 20-100× a text request under valgrind: fewer of them, after fewer. */
const DB_WARM = 1000;
const DB_REQUESTS = 2000;
/** --mixed on a db scenario: rounds of every db page (six) served before the counted requests. */
const DB_MIX_ROUNDS = 200;
const USAGE = `usage: node bench/instructions.mjs <raw|fw|fw@name|fastify (db scenarios)>... [--scenario=${Object.keys(SCENARIOS).join("|")}] [--requests=20000] [--warm=5000] [--by-function] [--mixed] [--cache] [--connections=1] [--top=30]`;
/** Below this many counted requests, the difference of a side's two runs is mostly JIT and GC noise. */
const FEWEST_REQUESTS = 10_000;

/**
 * Estimated cycles, with --cache: an instruction is one cycle, a first-level miss (instruction or
 * data) that the last level serves ten, a last-level miss a hundred, a mispredicted branch fifteen.
 * The weights are the usual textbook ones, not measured here: they rank where time goes, they do
 * not predict req/s.
 */
const CYCLES = { Ir: 1, I1mr: 10, D1mr: 10, D1mw: 10, ILmr: 100, DLmr: 100, DLmw: 100, Bcm: 15, Bim: 15 };
/** The --cache figures printed per side: [label, events summed]. */
const CACHE_COLUMNS = [
  ["instructions", ["Ir"]],
  ["I1 misses", ["I1mr"]],
  ["D1 misses", ["D1mr", "D1mw"]],
  ["LL misses", ["ILmr", "DLmr", "DLmw"]],
  ["mispredicted", ["Bcm", "Bim"]],
];
const cyclesOf = (events) => Object.entries(CYCLES).reduce((sum, [event, weight]) => sum + weight * (events[event] ?? 0), 0);

/**
 * Sends `count` GETs over `connections` keep-alive connections (one, by default), each sending its
 * next request when its answer is in, as wrk does; resolves when all are answered.
 */
function requests(port, path, cookie, count, connections = 1) {
  const each = Math.floor(count / connections);
  return Promise.all(Array.from({ length: connections }, (_, i) => sequence(port, path, cookie, i === 0 ? count - each * (connections - 1) : each)));
}

/** Sends `count` GETs one after another on one keep-alive connection; resolves when all are answered. */
function sequence(port, path, cookie, count) {
  const request = Buffer.from(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${cookie === undefined ? "" : `Cookie: ${cookie}\r\n`}\r\n`);
  return new Promise((done, fail) => {
    const socket = connect(port, "127.0.0.1");
    let left = count;
    let buffer = "";
    socket.on("error", fail);
    socket.on("connect", () => socket.write(request));
    socket.on("data", (chunk) => {
      buffer += chunk.toString("latin1");
      const end = buffer.indexOf("\r\n\r\n");
      if (end === -1) return;
      const head = buffer.slice(0, end);
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? NaN);
      if (!head.startsWith("HTTP/1.1 200 ") || Number.isNaN(length)) {
        socket.destroy();
        fail(new Error(`unexpected answer to GET ${path}: ${head.split("\r\n")[0]}`));
        return;
      }
      if (buffer.length < end + 4 + length) return;
      buffer = buffer.slice(end + 4 + length);
      if (--left > 0) socket.write(request);
      else socket.end(done);
    });
  });
}

/**
 * What `npm run bench` has a server serve before its text group (--mixed): fw's signs in and
 * serves pages, the Index, a 404, a 405 and a form POST; raw serves its page (with `cookie`, fw's)
 * and a 404. Shared dispatch code then carries the feedback of many routes, as in a real server,
 * where a process that served `GET /` alone keeps it monomorphic. Served in both runs of a side,
 * so it cancels out.
 */
async function mix(side, base, cookie, database) {
  const send = async (path, init) => void (await (await fetch(`${base}${path}`, { redirect: "manual", ...init })).arrayBuffer());
  const ROUNDS = 300;
  if (database !== undefined) {
    // A db side serves every page of the db part in turn, as its server does in npm run bench
    // (one process warms and measures them all): shared code carries every page's feedback.
    // (the policy app: its two pages, as the bench's one policy server serves them).
    const paths = database.policy ? POLICY_PAGES.map((page) => page.path) : DB_PAGE_PATHS;
    for (let i = 0; i < DB_MIX_ROUNDS; i++) for (const path of paths) await send(path, { headers: { cookie } });
    return;
  }
  if (side === "raw") {
    for (let i = 0; i < ROUNDS; i++) {
      await send("/posts/7", { headers: { cookie } });
      await send("/nothing/here");
    }
    return;
  }
  const cookies = [];
  for (let i = 0; i < ROUNDS; i++) cookies.push(await signIn(base));
  const mine = cookies[0];
  const body = `_csrf=${encodeURIComponent(csrfOf(mine))}&text=hi`;
  for (let i = 0; i < ROUNDS; i++) {
    await send("/posts/7", { headers: { cookie: cookies[i] } });
    await send("/tasks", { headers: { cookie: mine } });
    await send("/nothing/here", { headers: { cookie: mine } });
    await send("/posts/7", { method: "DELETE", headers: { cookie: mine } });
    await send("/posts/7/comments", { method: "POST", headers: { cookie: mine, "content-type": "application/x-www-form-urlencoded" }, body });
  }
}

/**
 * One counted run: the server under valgrind serves `count` requests (after the mix, when
 * `run.mixCookie` is given), then stops; resolves with the tool's output file.
 */
async function countedRun(named, run, count) {
  const { scenario, cookie, byFunction, cache, mixCookie, database } = run;
  const { side, path } = pathOf(named, scenario);
  const out = join(tmpdir(), `fw-instructions-${process.pid}-${randomBytes(4).toString("hex")}`);
  const simulation = [`--cache-sim=${cache ? "yes" : "no"}`, `--branch-sim=${cache ? "yes" : "no"}`];
  const tool = byFunction
    ? ["--tool=callgrind", "--dump-instr=yes", "--compress-pos=no", "--compress-strings=no", ...simulation, `--callgrind-out-file=${out}`]
    : ["--tool=cachegrind", ...simulation, `--cachegrind-out-file=${out}`];
  const port = await freePort();
  const server = await startServer({
    name: side,
    script: database === undefined ? scriptOf(side) : dbScriptOf(side, database.policy),
    env: { ...scenario.env, ...database?.env, PORT: String(port) },
    ...(database === undefined ? {} : { cwd: database.cwd }),
    launcher: ["valgrind", ...tool],
    // --perf-basic-prof starts V8's logger too: its log goes beside the output file, not into the working directory.
    nodeArgs: ["--single-threaded", ...(byFunction ? ["--perf-basic-prof", "--no-logfile-per-isolate", `--logfile=${out}.v8.log`] : [])],
    timeoutMs: cache ? 600_000 : 180_000,
  });
  try {
    if (mixCookie !== undefined) await mix(side, `http://127.0.0.1:${port}`, mixCookie, database);
    await requests(port, path, cookie, count, run.connections);
  } finally {
    // A db app closes its pool on SIGTERM, and a traced server flushes its spans (up to 5 s), slowly
    // under valgrind: SIGKILL would lose the counts.
    await server.stop(120_000);
    rmSync(`${out}.v8.log`, { force: true });
  }
  return out;
}

/** A side and the path it serves: `fw:/drafts` serves /drafts, a side without `:/` the scenario's path. */
function pathOf(named, scenario) {
  const at = named.indexOf(":/");
  return at === -1 ? { side: named, path: scenario.path } : { side: named.slice(0, at), path: named.slice(at + 1) };
}

/** The totals of a cachegrind run, by event (`Ir`, and with --cache `I1mr`, `D1mr`, `Bcm`, …). */
function totalsOf(file) {
  const text = readFileSync(file, "utf8");
  const events = /^events: (.+)$/m.exec(text)?.[1].trim().split(" ");
  const summary = /^summary: (.+)$/m.exec(text)?.[1].trim().split(" ").map(Number);
  if (events === undefined || summary === undefined) throw new Error(`no events or summary line in ${file}`);
  return Object.fromEntries(events.map((event, i) => [event, summary[i] ?? 0]));
}

// Builtins that do not call back into JS (inline caches, hash lookups, allocation): counted at
// the JS function that called them, so a megamorphic property access shows up where it happens.
const LEAF = /IC|Megamorphic|FindOrdered|Grow|FastNew|ConstructStub|StringEqual|RecordWrite|StringAdd|NumberToString|Allocate|WeakMap|ArrayIterator|CreateShallow|CloneObject|ToString/;

/**
 * Instructions by function from a callgrind run: JIT code named through the process's perf map
 * (`JS:*name file:line` optimized, `^` baseline), native code by its symbol.
 */
function byFunctionOf(file) {
  const text = readFileSync(file, "utf8");
  const pid = /^pid: (\d+)/m.exec(text)?.[1];
  const map = readFileSync(`/tmp/perf-${pid}.map`, "utf8").split("\n").filter(Boolean).map((line) => {
    const [start, size, ...name] = line.split(" ");
    return { start: parseInt(start, 16), end: parseInt(start, 16) + parseInt(size, 16), name: name.join(" ") };
  }).sort((a, b) => a.start - b.start);
  rmSync(`/tmp/perf-${pid}.map`, { force: true });
  const nameAt = (address) => {
    let low = 0;
    let high = map.length - 1;
    let best = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (map[middle].start <= address) {
        best = middle;
        low = middle + 1;
      } else high = middle - 1;
    }
    if (best < 0 || address >= map[best].end) return "(unnamed JIT code)";
    // Paths relative to the repository, a snapshot's included, so fw@name and fw name the same functions alike.
    return map[best].name.replace(/^JS:[\^*~+]?/, "").replace(/^Builtin:/, "builtin ").replace(SNAPSHOT_URL, "").replace(ROOT_URL, "");
  };
  // Cost lines are `<positions> <one count per event>`, positions and events as the file's header names them.
  const positions = (/^positions: (.+)$/m.exec(text)?.[1] ?? "line").trim().split(" ").length;
  const events = (/^events: (.+)$/m.exec(text)?.[1] ?? "Ir").trim().split(" ");
  const costs = new Map();
  const add = (name, counts) => {
    let total = costs.get(name);
    if (total === undefined) costs.set(name, (total = Object.fromEntries(events.map((event) => [event, 0]))));
    for (let i = 0; i < events.length; i++) total[events[i]] += Number(counts[i] ?? 0);
  };
  let fn = "";
  let callee = "";
  let call = false;
  for (const line of text.split("\n")) {
    if (line.startsWith("fn=")) fn = line.slice(3);
    else if (line.startsWith("cfn=")) callee = line.slice(4);
    else if (line.startsWith("calls=")) call = true;
    else if (line.startsWith("0x")) {
      const fields = line.split(" ");
      const counts = fields.slice(positions);
      const jit = fn === "???" || fn.startsWith("0x");
      if (call) {
        call = false;
        // A call's line holds the callee's inclusive cost: kept only for leaf builtins called from JS.
        if (jit && LEAF.test(callee)) add(nameAt(parseInt(fields[0], 16)), counts);
      } else if (jit) add(nameAt(parseInt(fields[0], 16)), counts);
      else if (!LEAF.test(fn)) add(fn, counts);
    }
  }
  return costs;
}

/**
 * The session cookie every side is sent, signed by fw's current build (not under valgrind), as
 * bench/ab.mjs does: raw ignores it, and every fw side verifies it with the same FW_SECRET.
 */
async function cookieFromFw(scenario, database) {
  const port = await freePort();
  const script = database === undefined ? scriptOf("fw") : database.policy ? POLICY_APP_MAIN : DB_APP_MAIN;
  const helper = await startServer({ name: "sign-in", script, env: { ...scenario.env, ...database?.env, PORT: String(port) }, ...(database === undefined ? {} : { cwd: database.cwd, timeoutMs: 60_000 }) });
  try {
    // The policy app's pages need a user signed in through its form; the db app's take fw's bench cookie.
    return database?.policy ? await policySignIn(`http://127.0.0.1:${port}`) : await signIn(`http://127.0.0.1:${port}`);
  } finally {
    await helper.stop();
  }
}

/** The server script of a side in a db scenario: the peer, fw's db app (or policy app) as built, a snapshot's policy app, or a copy's main.js. */
function dbScriptOf(side, policy) {
  if (side === "fastify" && !policy) return join(ROOT, "bench", "servers", "db-fastify.mjs");
  if (side === "fw") return policy ? POLICY_APP_MAIN : DB_APP_MAIN;
  const snapshot = /^fw@(.+)$/.exec(side)?.[1];
  if (policy && snapshot !== undefined) {
    const main = join(SNAPSHOTS, snapshot, "bench", ".work", "policy-app", "dist", "main.js");
    if (!existsSync(main)) throw new Error(`the snapshot ${snapshot} has no copy of the policy app (${main}): snapshot after the policy app was built`);
    return main;
  }
  // The server runs in the app's working directory: a copy's path is read from the checkout's root.
  if (/\.[cm]?js$/.test(side)) return resolve(ROOT, side);
  throw new Error(`unknown side ${JSON.stringify(side)} for a db scenario: fastify, fw or the path of a built db app's main.js`);
}

/** The db app built, a throwaway PostgreSQL cluster, the app's (or the policy app's) tables migrated and seeded by its own commands. */
async function dbDatabase(policy) {
  buildDbApp();
  const support = await postgresSupport();
  const bin = support.postgresBin();
  if (bin === undefined) throw new Error("PostgreSQL not found (no /usr/lib/postgresql/*/bin/initdb, PG_BIN unset)");
  const cluster = await support.startCluster(bin);
  const env = { DATABASE_URL: cluster.url };
  if (policy) return { cluster, env, policy, cwd: await prepareApp("instructions-policy", env, POLICY_APP_MAIN) };
  return { cluster, env, cwd: await prepareApp("instructions-postgres", env) };
}

/** `after − before` per request, event by event. */
function perRequestOf(before, after, count) {
  const result = {};
  for (const event of new Set([...Object.keys(before), ...Object.keys(after)])) result[event] = ((after[event] ?? 0) - (before[event] ?? 0)) / count;
  return result;
}

/**
 * A side's counts per request, by event (`events.Ir` the instructions), and per function with
 * `run.byFunction`, over `run.count` requests.
 */
async function measure(side, run) {
  const { count, byFunction } = run;
  // The two runs of a side in parallel: one per core.
  const [warm, long] = await Promise.all([countedRun(side, run, run.warm), countedRun(side, run, run.warm + count)]);
  try {
    if (!byFunction) return { events: perRequestOf(totalsOf(warm), totalsOf(long), count) };
    const [a, b] = [byFunctionOf(warm), byFunctionOf(long)];
    const functions = new Map();
    const events = {};
    for (const name of new Set([...a.keys(), ...b.keys()])) {
      const cost = perRequestOf(a.get(name) ?? {}, b.get(name) ?? {}, count);
      functions.set(name, cost);
      for (const [event, value] of Object.entries(cost)) events[event] = (events[event] ?? 0) + value;
    }
    return { events, functions };
  } finally {
    rmSync(warm, { force: true });
    rmSync(long, { force: true });
  }
}

const args = process.argv.slice(2);
const option = (name) => args.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
const sides = args.filter((a) => !a.startsWith("--"));
const scenarioName = option("scenario") ?? "text";
const scenario = SCENARIOS[scenarioName];
const count = Number(option("requests") ?? (scenario?.db ? DB_REQUESTS : 20_000));
const warm = Number(option("warm") ?? (scenario?.db ? DB_WARM : WARM));
const byFunction = args.includes("--by-function");
const mixed = args.includes("--mixed");
const cache = args.includes("--cache");
const top = Number(option("top") ?? 30);
const connections = Number(option("connections") ?? 1);
/** What a side's figures are compared by: estimated cycles with --cache, else instructions. */
const metricOf = cache ? cyclesOf : (events) => events.Ir ?? 0;
const metricName = cache ? "estimated cycles" : "instructions";
const figure = (n) => Math.round(n).toLocaleString("en-US");
const signed = (n) => (n >= 0 ? "+" : "") + figure(n);
const sumOf = (events, names) => names.reduce((sum, name) => sum + (events[name] ?? 0), 0);
let database;
try {
  if (sides.length === 0 || scenario === undefined || !(count > 0)) throw new Error(USAGE);
  const fewest = scenario.db ? DB_REQUESTS : FEWEST_REQUESTS;
  if (count < fewest) console.error(`note: with --requests under ${figure(fewest)}, JIT and GC noise outweighs a request's cost; read the figures as rough`);
  if (!ensureDebianTool("valgrind", ["--version"], "valgrind")) throw new Error("valgrind is not installed and apt-get could not install it");
  if (!scenario.db && sides.some((side) => side !== "raw")) buildBenchPages();
  process.env.FW_SECRET ??= randomBytes(32).toString("base64url");
  // Production boots refuse without the hosts they answer for (issue 32).
  process.env.FW_ALLOWED_HOSTS ??= "127.0.0.1,localhost";
  // The example sends mail (fw/mail): links on FW_ORIGIN, messages into a folder instead of SMTP.
  process.env.FW_ORIGIN ??= "http://localhost";
  process.env.FW_MAILBOX ??= ".fw/bench-mail";
  if (scenario.db) database = await dbDatabase(scenario.policy === true);
  const cookie = scenario.cookie ? await cookieFromFw(scenario, database) : undefined;
  // The mix sends raw's page a session cookie even where the scenario sends none.
  const mixCookie = mixed ? (cookie ?? (await cookieFromFw(scenario))) : undefined;
  const run = { scenario, cookie, count, warm, byFunction, cache, mixCookie, database, connections };
  const results = [];
  for (const side of sides) {
    const result = await measure(side, run);
    results.push({ side, ...result });
    const misses = cache ? `, ${CACHE_COLUMNS.slice(1).map(([label, names]) => `${figure(sumOf(result.events, names))} ${label}`).join(", ")}, ${figure(cyclesOf(result.events))} estimated cycles` : "";
    console.log(`${side}: ${figure(result.events.Ir ?? 0)} instructions${misses} per request`);
  }
  const [base] = results;
  console.log(`\n${scenarioName}, ${figure(count)} requests after ${figure(warm)}${connections === 1 ? "" : `, over ${connections} connections`}; ratio = ${base.side}'s ${metricName} / the side's (above 1 is cheaper)`);
  if (cache) {
    console.log(`${"side".padEnd(14)}${[...CACHE_COLUMNS.map(([label]) => label), "est. cycles", "ratio"].map((h) => h.padStart(14)).join("")}`);
    for (const r of results) {
      const cells = [...CACHE_COLUMNS.map(([, names]) => figure(sumOf(r.events, names))), figure(cyclesOf(r.events)), (cyclesOf(base.events) / cyclesOf(r.events)).toFixed(3)];
      console.log(`${r.side.padEnd(14)}${cells.map((c) => c.padStart(14)).join("")}`);
    }
    console.log(`estimated cycles = ${Object.entries(CYCLES).map(([event, weight]) => `${weight}·${event}`).join(" + ")} (textbook weights: a ranking, not a prediction)`);
  } else {
    for (const r of results) console.log(`${r.side.padEnd(14)} ${figure(r.events.Ir ?? 0).padStart(8)}  ${((base.events.Ir ?? 0) / (r.events.Ir ?? 0)).toFixed(3)}`);
  }
  if (byFunction) {
    for (const r of results.slice(1)) {
      console.log(`\nwhere ${r.side} differs from ${base.side}, ${metricName} per request (leaf builtins counted at their JS caller)${cache ? "; then the differences in instructions, I1 misses, D1 misses and mispredicted branches" : ""}:`);
      const names = new Set([...base.functions.keys(), ...r.functions.keys()]);
      const rows = [...names].map((name) => ({ name, a: base.functions.get(name) ?? {}, b: r.functions.get(name) ?? {} }));
      const change = (row) => metricOf(row.b) - metricOf(row.a);
      rows.sort((x, y) => Math.abs(change(y)) - Math.abs(change(x)));
      for (const row of rows.slice(0, top)) {
        const delta = (names) => signed(sumOf(row.b, names) - sumOf(row.a, names)).padStart(7);
        const detail = cache ? ` ${delta(["Ir"])} ${delta(["I1mr"])} ${delta(["D1mr", "D1mw"])} ${delta(["Bcm", "Bim"])}` : "";
        console.log(`${signed(change(row)).padStart(8)}  ${figure(metricOf(row.a)).padStart(7)} → ${figure(metricOf(row.b)).padEnd(7)}${detail}  ${row.name.slice(0, 100)}`);
      }
    }
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 2;
} finally {
  await database?.cluster.destroy();
}
