// The live fan-out rows of the live part (issue 30, item 6): the example, as built, in production
// on a throwaway PostgreSQL reached through a proxy that writes down every statement it runs
// (spec/support/pg-query-log.ts), with N anonymous live `/posts` sockets open (each its own
// visitor: its own session and CSRF token). One signed-in author then sends W posts in a burst
// (all in flight at once). Measured:
//   - the SELECTs of the posts the refreshes cost, against the writes and the distinct views the
//     sockets show (target: reads per write ≤ distinct views; before issue 30, one per socket);
//   - from the first write to the last socket showing every new post;
//   - `/fw/health` answered meanwhile: sequential probes from a process of their own, from just
//     before the burst until every socket shows it, p50 / p99 / max (target: p99 < 50 ms).
// Also the server's CPU time per write. Each scenario runs a few bursts one after the other (each
// waited for), so the probes are enough for a p99. Twice: every socket on `/posts` (one view),
// then the sockets spread over its seven orders (`?sort=title`, `?sort=-title`, …: seven views).
// The posts stay on the page's first page (50 rows) throughout. Without PostgreSQL it says so
// and is skipped.
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { getLivePage, LiveConnection } from "./lib/live-client.mjs";
import { postgresSupport, queryLogSupport } from "./lib/postgres.mjs";
import { BENCH, freePort, log, pinned, ROOT, run, sleep, sorted, startServer, WORK } from "./lib/util.mjs";

const SERVER_CORE = 0;
const LOAD_CORE = 1;
const ORDERS = ["/posts", "/posts?sort=title", "/posts?sort=-title", "/posts?sort=category", "/posts?sort=-category", "/posts?sort=published", "/posts?sort=-published"];
/** The longest the sockets may take to show a burst before the run is called failed. */
const SETTLE_MS = 120_000;
/** Where the example puts its mail (fw/mail's FW_MAILBOX), under its folder. */
const MAILBOX = ".fw/bench-mail";

/** A folder for the example with its migrations, migrated by its own `db migrate` (straight to the server: not counted). */
async function exampleFolder(databaseUrl) {
  const cwd = join(WORK, "live-fanout");
  rmSync(cwd, { recursive: true, force: true });
  mkdirSync(cwd, { recursive: true });
  cpSync(join(ROOT, "example", "db", "migrations"), join(cwd, "db", "migrations"), { recursive: true });
  const env = { FW_SECRET: process.env.FW_SECRET, FW_ALLOWED_HOSTS: "127.0.0.1,localhost", FW_ORIGIN: "http://localhost", FW_MAILBOX: ".fw/bench-mail", DATABASE_URL: databaseUrl };
  const migrated = await run(process.execPath, [join(ROOT, "example", "dist", "main.js"), "db", "migrate"], { cwd, env, timeoutMs: 180_000 });
  if (migrated.code !== 0) throw new Error(`the example's db migrate failed:\n${migrated.output}`);
  return cwd;
}

/** A browser for the author: one session cookie, the CSRF token of the last page that showed one. */
function browser(base) {
  let cookie;
  let csrf;
  const send = async (path, init = {}, wantHtml = false) => {
    const response = await fetch(base + path, { redirect: "manual", ...init, headers: { ...init.headers, ...(cookie === undefined ? {} : { cookie }) } });
    const set = response.headers.getSetCookie().find((c) => c.startsWith("fw_session="));
    if (set !== undefined) cookie = set.split(";")[0];
    const html = await response.text();
    csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? csrf;
    return wantHtml ? { status: response.status, html } : response.status;
  };
  const post = (path, fields) =>
    send(path, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ _csrf: csrf, ...fields }).toString() });
  return { get: (path, { html = false } = {}) => send(path, {}, html), post };
}

/**
 * Signs up and in an author, on the page where posts are written. The example confirms a sign-up's
 * email first (fw/mail): the link is read from its mailbox (FW_MAILBOX under `cwd`) and followed.
 */
