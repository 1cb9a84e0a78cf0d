#!/usr/bin/env node
// npm run soak: the example app under sustained keep-alive load (issue 9). Not part of `npm test`.
//
// Boots example/dist/main.js in production (a random FW_SECRET) in a folder of its own
// (bench/.work/soak: the example's migrations, applied by its own `db migrate` to a fresh embedded
// database), then runs twice, back to back in the same server process: `--connections` sequential
// clients (default 100) over keep-alive connections for `--seconds` (default 60), each signing up
// once (confirming its email by the link the example mails to FW_MAILBOX, as a reader would) and
// then looping over the example's pages and form posts. Every answer is checked against the status its step expects;
// any other status or a network error fails the run (exit 1), as does RSS after run 2 above 1.5×
// RSS after run 1. Writes bench/SOAK.md (or `--out FILE`). Build first: `npm run build`.
//
//   npm run build && npm run soak
//   npm run soak -- --seconds 10 --connections 20 --out bench/.work/SOAK.quick.md

import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request as httpRequest } from "node:http";
import { cpus, totalmem, release, platform } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const MAIN = resolve(root, "example/dist/main.js");
/** Where the example runs: its migrations, its embedded database and its mailbox, made afresh each soak. */
const FOLDER = resolve(root, "bench/.work/soak");
const MAILBOX = ".fw/bench-mail";
const RSS_LIMIT = 1.5;

function parseArgs(argv) {
  const options = { seconds: 60, connections: 100, runs: 2, out: resolve(root, "bench/SOAK.md") };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split("=", 2);
    const value = () => inline ?? argv[++i];
    if (flag === "--seconds") options.seconds = Number(value());
    else if (flag === "--connections") options.connections = Number(value());
    else if (flag === "--runs") options.runs = Number(value());
    else if (flag === "--out") options.out = resolve(value());
    else throw new Error(`soak: unknown option ${JSON.stringify(argv[i])} (--seconds N, --connections N, --runs N, --out FILE)`);
  }
  for (const name of ["seconds", "connections", "runs"]) {
    if (!Number.isInteger(options[name]) || options[name] < 1) throw new Error(`soak: --${name} must be a positive integer, not ${options[name]}`);
  }
  return options;
}

