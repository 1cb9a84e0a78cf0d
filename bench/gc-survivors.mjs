#!/usr/bin/env node
// What the garbage collector keeps of a db page's requests: one side's server runs under
// `node --trace-gc-nvp` (pinned to core 0), wrk loads it for 8 s after a 3 s warm-up (core 1,
// -c50 as the bench), and the scavenges' own figures are summed per request: bytes allocated,
// survived (copied within the young generation) and promoted (moved to the old one, where only a
// major collection frees them), and the pause. A page whose requests promote much makes the
// collector cost several times the peer's CPU per request (bench/FINDINGS.md 22). The figures
// are V8's, so they drift far less with the machine's load than CPU time does; still compare
// sides run one after another, more than once.
//
//   node bench/gc-survivors.mjs fw                      the db app's posts' Index on PostgreSQL
//   node bench/gc-survivors.mjs fastify /posts/7        the peer's post page
//   node bench/gc-survivors.mjs bench/.work/x/db-app/dist/main.js   a built copy of the db app
//   --no-build                                          keep bench/.work/db-app as built
//   --connections=N                                     wrk's connections (50, as the bench)
//   --node=--max-semi-space-size=32                     a V8 flag for the served side (repeatable)
//   --first=/articles,/posts                            pages served (3 s each) before the warm-up, as the
//                                                       db part serves its other pages first
import { spawn, spawnSync } from "node:child_process";
import { openSync, readFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";
import { freePort, pinned, ROOT, sleep, WORK } from "./lib/util.mjs";
import { buildDbApp, DB_APP_MAIN } from "./lib/db-app.mjs";
import { postgresSupport } from "./lib/postgres.mjs";
import { prepareApp } from "./db.mjs";

const args = process.argv.slice(2);
const [side = "fw", path = "/posts"] = args.filter((a) => !a.startsWith("--"));
const connections = Number(args.find((a) => a.startsWith("--connections="))?.slice("--connections=".length) ?? 50);
const first = (args.find((a) => a.startsWith("--first="))?.slice("--first=".length) ?? "").split(",").filter((p) => p !== "");
const nodeFlags = args.filter((a) => a.startsWith("--node=")).map((a) => a.slice("--node=".length));
process.env.FW_SECRET ??= randomBytes(32).toString("base64url");
process.env.FW_ALLOWED_HOSTS ??= "127.0.0.1,localhost";
process.env.FW_ORIGIN ??= "http://localhost";
process.env.FW_MAILBOX ??= ".fw/bench-mail";
const script = side === "fw" ? DB_APP_MAIN : side === "fastify" ? join(ROOT, "bench", "servers", "db-fastify.mjs") : resolve(ROOT, side);
if (!args.includes("--no-build")) buildDbApp();
const support = await postgresSupport();
const bin = support.postgresBin();
if (bin === undefined) throw new Error("PostgreSQL not found (no /usr/lib/postgresql/*/bin/initdb, PG_BIN unset)");
const cluster = await support.startCluster(bin);
const children = [];
try {
  const env = { ...process.env, DATABASE_URL: cluster.url };
  const cwd = await prepareApp("gc-survivors", env);
  /** Starts a server, its output into `log`; resolves once it says it serves. */
  const start = async (file, nodeArgs, log) => {
    const port = await freePort();
    const fd = openSync(log, "w");
    const { command, args: argv } = pinned(0, process.execPath, [...nodeArgs, file]);
    const child = spawn(command, argv, { cwd, env: { ...env, PORT: String(port) }, stdio: ["ignore", fd, fd] });
    children.push(child);
    for (let i = 0; i < 600 && !/listening|serving/.test(readFileSync(log, "utf8")); i++) await sleep(100);
    return { child, port };
  };
  // A session signed by the fw app (the peer checks the same cookie with the same FW_SECRET).
  const helper = await start(DB_APP_MAIN, [], join(WORK, "gc-survivors-sign-in.log"));
  const cookie = (await fetch(`http://127.0.0.1:${helper.port}/login`)).headers.get("set-cookie")?.split(";")[0];
  helper.child.kill();
  if (cookie === undefined) throw new Error("the db app's /login set no cookie");
  const log = join(WORK, "gc-survivors.log");
  const { port } = await start(script, ["--trace-gc-nvp", ...nodeFlags], log);
  const wrk = (seconds, at = path) => {
    const { command, args: argv } = pinned(1, "wrk", ["-t1", `-c${connections}`, `-d${seconds}s`, "-H", `Cookie: ${cookie}`, `http://127.0.0.1:${port}${at}`]);
    return spawnSync(command, argv, { encoding: "utf8" }).stdout;
  };
  for (const other of first) wrk(3, other);
  wrk(3);
  const from = readFileSync(log, "utf8").length;
  const out = wrk(8);
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const lines = readFileSync(log, "utf8").slice(from).split("\n");
  const scavenges = lines.filter((line) => / gc=s /.test(line));
  const majors = lines.filter((line) => / gc=(mc|ms) /.test(line)).length;
  const sums = {};
  for (const line of scavenges) for (const [, key, value] of line.matchAll(/(\S+)=([\d.]+)/g)) sums[key] = (sums[key] ?? 0) + Number(value);
  const per = (key) => (sums[key] ?? 0) / Math.max(1, requests);
  console.log(`${side} ${path} -c${connections}${nodeFlags.length === 0 ? "" : ` ${nodeFlags.join(" ")}`}: ${requests} requests (${/Requests\/sec:\s+\S+/.exec(out)?.[0]}), ${scavenges.length} scavenges (${((scavenges.length * 1000) / Math.max(1, requests)).toFixed(1)} per 1,000 requests), ${majors} major collections`);
  console.log(`  per request: allocated ${Math.round(per("allocated")).toLocaleString("en-US")} B, survived ${Math.round(per("new_space_survived")).toLocaleString("en-US")} B, promoted ${Math.round(per("promoted")).toLocaleString("en-US")} B, scavenge pause ${(per("pause") * 1000).toFixed(1)} µs`);
} finally {
  for (const child of children) child.kill();
  await sleep(500);
  await cluster.destroy();
}