async function author(base, cwd) {
  const user = browser(base);
  const fields = { email: `bench-${process.pid}@example.com`, password: "a bench password, long enough" };
  const form = await user.get("/signup", { html: true });
  if ((await user.post("/signup", fields)) !== 303) throw new Error("the bench author could not sign up");
  if (form.html.includes('class="fw-auth-confirming"')) {
    const { waitForMail } = await import(pathToFileURL(join(ROOT, "dist", "runtime", "testing", "mailbox.js")).href);
    const mail = await waitForMail(join(cwd, MAILBOX), { to: fields.email, subject: "Confirm your email", timeoutMs: 30_000 });
    const link = new URL(mail.links.find((href) => href.includes("token=")) ?? "");
    await user.get(link.pathname + link.search);
    await user.get("/confirm");
    if ((await user.post("/confirm", {})) !== 303) throw new Error("the bench author could not confirm the sign-up's email");
  }
  await user.get("/login");
  if ((await user.post("/login", fields)) !== 303) throw new Error("the bench author could not sign in");
  await user.get("/posts/new");
  return user;
}

/** The guarded page whose guard's reads are counted (issue 30 item 7): the form for a new post, signed-in users only. */
const GUARDED_PATH = "/posts/new";

/**
 * The statements `requests` signed-in GETs of the guarded page send, and how many of them read the
 * users (the user's row or the sessions signed out: fw/auth's guard asks for both, SqlUsers answers
 * in one statement). An anonymous GET must not get the page, so the page is guarded indeed.
 */
async function guardedPage(base, user, statements, requests) {
  const anonymous = await fetch(base + GUARDED_PATH, { redirect: "manual" });
  await anonymous.text();
  if (anonymous.status === 200) throw new Error(`${GUARDED_PATH} answered an anonymous GET with 200: it is not guarded, so it cannot show the guard's reads`);
  const before = statements.length;
  for (let i = 0; i < requests; i++) {
    const status = await user.get(GUARDED_PATH);
    if (status !== 200) throw new Error(`the signed-in author's GET ${GUARDED_PATH} answered ${status}`);
  }
  const ran = statements.slice(before);
  return { path: GUARDED_PATH, requests, statements: ran.length, userStatements: ran.filter((sql) => /"users(_revoked_sessions)?"/.test(sql)).length };
}

/** Sequential GETs of `/fw/health` from a process of its own (bench/lib/probe.mjs, pinned beside the bench) until `stop()`; their times in ms. */
function probe(base) {
  const { command, args } = pinned(LOAD_CORE, process.execPath, [join(BENCH, "lib", "probe.mjs"), `${base}/fw/health`]);
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (chunk) => (out += chunk));
  const exited = new Promise((done) => child.once("exit", done));
  return {
    stop: async () => {
      child.stdin.end();
      await exited;
      return JSON.parse(out);
    },
  };
}

function percentiles(values) {
  if (values.length === 0) return { count: 0, p50: NaN, p99: NaN, max: NaN };
  const s = sorted(values);
  const at = (p) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
  return { count: s.length, p50: at(50), p99: at(99), max: s[s.length - 1] };
}

/** Deletes every post (straight on the server, not counted, nothing published): each scenario's bursts stay on the first page of every order. */
async function emptyPosts(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('DELETE FROM "posts"');
  } finally {
    await client.end();
  }
}

/** The server's CPU time so far (user + system), in ms (clock ticks of 10 ms). */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * `sockets` anonymous visitors on `paths` (in turn), then `rounds` bursts of `writes` posts at
 * once, each waited for until every socket shows it; what they cost together.
 */
