#!/usr/bin/env node
// A/B of fw builds on one throughput scenario, by CPU time per request as well as by req/s.
//
//   node bench/ab.mjs snapshot before          keep the current build (dist/, fw's bench pages) as "before"
//   … change fw, npm run build …
//   node bench/ab.mjs text raw fw@before fw    interleaved wrk rounds; ratios to the first side
//   node bench/ab.mjs page-many fw@before fw --rounds=12 --seconds=3
//   node bench/ab.mjs policy fw@before fw      the policy rows' two pages on each side (bench/policy-ab.mjs)
//
// Sides: `raw` (bench/servers/raw.mjs), `fw` (the current build), `fw@<name>` (a snapshot).
// Scenarios: text (GET / as Route.api), text-browser (as a browser route, cookie sent), page
// (GET /posts/7, one session), page-many (GET /posts/7, 2,048 sessions in turn), policy (the db part's policy
// rows: /memos and /drafts of bench/servers/policy-app on a throwaway PostgreSQL, sides fw and fw@<name> only).
//
// Why CPU time: on this shared 2-core machine another process landing on the server's core
// moves req/s by tens of percent, while the server's own CPU time per request (utime + stime
// over the requests wrk counted) moves by a few. Differences under about 3 % are still noise.
import { cpSync, existsSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join, relative } from "node:path";
import { buildBenchPages } from "./lib/bench-pages.mjs";
import { freePort, ROOT, startServer, summary, WORK } from "./lib/util.mjs";
import { cookiesScript, ensureWrk, wrk } from "./lib/wrk.mjs";
import { scriptOf, signIn, SNAPSHOTS } from "./lib/sides.mjs";

const SERVER_CORE = 0;
const LOAD_CORE = 1;
const MANY = 2048;

const SCENARIOS = {
  text: { path: "/", env: { FW_TEXT_ROUTE: "api" } },
  "text-browser": { path: "/", env: { FW_TEXT_ROUTE: "browser" }, cookie: true },
  page: { path: "/posts/7", cookie: true },
  "page-many": { path: "/posts/7", many: true },
};

const USAGE = `usage: node bench/ab.mjs snapshot <name>
       node bench/ab.mjs <${Object.keys(SCENARIOS).join("|")}> <raw|fw|fw@name>... [--rounds=10] [--seconds=3]
       node bench/ab.mjs policy <fw|fw@name>... [--rounds=10] [--seconds=3]`;

/** Copies what fw's bench server runs (dist/, package.json, fw's compiled bench pages) so a later build can be compared with it. */
function snapshot(name) {
  if (!/^[\w.-]+$/.test(name)) throw new Error(`snapshot names are letters, digits, _ . - only, not ${JSON.stringify(name)}`);
  buildBenchPages();
  const dir = join(SNAPSHOTS, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, "bench", ".work", "node_modules"), { recursive: true });
  cpSync(join(ROOT, "dist"), join(dir, "dist"), { recursive: true });
  cpSync(join(ROOT, "package.json"), join(dir, "package.json"));
  cpSync(join(ROOT, "bench", "servers"), join(dir, "bench", "servers"), { recursive: true });
  cpSync(join(WORK, "servers"), join(dir, "bench", ".work", "servers"), { recursive: true });
  // The policy app as this build built it (bench/.work/policy-app, made by the db bench or `ab.mjs policy fw`): its `fw` is the snapshot's.
  const policyApp = join(WORK, "policy-app");
  if (existsSync(join(policyApp, "dist", "main.js"))) cpSync(policyApp, join(dir, "bench", ".work", "policy-app"), { recursive: true });
  // `fw` and fw's own dependencies resolve inside the snapshot, as they do in the repository.
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  symlinkSync("../../..", join(dir, "bench", ".work", "node_modules", "fw"));
  console.log(`kept the current build as ${relative(ROOT, dir)}: compare it with fw@${name}`);
}

