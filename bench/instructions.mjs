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
//                                                       serve before its text group (other routes; see mix())
//
// Sides as in bench/ab.mjs: raw, fw (the current build), fw@<snapshot>. valgrind is installed with
// apt-get when missing. --single-threaded keeps V8's compiler and GC on the counted thread, so
// their work is counted too and the runs repeat. A side takes about a minute (both of its runs in
// parallel); --by-function (callgrind, with node's --perf-basic-prof naming the JIT code) twice that.
//
// What a count is not: cache misses and branch mispredictions cost time and no instructions, so a
// change that allocates less can be faster by more than its count says. FINDINGS.md 15 is what
// this found first.
import { randomBytes } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildBenchPages } from "./lib/bench-pages.mjs";
import { pathToFileURL } from "node:url";
import { csrfOf, scriptOf, signIn, SNAPSHOTS } from "./lib/sides.mjs";
import { ensureDebianTool, freePort, ROOT, startServer } from "./lib/util.mjs";

const WARM = 5000;
const ROOT_URL = `${pathToFileURL(ROOT).href}/`;
const SNAPSHOT_URL = new RegExp(`${pathToFileURL(SNAPSHOTS).href.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/[^/]+/`);
const SCENARIOS = {
  text: { path: "/", env: { FW_TEXT_ROUTE: "api" } },
  "text-browser": { path: "/", env: { FW_TEXT_ROUTE: "browser" }, cookie: true },
  page: { path: "/posts/7", cookie: true },
};
const USAGE = `usage: node bench/instructions.mjs <raw|fw|fw@name>... [--scenario=${Object.keys(SCENARIOS).join("|")}] [--requests=20000] [--by-function] [--mixed] [--top=30]`;