async function bursts(server, statements, writer, { name, sockets, writes, rounds, paths }) {
  const base = server.url;
  const open = [];
  for (let i = 0; i < sockets; i++) {
    const path = paths[i % paths.length];
    const live = new LiveConnection(base, path, await getLivePage(base, path));
    open.push(live);
    await live.opened;
  }
  try {
    const health = probe(base);
    await sleep(200); // a few probes before the first burst
    const before = statements.length;
    const cpuBefore = cpuMs(server.pid);
    const settled = [];
    for (let round = 1; round <= rounds; round++) {
      const titles = Array.from({ length: writes }, (_, i) => `Burst ${name} ${round}.${i + 1}`);
      const t0 = performance.now();
      const answers = await Promise.all(titles.map((title) => writer.post("/posts", { title, body: "Written in a burst.", category: "news", published: "true" })));
      if (answers.some((status) => status !== 303)) throw new Error(`the burst's posts answered ${answers.join(", ")}`);
      while (!open.every((live) => titles.every((title) => live.html?.includes(title)))) {
        if (performance.now() - t0 > SETTLE_MS) throw new Error(`the live sockets did not all show the burst within ${SETTLE_MS / 1000} s`);
        await sleep(5);
      }
      settled.push(performance.now() - t0);
    }
    const cpu = cpuMs(server.pid) - cpuBefore;
    const probes = await health.stop();
    const ran = statements.slice(before);
    const reads = ran.filter((sql) => /^SELECT .* FROM "posts"/.test(sql)).length;
    const inserts = ran.filter((sql) => /^INSERT INTO "posts"/.test(sql)).length;
    return { name, sockets, writes: writes * rounds, rounds, views: paths.length, reads, inserts, settledMs: settled, serverCpuMs: cpu, health: percentiles(probes) };
  } finally {
    for (const live of open) live.close();
  }
}

/**
 * The fan-out rows: `sockets` anonymous live `/posts` sockets, `rounds` bursts of `writes` posts,
 * on one view and on seven. Undefined (and a line saying why) without PostgreSQL.
 */
export async function liveFanOut({ sockets, writes, rounds }) {
  const support = await postgresSupport();
  const bin = support.postgresBin();
  if (bin === undefined) {
    log("live: fan-out skipped: PostgreSQL not found (no /usr/lib/postgresql/*/bin/initdb, PG_BIN unset); its statements are counted on the wire.");
    return undefined;
  }
  const cluster = await support.startCluster(bin);
  const { queryLog } = await queryLogSupport();
  const wire = await queryLog(cluster.url);
  try {
    const cwd = await exampleFolder(cluster.url);
    const port = await freePort();
    const env = { FW_SECRET: process.env.FW_SECRET, FW_ALLOWED_HOSTS: "127.0.0.1,localhost", FW_ORIGIN: "http://localhost", FW_MAILBOX: ".fw/bench-mail", DATABASE_URL: wire.url, PORT: String(port), NODE_ENV: "production", FW_STORAGE: pathToFileURL(join(cwd, "files")).href }; // production names where files are kept (issue 40)
    const started = await startServer({ name: "live: the example", script: join(ROOT, "example", "dist", "main.js"), env, core: SERVER_CORE, cwd, timeoutMs: 120_000 });
    const server = { ...started, url: `http://127.0.0.1:${port}` };
    try {
      const writer = await author(server.url, cwd);
      const guard = await guardedPage(server.url, writer, wire.statements, 5);
      log(`live: guarded page ${guard.path}: ${guard.userStatements} reads of the users in ${guard.requests} signed-in GETs (${guard.statements} statements in all)`);
      const scenarios = [];
      for (const [name, paths] of [["one view", ["/posts"]], ["seven views", ORDERS]]) {
        await emptyPosts(cluster.url);
        const result = await bursts(server, wire.statements, writer, { name, sockets, writes, rounds, paths });
        log(
          `live: fan-out, ${sockets} sockets on ${result.views} view(s), ${result.writes} writes in ${rounds} bursts: ${result.reads} reads of the posts ` +
            `(${(result.reads / result.writes).toFixed(2)} per write), /fw/health p99 ${result.health.p99.toFixed(1)} ms of ${result.health.count} probes, ` +
            `server CPU ${(result.serverCpuMs / result.writes).toFixed(1)} ms per write`,
        );
        scenarios.push(result);
      }
      return { sockets, writes, rounds, scenarios, guard };
    } finally {
      await server.stop();
    }
  } finally {
    await wire.close();
    await cluster.destroy();
  }
}