async function compare(scenarioName, sides, { rounds, seconds }) {
  const scenario = SCENARIOS[scenarioName];
  if (scenario === undefined || sides.length === 0) throw new Error(USAGE);
  if (!ensureWrk()) throw new Error("wrk is not installed and apt-get could not install it");
  buildBenchPages();
  process.env.FW_SECRET ??= randomBytes(32).toString("base64url");
  // Production boots refuse without the hosts they answer for (issue 32).
  process.env.FW_ALLOWED_HOSTS ??= "127.0.0.1,localhost";
  // The example sends mail (fw/mail): links on FW_ORIGIN, messages into a folder instead of SMTP.
  process.env.FW_ORIGIN ??= "http://localhost";
  process.env.FW_MAILBOX ??= ".fw/bench-mail";
  const servers = [];
  try {
    for (const side of sides) {
      const port = await freePort();
      const started = await startServer({ name: side, script: scriptOf(side), env: { ...scenario.env, PORT: String(port) }, core: SERVER_CORE });
      servers.push({ side, started, url: `http://127.0.0.1:${port}`, rps: [], cpu: [] });
    }
    const fw = servers.find((s) => s.side !== "raw");
    const load = { headers: [], script: undefined, check: {} };
    if (scenario.cookie || scenario.many) {
      if (fw === undefined) throw new Error(`${scenarioName} needs a fw side: fw signs the session cookies`);
      if (scenario.many) {
        const cookies = [];
        for (let i = 0; i < MANY; i++) cookies.push(await signIn(fw.url));
        load.script = cookiesScript(cookies, scenario.path, join(WORK, "ab-many-sessions.lua"));
        load.check = { cookie: cookies[MANY - 1] };
      } else {
        const cookie = await signIn(fw.url);
        load.headers = [`Cookie: ${cookie}`];
        load.check = { cookie };
      }
    }
    const run = (server, secs) => wrk({ url: server.url + scenario.path, seconds: secs, core: LOAD_CORE, headers: load.headers, script: load.script, serverPid: server.started.pid });
    for (const server of servers) {
      const answer = await fetch(server.url + scenario.path, { headers: load.check });
      if (answer.status !== 200) throw new Error(`${server.side} answered ${answer.status} on ${scenario.path}`);
      await run(server, 2); // warm-up
    }
    for (let round = 0; round < rounds; round++) {
      // A B C, then C B A: neither side always runs first
      for (const server of round % 2 === 0 ? servers : [...servers].reverse()) {
        const result = await run(server, seconds);
        server.rps.push(result.rps);
        server.cpu.push(result.cpuUs);
      }
      console.log(`round ${round + 1}/${rounds}: ${servers.map((s) => `${s.side} ${Math.round(s.rps[round])} req/s ${s.cpu[round].toFixed(1)} µs`).join(", ")}`);
    }
    const base = servers[0];
    console.log(`\n${scenarioName}, ${rounds} rounds of ${seconds} s; ratios to ${base.side}, paired round by round (median, range); above 1 is faster`);
    for (const s of servers) {
      const byCpu = summary(s.cpu.map((v, i) => base.cpu[i] / v));
      const byRps = summary(s.rps.map((v, i) => v / base.rps[i]));
      console.log(
        `${s.side.padEnd(14)} CPU ${summary(s.cpu).median.toFixed(2)} µs/request, ratio ${byCpu.median.toFixed(3)} (${byCpu.min.toFixed(3)}–${byCpu.max.toFixed(3)}); ` +
          `${Math.round(summary(s.rps).median)} req/s, ratio ${byRps.median.toFixed(3)} (${byRps.min.toFixed(3)}–${byRps.max.toFixed(3)})`,
      );
    }
  } finally {
    await Promise.all(servers.map((s) => s.started.stop()));
  }
}

const args = process.argv.slice(2);
const flag = (name, fallback) => Number(args.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
const [command, ...rest] = args.filter((a) => !a.startsWith("--"));
try {
  if (command === "snapshot" && rest.length === 1) snapshot(rest[0]);
  else if (command === "policy") await (await import("./policy-ab.mjs")).comparePolicy(rest, { rounds: flag("rounds", 10), seconds: flag("seconds", 3) });
  else await compare(command, rest, { rounds: flag("rounds", 10), seconds: flag("seconds", 3) });
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 2;
}