/** Sends `count` GETs one after another on one keep-alive connection; resolves when all are answered. */
function requests(port, path, cookie, count) {
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
async function mix(side, base, cookie) {
  const send = async (path, init) => void (await (await fetch(`${base}${path}`, { redirect: "manual", ...init })).arrayBuffer());
  const ROUNDS = 300;
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
async function countedRun(side, run, count) {
  const { scenario, cookie, byFunction, mixCookie } = run;
  const out = join(tmpdir(), `fw-instructions-${process.pid}-${randomBytes(4).toString("hex")}`);
  const tool = byFunction
    ? ["--tool=callgrind", "--dump-instr=yes", "--compress-pos=no", "--compress-strings=no", `--callgrind-out-file=${out}`]
    : ["--tool=cachegrind", "--cache-sim=no", `--cachegrind-out-file=${out}`];
  const port = await freePort();
  const server = await startServer({
    name: side,
    script: scriptOf(side),
    env: { ...scenario.env, PORT: String(port) },
    launcher: ["valgrind", ...tool],
    // --perf-basic-prof starts V8's logger too: its log goes beside the output file, not into the working directory.
    nodeArgs: ["--single-threaded", ...(byFunction ? ["--perf-basic-prof", "--no-logfile-per-isolate", `--logfile=${out}.v8.log`] : [])],
    timeoutMs: 180_000,
  });
  try {
    if (mixCookie !== undefined) await mix(side, `http://127.0.0.1:${port}`, mixCookie);
    await requests(port, scenario.path, cookie, count);
  } finally {
    await server.stop();
    rmSync(`${out}.v8.log`, { force: true });
  }
  return out;
}

/** Total instructions of a cachegrind run. */
function totalOf(file) {
  const summary = /^summary: (\d+)/m.exec(readFileSync(file, "utf8"));
  if (summary === null) throw new Error(`no summary line in ${file}`);
  return Number(summary[1]);
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
  const costs = new Map();
  const add = (name, cost) => costs.set(name, (costs.get(name) ?? 0) + cost);
  let fn = "";
  let callee = "";
  let call = false;
  for (const line of text.split("\n")) {
    if (line.startsWith("fn=")) fn = line.slice(3);
    else if (line.startsWith("cfn=")) callee = line.slice(4);
    else if (line.startsWith("calls=")) call = true;
    else if (line.startsWith("0x")) {
      const [address, , cost = "0"] = line.split(" ");
      const jit = fn === "???" || fn.startsWith("0x");
      if (call) {
        call = false;
        // A call's line holds the callee's inclusive cost: kept only for leaf builtins called from JS.
        if (jit && LEAF.test(callee)) add(nameAt(parseInt(address, 16)), Number(cost));
      } else if (jit) add(nameAt(parseInt(address, 16)), Number(cost));
      else if (!LEAF.test(fn)) add(fn, Number(cost));
    }
  }
  return costs;
}

/**
 * The session cookie every side is sent, signed by fw's current build (not under valgrind), as
 * bench/ab.mjs does: raw ignores it, and every fw side verifies it with the same FW_SECRET.
 */
async function cookieFromFw(scenario) {
  const port = await freePort();
  const helper = await startServer({ name: "sign-in", script: scriptOf("fw"), env: { ...scenario.env, PORT: String(port) } });
  try {
    return await signIn(`http://127.0.0.1:${port}`);
  } finally {
    await helper.stop();
  }
}

/** A side's instructions per request (and per function, `run.byFunction`), over `run.count` requests. */
async function measure(side, run) {
  const { count, byFunction } = run;
  // The two runs of a side in parallel: one per core.
  const [warm, long] = await Promise.all([countedRun(side, run, WARM), countedRun(side, run, WARM + count)]);
  try {
    if (!byFunction) return { perRequest: (totalOf(long) - totalOf(warm)) / count };
    const [a, b] = [byFunctionOf(warm), byFunctionOf(long)];
    const functions = new Map();
    for (const name of new Set([...a.keys(), ...b.keys()])) functions.set(name, ((b.get(name) ?? 0) - (a.get(name) ?? 0)) / count);
    return { perRequest: [...functions.values()].reduce((sum, v) => sum + v, 0), functions };
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
const count = Number(option("requests") ?? 20_000);
const byFunction = args.includes("--by-function");
const mixed = args.includes("--mixed");
const top = Number(option("top") ?? 30);
try {
  if (sides.length === 0 || scenario === undefined || !(count > 0)) throw new Error(USAGE);
  if (!ensureDebianTool("valgrind", ["--version"], "valgrind")) throw new Error("valgrind is not installed and apt-get could not install it");
  if (sides.some((side) => side !== "raw")) buildBenchPages();
  process.env.FW_SECRET ??= randomBytes(32).toString("base64url");
  const cookie = scenario.cookie ? await cookieFromFw(scenario) : undefined;
  // The mix sends raw's page a session cookie even where the scenario sends none.
  const mixCookie = mixed ? (cookie ?? (await cookieFromFw(scenario))) : undefined;
  const run = { scenario, cookie, count, byFunction, mixCookie };
  const results = [];
  for (const side of sides) {
    const result = await measure(side, run);
    results.push({ side, ...result });
    console.log(`${side}: ${Math.round(result.perRequest).toLocaleString("en-US")} instructions per request`);
  }
  const [base] = results;
  console.log(`\n${scenarioName}, ${count.toLocaleString("en-US")} requests after ${WARM.toLocaleString("en-US")}; ratio = ${base.side}'s count / the side's (above 1 is fewer instructions)`);
  for (const r of results) console.log(`${r.side.padEnd(14)} ${Math.round(r.perRequest).toLocaleString("en-US").padStart(8)}  ${(base.perRequest / r.perRequest).toFixed(3)}`);
  if (byFunction) {
    for (const r of results.slice(1)) {
      console.log(`\nwhere ${r.side} differs from ${base.side}, instructions per request (leaf builtins counted at their JS caller):`);
      const names = new Set([...base.functions.keys(), ...r.functions.keys()]);
      const rows = [...names].map((name) => ({ name, a: base.functions.get(name) ?? 0, b: r.functions.get(name) ?? 0 }));
      rows.sort((x, y) => Math.abs(y.b - y.a) - Math.abs(x.b - x.a));
      for (const { name, a, b } of rows.slice(0, top)) {
        console.log(`${(b - a >= 0 ? "+" : "") + Math.round(b - a)}`.padStart(8) + `  ${Math.round(a)}`.padStart(8) + ` → ${Math.round(b)}`.padEnd(9) + `  ${name.slice(0, 110)}`);
      }
    }
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 2;
}
