// The scale part of `npm run bench` (issue 21): a database-backed Show page served by one app
// process vs `--workers 2` on one PostgreSQL (the scaling factor), and the latency of a chat
// message from a socket on one app process to a socket on another (LISTEN/NOTIFY).
//
//   node bench/run.mjs --only=scale [--no-build]
//
// The app is spec/fixtures/scale (a table model, SqlUsers, a named Room), built with tspc. A
// throwaway PostgreSQL cluster is started under a temp dir (PG_BIN, else the newest
// /usr/lib/postgresql/N/bin); without PostgreSQL the part is skipped, saying so.
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { freePort, fmtInt, fmtNum, log, ROOT, run, sleep, sorted, startServer, summary } from "./lib/util.mjs";
import { wrk } from "./lib/wrk.mjs";

const FIXTURE = join(ROOT, "spec/fixtures/scale");
const MAIN = join(FIXTURE, "dist/main.js");

export function postgresBin() {
  const given = process.env.PG_BIN;
  if (given !== undefined && existsSync(join(given, "initdb"))) return given;
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "initdb"))).sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], "bin");
}

/** initdb + pg_ctl under a temp dir on a free port (as the tests do: spec/support/postgres.ts). */
export async function startCluster(bin) {
  const dir = mkdtempSync(join(tmpdir(), "fw-bench-pg-"));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const id = (flag) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
    chownSync(dir, id("-u"), id("-g"));
  }
  const exec = (tool, args) => execFileSync(asRoot ? "runuser" : join(bin, tool), asRoot ? ["-u", "postgres", "--", join(bin, tool), ...args] : args, { stdio: "ignore" });
  const port = await freePort();
  exec("initdb", ["-D", join(dir, "data"), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync", "--locale=C"]);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`;
  exec("pg_ctl", ["-D", join(dir, "data"), "-o", options, "-l", join(dir, "log"), "-w", "-t", "60", "start"]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    destroy: () => {
      try {
        exec("pg_ctl", ["-D", join(dir, "data"), "-m", "fast", "-w", "-t", "60", "stop"]);
      } catch {}
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Builds the fixture, makes its tables and one post to show. */
export async function prepare(env) {
  const built = await run(process.execPath, [join(ROOT, "node_modules/ts-patch/bin/tspc.js"), "-p", FIXTURE], { cwd: FIXTURE });
  if (built.code !== 0) throw new Error(`building spec/fixtures/scale failed:\n${built.output}`);
  const db = await import(pathToFileURL(join(ROOT, "dist/runtime/db/index.js")).href);
  rmSync(join(FIXTURE, "db"), { recursive: true, force: true });
  mkdirSync(join(FIXTURE, "db/migrations"), { recursive: true });
  writeFileSync(join(FIXTURE, "db/migrations/0001_users.sql"), db.usersTableSql());
  for (const command of [["db", "new", "init"], ["db", "migrate"]]) {
    const ran = await run(process.execPath, [MAIN, ...command], { cwd: FIXTURE, env });
    if (ran.code !== 0) throw new Error(`${command.join(" ")} failed:\n${ran.output}`);
  }
  const database = await db.openDatabase({ url: env.DATABASE_URL, log: () => undefined });
  await database.query(`INSERT INTO posts (title) VALUES ($1)`, ["A post served from PostgreSQL"]);
  await database.close();
}

export async function serveApp(name, env, args = []) {
  const port = await freePort();
  // The app reads db/migrations from its working directory: `env -C` starts it in the fixture's.
  const launcher = ["env", "-C", FIXTURE];
  const server = await startServer({ name, script: MAIN, args, env: { ...env, PORT: String(port) }, timeoutMs: 60_000, ready: /fw: serving/, launcher });
  return { ...server, url: `http://127.0.0.1:${port}` };
}

/** Rounds of wrk on the Show page, one process and two workers interleaved (neither pinned: the point is using both cores). */
async function showPage(env, { seconds, rounds, connections, warmup }) {
  const one = await serveApp("scale: one process", env);
  const rows = { one: [], two: [] };
  let two;
  try {
    two = await serveApp("scale: --workers 2", env, ["--workers", "2"]);
    // A fresh app process serves this page several times slower for its first 10-20 s on a
    // loaded machine (V8 and its pool's new PostgreSQL backends warming up), and each of two
    // workers gets half the warming requests: with a short warm-up the workers measured 0.2×
    // of one process, with 20 s about 1× (`--workers 1` alone matched one process after 10 s).
    for (const server of [one, two]) await wrk({ url: `${server.url}/posts/1`, seconds: warmup, connections });
    for (let round = 0; round < rounds; round++) {
      for (const [key, server] of [["one", one], ["two", two]]) {
        const result = await wrk({ url: `${server.url}/posts/1`, seconds, connections });
        if (result.non2xx > 0) throw new Error(`${server.name}: ${result.non2xx} answers were not 2xx`);
        rows[key].push(result);
        log(`scale: ${key === "one" ? "1 process " : "2 workers "} round ${round + 1}: ${fmtInt(result.rps)} req/s, p99 ${fmtNum(result.p99)} ms`);
      }
    }
  } finally {
    await one.stop();
    await two?.stop();
  }
  const ratios = rows.one.map((r, i) => rows.two[i].rps / r.rps);
  return { one: rows.one, two: rows.two, ratios };
}

/** A socket on each of two app processes: the time from a send on A to its arrival on B (and back on A). */
async function chatLatency(env, { messages }) {
  const { WebSocket } = await import("ws");
  const a = await serveApp("scale: chat A", env);
  const b = await serveApp("scale: chat B", env);
  const open = (base) =>
    new Promise((done, fail) => {
      const socket = new WebSocket(`${base.replace(/^http/, "ws")}/chat/socket`, { origin: base });
      socket.once("open", () => done(socket)).once("error", fail);
    });
  try {
    const [sender, receiver] = [await open(a.url), await open(b.url)];
    const sentAt = new Map();
    const remote = [];
    const local = [];
    const arrived = (into) => (data) => {
      const id = /: (\d+)$/.exec(String(data))?.[1];
      if (id !== undefined && sentAt.has(id)) into.push(performance.now() - sentAt.get(id));
    };
    receiver.on("message", arrived(remote));
    sender.on("message", arrived(local));
    await sleep(500);
    for (let i = 0; i < messages; i++) {
      sentAt.set(String(i), performance.now());
      sender.send(String(i));
      await sleep(5);
    }
    const deadline = Date.now() + 10_000;
    while (remote.length < messages && Date.now() < deadline) await sleep(20);
    sender.close();
    receiver.close();
    return { messages, remote: summaryOf(remote), local: summaryOf(local), lost: messages - remote.length };
  } finally {
    await a.stop();
    await b.stop();
  }
}

function summaryOf(values) {
  const s = sorted(values);
  const at = (p) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
  return { count: s.length, p50: at(50), p99: at(99), max: s[s.length - 1] };
}

export async function scale(options) {
  const bin = postgresBin();
  if (bin === undefined) {
    log("scale: PostgreSQL not found (no /usr/lib/postgresql/*/bin/initdb, PG_BIN unset): skipped");
    return { skipped: "PostgreSQL not found on this machine" };
  }
  const cluster = await startCluster(bin);
  try {
    const env = { DATABASE_URL: cluster.url, NODE_ENV: "production", FW_ALLOWED_HOSTS: "127.0.0.1,localhost", FW_ORIGIN: "http://localhost", FW_MAILBOX: ".fw/bench-mail" };
    await prepare(env);
    const show = await showPage(env, options);
    const chat = await chatLatency(env, options);
    return { show, chat, options };
  } finally {
    cluster.destroy();
    rmSync(join(FIXTURE, "db"), { recursive: true, force: true });
  }
}

/** The report's section. */
export function scaleSection(r) {
  if (r.skipped !== undefined) return `Skipped: ${r.skipped}.`;
  const { show, chat, options } = r;
  const med = (rows, key) => summary(rows.map((x) => x[key])).median;
  const ratio = summary(show.ratios);
  return [
    `\`GET /posts/1\` of spec/fixtures/scale (a table model's Show page: one row by key from PostgreSQL, layout, session), ` +
      `wrk -c${options.connections} for ${options.seconds} s × ${options.rounds} rounds after ${options.warmup} s of warm-up each, one process and \`--workers 2\` interleaved, nothing pinned ` +
      `(the app processes, PostgreSQL and wrk share the machine's cores).`,
    "",
    "| | req/s (median) | p50 ms | p99 ms |",
    "|---|---:|---:|---:|",
    `| 1 process | ${fmtInt(med(show.one, "rps"))} | ${fmtNum(med(show.one, "p50"))} | ${fmtNum(med(show.one, "p99"))} |`,
    `| \`--workers 2\` | ${fmtInt(med(show.two, "rps"))} | ${fmtNum(med(show.two, "p50"))} | ${fmtNum(med(show.two, "p99"))} |`,
    "",
    `Scaling factor (2 workers / 1 process, per round): **${fmtNum(ratio.median)}×** median (rounds: ${show.ratios.map((x) => fmtNum(x)).join(", ")}).`,
    "",
    `Chat across processes: ${chat.messages} messages, one every 5 ms, from a socket on app process A to a socket on app process B ` +
      `(Room("chat") → NOTIFY → B's LISTEN connection → B's socket), measured in the bench process from send to arrival:`,
    "",
    "| path | p50 ms | p99 ms | max ms |",
    "|---|---:|---:|---:|",
    `| A → B (other process) | ${fmtNum(chat.remote.p50)} | ${fmtNum(chat.remote.p99)} | ${fmtNum(chat.remote.max)} |`,
    `| A → A (same process, for reference) | ${fmtNum(chat.local.p50)} | ${fmtNum(chat.local.p99)} | ${fmtNum(chat.local.max)} |`,
    "",
    chat.lost === 0 ? "Every message arrived." : `**${chat.lost} messages did not arrive within 10 s.**`,
  ].join("\n");
}