/** Boots the example in production mode and resolves with its URL and pid once it serves. */
function bootExample() {
  if (!existsSync(MAIN)) throw new Error(`soak: ${relative(root, MAIN)} is missing: run \`npm run build\` first`);
  const secret = randomBytes(32).toString("base64url");
  const env = { ...process.env, FW_SECRET: secret, FW_ALLOWED_HOSTS: "127.0.0.1,localhost", FW_ORIGIN: "http://localhost", FW_MAILBOX: MAILBOX, PORT: "0", HOST: "127.0.0.1", NODE_ENV: "production" };
  // A production boot refuses pending migrations, and serves what the database has: the example
  // gets a folder of its own with its migrations, applied to a fresh embedded database first.
  rmSync(FOLDER, { recursive: true, force: true });
  mkdirSync(FOLDER, { recursive: true });
  cpSync(resolve(root, "example/db/migrations"), join(FOLDER, "db", "migrations"), { recursive: true });
  const migrated = spawnSync(process.execPath, [MAIN, "db", "migrate"], { cwd: FOLDER, env, encoding: "utf8", timeout: 180_000 });
  if (migrated.status !== 0) throw new Error(`soak: the example's \`db migrate\` failed (${migrated.status ?? migrated.signal}):\n${migrated.stdout}${migrated.stderr}`);
  const child = spawn(process.execPath, [MAIN], {
    cwd: FOLDER,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let banner = "";
  let stderr = "";
  let accessLines = 0;
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise((done) => child.on("exit", (code, signal) => done({ code, signal })));
  const url = new Promise((ready, fail) => {
    const onData = (chunk) => {
      banner += chunk;
      const match = /serving \d+ routes on (http:\/\/[^\s"]+)/.exec(banner);
      if (match === null) return;
      child.stdout.off("data", onData);
      // The access log (one line per request) is read and dropped: it cannot be turned off from outside.
      child.stdout.on("data", (more) => (accessLines += String(more).split("\n").length - 1));
      ready(match[1]);
    };
    child.stdout.on("data", onData);
    void exited.then(({ code }) => fail(new Error(`soak: the example exited (${code}) before serving:\n${banner}\n${stderr}`)));
  });
  return { child, url, exited, stderr: () => stderr, accessLines: () => accessLines };
}

function rssKiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  if (match === null) throw new Error(`soak: no VmRSS in /proc/${pid}/status`);
  return Number(match[1]);
}

/** One HTTP exchange on the shared keep-alive agent: status, location, body, and the session cookie it set. */
/** GETs sent again after their reused keep-alive connection was reset before any answer (reported). */
let resent = 0;

function exchange(agent, base, method, path, { cookie, form, localAddress } = {}) {
  return exchangeOn(agent, base, method, path, { cookie, form, localAddress }).catch((error) => {
    // A keep-alive connection the server closed while idle can be taken from the pool just
    // before its close is read: the request fails with ECONNRESET before any answer. As Node's
    // docs advise (request.reusedSocket) and browsers do, a GET is sent again, once, on a new one.
    if (error.reused === true && error.code === "ECONNRESET" && method === "GET") {
      resent++;
      return exchangeOn(false, base, method, path, { cookie, form, localAddress });
    }
    throw error;
  });
}

function exchangeOn(agent, base, method, path, { cookie, form, localAddress }) {
  return new Promise((done, fail) => {
    const body = form === undefined ? undefined : new URLSearchParams(form).toString();
    const headers = {};
    if (cookie !== undefined) headers.cookie = cookie;
    if (body !== undefined) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      headers["content-length"] = Buffer.byteLength(body);
    }
    const req = httpRequest(base + path, { method, agent, headers, localAddress }, (res) => {
      const chunks = [];
      res.on("data", (chunk) => chunks.push(chunk));
      res.on("end", () => {
        const set = (res.headers["set-cookie"] ?? []).find((line) => line.startsWith("fw_session="));
        done({
          status: res.statusCode,
          location: res.headers.location,
          html: Buffer.concat(chunks).toString("utf8"),
          cookie: set === undefined ? undefined : set.split(";")[0],
        });
      });
      res.on("error", fail);
    });
    req.on("error", (error) => fail(Object.assign(error, { reused: req.reusedSocket })));
    req.end(body);
  });
}

/** A tally of what came back, per step: `expected` and `unexpected` answers, and a few samples of the latter. */
class Tally {
  constructor() {
    this.byStep = new Map();
    this.statuses = new Map();
    this.requests = 0;
    this.unexpected = 0;
    this.samples = [];
  }
  count(step, expected, got, detail) {
    this.requests++;
    const key = String(got);
    this.statuses.set(key, (this.statuses.get(key) ?? 0) + 1);
    const entry = this.byStep.get(step) ?? { expected, ok: 0, other: new Map() };
    this.byStep.set(step, entry);
    if (got === expected) {
      entry.ok++;
      return true;
    }
    this.unexpected++;
    entry.other.set(key, (entry.other.get(key) ?? 0) + 1);
    if (this.samples.length < 10) this.samples.push(`${step}: expected ${expected}, got ${got}${detail ? ` (${detail})` : ""}`);
    return false;
  }
}

const POST_FIELDS = { body: "Soak body, long text.", published: "true", summary: "", category: "howto" };

/**
 * One client: signs up once, then loops over the pages until `deadline`. A step whose answer is
 * not the expected one ends the current loop (its later steps depend on it) and starts the next.
 * Each client connects from an address of its own (`localAddress`, 127.0.1.x): fw/auth allows an
 * address 10 sign-ups an hour, and a hundred clients from 127.0.0.1 would rightly get 429s.
 */
async function client(agent, base, tally, id, deadline, localAddress) {
  let cookie;
  let token;
  const step = async (name, expected, method, path, form) => {
    let answer;
    try {
      answer = await exchange(agent, base, method, path, { cookie, localAddress, form: form === undefined ? undefined : { _csrf: token ?? "", ...form } });
    } catch (error) {
      tally.count(name, expected, `error ${error.code ?? error.message}`);
      return undefined;
    }
    if (answer.cookie !== undefined) cookie = answer.cookie;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(answer.html);
    if (csrf !== null) token = csrf[1];
    return tally.count(name, expected, answer.status, answer.location) ? answer : undefined;
  };
  const email = `soak-${id}-${randomBytes(4).toString("hex")}@example.com`;
  const form = await step("GET /signup", 200, "GET", "/signup");
  if (form === undefined) return;
  const signedUp = await step("POST /signup", 303, "POST", "/signup", { email, password: "soak-password-123", next: "/posts/new" });
  if (signedUp === undefined) return;
  // The example confirms a sign-up's email: the link comes by mail (its mailbox, FW_MAILBOX), and
  // following it, then "Confirm and sign in", makes the account and signs in.
  if (form.html.includes('class="fw-auth-confirming"')) {
    let link;
    try {
      const { waitForMail } = await import(pathToFileURL(join(root, "dist", "runtime", "testing", "mailbox.js")).href);
      const mail = await waitForMail(join(FOLDER, MAILBOX), { to: email, subject: "Confirm your email", timeoutMs: 30_000 });
      link = new URL(mail.links.find((href) => href.includes("token=")) ?? "");
    } catch (error) {
      tally.count("the confirmation mail", "delivered", `not delivered (${error.message})`);
      return;
    }
    if ((await step("GET /confirm?token=…", 303, "GET", link.pathname + link.search)) === undefined) return;
    if ((await step("GET /confirm", 200, "GET", "/confirm")) === undefined) return;
    if ((await step("POST /confirm", 303, "POST", "/confirm", {})) === undefined) return;
  }
  let round = 0;
  while (Date.now() < deadline) {
    round++;
    if (!(await step("GET /", 200, "GET", "/"))) continue;
    if (!(await step("GET /about", 200, "GET", "/about"))) continue;
    if (!(await step("GET /docs/*rest", 200, "GET", `/docs/guide/${round}`))) continue;
    if (!(await step("GET /notes", 200, "GET", "/notes"))) continue;
    if (!(await step("GET /posts/new", 200, "GET", "/posts/new"))) continue;
    const created = await step("POST /posts", 303, "POST", "/posts", { title: `Soak ${id}.${round}`, ...POST_FIELDS });
    if (created === undefined) continue;
    const at = created.location;
    if (!/^\/posts\/\d+$/.test(at ?? "")) {
      tally.count("POST /posts location", "/posts/:id", String(at));
      continue;
    }
    if (!(await step("GET /posts/:id", 200, "GET", at))) continue;
    if (!(await step("GET /posts/:id/edit", 200, "GET", `${at}/edit`))) continue;
    if (!(await step("PUT /posts/:id", 303, "POST", at, { _method: "PUT", title: `Soak ${id}.${round} (edited)`, ...POST_FIELDS }))) continue;
    if (!(await step("GET /posts/:id", 200, "GET", at))) continue;
    if (!(await step("DELETE /posts/:id", 303, "POST", at, { _method: "DELETE" }))) continue;
    if (!(await step("GET /posts/:id (deleted)", 404, "GET", at))) continue;
    if (!(await step("POST /notes (invalid)", 422, "POST", "/notes", { text: "", pinned: "nonsense" }))) continue;
    await step("GET /nowhere", 404, "GET", `/nowhere/${round}`);
  }
}

async function runOnce(base, connections, seconds, run) {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  let opened = 0;
  const create = agent.createConnection.bind(agent);
  agent.createConnection = (...args) => {
    opened++;
    return create(...args);
  };
  const tally = new Tally();
  const started = performance.now();
  const deadline = Date.now() + seconds * 1000;
  await Promise.all(Array.from({ length: connections }, (_, i) => client(agent, base, tally, `${run}-${i}`, deadline, `127.0.${1 + Math.floor(i / 250)}.${1 + (i % 250)}`)));
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  return { tally, elapsed, opened };
}

function machine() {
  const cpu = cpus();
  return `${cpu[0]?.model ?? "unknown CPU"} × ${cpu.length}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${platform()} ${release()}, Node ${process.version}`;
}

function statusLine(tally) {
  return [...tally.statuses.entries()].sort().map(([status, n]) => `${status}: ${n}`).join(", ");
}

function report(options, runs, rss, verdict, serverErr) {
  const lines = [
    "# Soak run",
    "",
    "The example app (`example/dist/main.js`, production, a random `FW_SECRET`, access log on and",
    "discarded) under keep-alive load: each client signs up once, then loops over `/`, `/about`,",
    "`/docs/*rest`, `/notes`, `/posts/new`, a post created (303), shown, edited, updated through",
    "`_method=PUT` (303), shown, destroyed through `_method=DELETE` (303), its page then 404, an",
    "invalid note (422) and an unknown path (404). Every answer is checked against its step's",
    "status. Two runs back to back in one server process; RSS (`VmRSS`) read after each.",
    "",
    `- machine: ${machine()}; the load generator (this script, one process) shares the cores with the server, and the machine is shared with other work`,
    `- command: \`npm run build && npm run soak -- --seconds ${options.seconds} --connections ${options.connections}\``,
    `- date: ${new Date().toISOString()}`,
    "",
    "| run | seconds | requests | requests/s | connections opened | unexpected | statuses |",
    "|---|---|---|---|---|---|---|",
    ...runs.map((r, i) =>
      `| ${i + 1} | ${r.elapsed.toFixed(1)} | ${r.tally.requests} | ${(r.tally.requests / r.elapsed).toFixed(0)} | ${r.opened} | ${r.tally.unexpected} | ${statusLine(r.tally)} |`,
    ),
    "",
    "| RSS | MiB | KiB |",
    "|---|---|---|",
    `| idle, after boot | ${(rss.idle / 1024).toFixed(1)} | ${rss.idle} |`,
    ...rss.after.map((kib, i) => `| after run ${i + 1} | ${(kib / 1024).toFixed(1)} | ${kib} |`),
    "",
    `RSS after the last run / after run 1: ${rss.ratio.toFixed(2)} (limit ${RSS_LIMIT}).`,
    "",
    `GETs sent again, once, because the idle keep-alive connection they were given had just been closed by the server (ECONNRESET before any answer): ${resent}.`,
    "",
    `Verdict: **${verdict.ok ? "pass" : "FAIL"}**${verdict.reasons.length > 0 ? `: ${verdict.reasons.join("; ")}` : ""}.`,
  ];
  const samples = runs.flatMap((r) => r.tally.samples);
  if (samples.length > 0) lines.push("", "Unexpected answers (first few):", "", ...samples.map((s) => `- ${s}`));
  if (serverErr.trim() !== "") lines.push("", "The server wrote to stderr:", "", "```", serverErr.trim().slice(0, 4000), "```");
  return lines.join("\n") + "\n";
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const server = bootExample();
  const base = await server.url;
  const pid = server.child.pid;
  const runs = [];
  const rss = { idle: rssKiB(pid), after: [], ratio: 0 };
  console.log(`soak: example on ${base} (pid ${pid}), idle RSS ${(rss.idle / 1024).toFixed(1)} MiB`);
  try {
    for (let run = 1; run <= options.runs; run++) {
      console.log(`soak: run ${run}: ${options.connections} keep-alive connections for ${options.seconds} s …`);
      const result = await runOnce(base, options.connections, options.seconds, run);
      runs.push(result);
      rss.after.push(rssKiB(pid));
      const { tally, elapsed, opened } = result;
      console.log(
        `soak: run ${run}: ${tally.requests} requests in ${elapsed.toFixed(1)} s (${(tally.requests / elapsed).toFixed(0)}/s), ` +
          `${opened} connections opened, ${tally.unexpected} unexpected; ${statusLine(tally)}; RSS ${(rss.after.at(-1) / 1024).toFixed(1)} MiB`,
      );
      for (const sample of tally.samples) console.log(`  ${sample}`);
    }
  } finally {
    server.child.kill("SIGTERM");
  }
  const { code } = await server.exited;
  rss.ratio = rss.after.at(-1) / rss.after[0];
  const reasons = [];
  const unexpected = runs.reduce((sum, r) => sum + r.tally.unexpected, 0);
  if (unexpected > 0) reasons.push(`${unexpected} unexpected answers`);
  if (rss.ratio > RSS_LIMIT) reasons.push(`RSS grew ${rss.ratio.toFixed(2)}× from run 1 to run ${options.runs}`);
  if (server.stderr().trim() !== "") reasons.push("the server wrote to stderr");
  if (code !== 0) reasons.push(`the server exited ${code} on SIGTERM`);
  const verdict = { ok: reasons.length === 0, reasons };
  console.log(`soak: RSS after run 1 ${(rss.after[0] / 1024).toFixed(1)} MiB, after run ${options.runs} ${(rss.after.at(-1) / 1024).toFixed(1)} MiB, ratio ${rss.ratio.toFixed(2)} (limit ${RSS_LIMIT})`);
  mkdirSync(dirname(options.out), { recursive: true });
  writeFileSync(options.out, report(options, runs, rss, verdict, server.stderr()));
  console.log(`soak: ${verdict.ok ? "pass" : `FAIL: ${reasons.join("; ")}`}; wrote ${relative(root, options.out)}`);
  process.exitCode = verdict.ok ? 0 : 1;
}

await main();
