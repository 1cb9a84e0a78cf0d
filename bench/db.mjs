// The db part (issues 20 and 29): fw/db's pages and store against a hand-written peer.
//  - Show (one row by key) and Index (50 rows of 60, its filter form, a keyset pager: "60 articles"
//    and Next to `?after=<cursor>`) of a table model's derived pages, through a layout with a
//    session cookie: fw (bench/servers/db-app, on DbApp, migrated) on
//    PostgreSQL and on PGlite, against Fastify + pg running the same SQL and building the same
//    bytes by hand (bench/servers/db-fastify.mjs). wrk as the throughput part: servers pinned to
//    core 0, wrk to core 1 (and PostgreSQL, a throwaway cluster, to core 1 too), rounds interleaved.
//  - Relations (issue 29): Show of a post with its author's label and 20 comments (the has-many
//    list), Index of 50 posts with their authors' labels (a reference column) and a filter form
//    offering the 25 authors; fw on PostgreSQL against Fastify + pg. The statements each page
//    costs are counted at the database (pg_stat_statements) for both sides, compared (the same
//    statements, as many), and printed. Each Index's next page (the keyset page its Next links
//    to) is checked the same way, bytes and statements, but not measured.
//  - SqlStore insert and read-by-key ops/s on each engine (bench/db-worker.mjs), one operation at
//    a time and 10 in flight.
//  - Idle RSS and boot time of an app on the embedded engine, and PGlite's cold start (first open
//    of an empty directory, then a reopen).
// Without PostgreSQL on the machine it says so in one line and runs the PGlite rows alone.
import { spawnSync } from "node:child_process";
import PgDriver from "pg";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { bigPosts } from "./big-posts.mjs";
import { bigTables } from "./big-tables.mjs";
import { idleRss } from "./memory.mjs";
import { DB_APP_MAIN, POLICY_APP_MAIN } from "./lib/db-app.mjs";
import { policyGroup, policyPreflight, policySignIn, policyStatements } from "./db-policy.mjs";
import { postgresSupport } from "./lib/postgres.mjs";
import { measureGroups } from "./lib/rounds.mjs";
import { signIn } from "./lib/sides.mjs";
import { freePort, log, pairedRatios, pinned, ROOT, run, startServer, summary, WORK } from "./lib/util.mjs";
import { wrk } from "./lib/wrk.mjs";

const SERVER_CORE = 0;
const LOAD_CORE = 1;
const RUN_DIR = join(WORK, "db-run");
/** A plain table model's pages (Article: no references). */
const SHOW_PATH = "/articles/7";
const INDEX_PATH = "/articles";
/** The relations' pages: a post (its author's label, its 20 comments), the posts' Index (each post's author's label). */
const POST_PATH = "/posts/7";
const POSTS_PATH = "/posts";
/** The rows `db seed` writes (bench/servers/db-app/src/seed.ts): articles, posts, authors, comments per post. */
const SEEDED = 60;
const POSTS = 60;
const AUTHORS = 25;
const COMMENTS_PER_POST = 20;
/** Tags, 3 on each post (bench/servers/db-app/src/seed.ts's postTags): a page of 50 posts names all of them. */
const TAGS = 20;
const TAGS_PER_POST = 3;
/** Requests per page whose statements are counted (pg_stat_statements' calls over them). */
const COUNTED_REQUESTS = 10;
/** Times a page's statements are counted while some come a share of a time per page (background work in the window). */
const COUNT_ATTEMPTS = 3;
/** The rows an Index shows a page. */
const PAGE_SIZE = 50;

/** The cursor of a row in a list in key order, as an Index's links carry it: its key in a JSON array, base64url (`[50]` → `WzUwXQ`). */
function cursor(key) {
  return Buffer.from(JSON.stringify([key]), "utf8").toString("base64url");
}
/** Each Index's next page: the rows after its first page's last (key 50). */
const INDEX_NEXT_PATH = `${INDEX_PATH}?after=${cursor(PAGE_SIZE)}`;
const POSTS_NEXT_PATH = `${POSTS_PATH}?after=${cursor(PAGE_SIZE)}`;

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
export async function prepareApp(name, env, script = DB_APP_MAIN) {
  const cwd = join(RUN_DIR, name);
  rmSync(cwd, { recursive: true, force: true });
  mkdirSync(cwd, { recursive: true });
  for (const args of [["db", "new", "create_tables"], ["db", "migrate"], ["db", "seed"]]) await appCommand(script, args, cwd, env);
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
export function pinPostgres(url) {
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

/** The keyset pager of a first page of `total` rows: the count, and Next to the rows after its last. */
function firstPager(path, total, many) {
  return `<nav class="fw-pager" aria-label="Pages"><span>${total} ${many}</span><a href="${path}?after=${cursor(PAGE_SIZE)}" rel="next">Next</a></nav>`;
}

/** The keyset pager of the last page (after the first): Previous to the rows before its first, the count, no Next. */
function lastPager(path, total, many) {
  return `<nav class="fw-pager" aria-label="Pages"><a href="${path}?before=${cursor(PAGE_SIZE + 1)}" rel="prev">Previous</a><span>${total} ${many}</span></nav>`;
}

/** The filter form's Published checkbox (Article's and Post's one yes/no field) and its page size (50 chosen). */
function checkFilters(html, side, path) {
  check(html.includes('<label class="fw-filter"><input type="checkbox" name="published" value="true"> Published</label>'), `${side} ${path} lacks its Published filter`);
  check(html.includes('<option value="50" selected>50</option>'), `${side} ${path} lacks its page size (50 chosen)`);
}

/** The posts' author filter: a select of the 25 authors by name, Any chosen. */
function checkAuthorFilter(html, side, path) {
  const options = count(html, /<option value="\d+">Author #\d+ &quot;Quill&quot; &amp; &lt;Sons&gt;<\/option>/g);
  check(html.includes('<select name="author"><option value="" selected>Any</option>') && options === AUTHORS, `${side} ${path} should offer the ${AUTHORS} authors in its filter, not ${options}`);
}

/** The posts' tags: each post's three as links with their names, and a filter offering the 20 by name, Any chosen; the search box. */
function checkTags(html, side, path, posts) {
  const links = count(html, /<a href="\/tags\/\d+">Tag #\d+ &quot;Q&amp;A&quot; &lt;\d+&gt;<\/a>/g);
  check(links === posts * TAGS_PER_POST, `${side} ${path} should show the ${TAGS_PER_POST} tags of each of its ${posts} posts as links with their names, not ${links}`);
  const options = count(html, /<option value="\d+">Tag #\d+ &quot;Q&amp;A&quot; &lt;\d+&gt;<\/option>/g);
  check(html.includes('<select name="tags"><option value="" selected>Any</option>') && options === TAGS, `${side} ${path} should offer the ${TAGS} tags in its filter, not ${options}`);
  check(html.includes('<label class="fw-search">Search posts <input type="search" name="q" value="" maxlength="200"></label>'), `${side} ${path} lacks its search box`);
}

/**
 * The pages checked before the load, and what each must show (beyond status, session and the same
 * bytes on every side): `relations` pages are measured on PostgreSQL (fw and Fastify + pg) alone;
 * a page that `follows` another (an Index's next page) is checked, bytes and statements, but not
 * measured, and when it fails, the page it follows fails too.
 */
const PAGES = [
  {
    id: "show",
    path: SHOW_PATH,
    check(html, side) {
      check(html.includes('href="/articles/7/delete"'), `${side} Show lacks its Delete link (the confirm page)`);
      check(html.includes("Article #7: &quot;Fair&quot; benchmarks &amp; &lt;other&gt; stories"), `${side} Show lacks row 7's title, escaped`);
    },
  },
  {
    id: "index",
    path: INDEX_PATH,
    check(html, side) {
      const rows = count(html, /<a href="\/articles\/\d+">Show<\/a>/g);
      check(rows === PAGE_SIZE, `${side} Index should list ${PAGE_SIZE} rows (a page), not ${rows}`);
      checkFilters(html, side, INDEX_PATH);
      check(html.includes(firstPager(INDEX_PATH, SEEDED, "articles")), `${side} Index lacks its pager (${SEEDED} articles, Next to ${INDEX_NEXT_PATH})`);
    },
  },
  {
    id: "indexNext",
    path: INDEX_NEXT_PATH,
    follows: "index",
    check(html, side) {
      const rows = count(html, /<a href="\/articles\/\d+">Show<\/a>/g);
      check(rows === SEEDED - PAGE_SIZE, `${side} ${INDEX_NEXT_PATH} should list the last ${SEEDED - PAGE_SIZE} rows, not ${rows}`);
      check(html.includes(lastPager(INDEX_PATH, SEEDED, "articles")), `${side} ${INDEX_NEXT_PATH} lacks its pager (Previous, ${SEEDED} articles, no Next)`);
    },
  },
  {
    id: "post",
    path: POST_PATH,
    relations: true,
    check(html, side) {
      check(html.includes('<dt>Author</dt><dd><a href="/authors/7">Author #7 &quot;Quill&quot; &amp; &lt;Sons&gt;</a></dd>'), `${side} ${POST_PATH} lacks its author as a link with the author's name`);
      check(count(html, /<a href="\/tags\/\d+">Tag #\d+ /g) === TAGS_PER_POST, `${side} ${POST_PATH} should show its ${TAGS_PER_POST} tags as links with their names`);
      const comments = count(html, /<a href="\/comments\/\d+">Show<\/a>/g);
      check(comments === COMMENTS_PER_POST, `${side} ${POST_PATH} should list the post's ${COMMENTS_PER_POST} comments, not ${comments}`);
      check(html.includes('<a href="/comments/new?post=7" class="fw-new">Add a comment</a>'), `${side} ${POST_PATH} lacks "Add a comment"`);
    },
  },
  {
    id: "posts",
    path: POSTS_PATH,
    relations: true,
    check(html, side) {
      const rows = count(html, /<a href="\/posts\/\d+">Show<\/a>/g);
      check(rows === PAGE_SIZE, `${side} ${POSTS_PATH} should list ${PAGE_SIZE} posts (a page), not ${rows}`);
      const authors = count(html, /<td><a href="\/authors\/\d+">Author #\d+ &quot;Quill&quot; &amp; &lt;Sons&gt;<\/a><\/td>/g);
      check(authors === PAGE_SIZE, `${side} ${POSTS_PATH} should show ${PAGE_SIZE} authors as links with their names, not ${authors}`);
      checkAuthorFilter(html, side, POSTS_PATH);
      checkTags(html, side, POSTS_PATH, PAGE_SIZE);
      checkFilters(html, side, POSTS_PATH);
      check(html.includes(firstPager(POSTS_PATH, POSTS, "posts")), `${side} ${POSTS_PATH} lacks its pager (${POSTS} posts, Next to ${POSTS_NEXT_PATH})`);
    },
  },
  {
    id: "postsNext",
    path: POSTS_NEXT_PATH,
    relations: true,
    follows: "posts",
    check(html, side) {
      const rows = count(html, /<a href="\/posts\/\d+">Show<\/a>/g);
      check(rows === POSTS - PAGE_SIZE, `${side} ${POSTS_NEXT_PATH} should list the last ${POSTS - PAGE_SIZE} posts, not ${rows}`);
      checkAuthorFilter(html, side, POSTS_NEXT_PATH);
      checkTags(html, side, POSTS_NEXT_PATH, POSTS - PAGE_SIZE);
      check(html.includes(lastPager(POSTS_PATH, POSTS, "posts")), `${side} ${POSTS_NEXT_PATH} lacks its pager (Previous, ${POSTS} posts, no Next)`);
    },
  },
];

function count(text, pattern) {
  return (text.match(pattern) ?? []).length;
}

/**
 * Each side's pages, checked alike before any load: status, rows, session, and the same bytes as
 * the first side. A page that fails a check is put in `failed` (page id → what failed) and is not
 * measured: its row says FAILED in the report and the run exits non-zero; the other pages go on.
 */
/** The paths of the pages the db part serves (each Index's keyset page too), in its order: what `instructions.mjs --mixed` has a db side serve first. */
export const DB_PAGE_PATHS = PAGES.map((page) => page.path);

export async function preflight(sides, cookie, failed) {
  const facts = {};
  for (const page of PAGES) {
    try {
      facts[page.id] = await preflightPage(page, sides, cookie);
    } catch (error) {
      fail(failed, page, String(error.message ?? error));
    }
  }
  return facts;
}

/** Puts a page in `failed`, and the page it follows (an Index whose next page failed), saying why. */
function fail(failed, page, message) {
  failed[page.id] = message;
  log(`db: FAILED ${page.path}: ${message}`);
  if (page.follows !== undefined) failed[page.follows] ??= `its next page ${page.path} failed: ${message}`;
}

async function preflightPage(page, sides, cookie) {
  const facts = {};
  {
    let reference;
    for (const side of sides) {
      const res = await fetch(`${side.server.url}${page.path}`, { headers: { cookie } });
      const html = await res.text();
      check(res.status === 200, `${side.id} GET ${page.path} answered ${res.status}: ${html.slice(0, 300)}`);
      check(html.includes("Signed in as ada"), `${side.id} GET ${page.path} lacks the session's user`);
      check(res.headers.get("set-cookie") === null, `${side.id} GET ${page.path} should not set a cookie`);
      page.check(html, side.id);
      if (reference === undefined) reference = { id: side.id, html };
      else if (html !== reference.html) {
        let at = 0;
        while (html[at] === reference.html[at]) at++;
        throw new Error(`db preflight: ${side.id}'s ${page.path} differs from ${reference.id}'s at character ${at}:\n  ${reference.id}: ${JSON.stringify(reference.html.slice(Math.max(0, at - 40), at + 60))}\n  ${side.id}: ${JSON.stringify(html.slice(Math.max(0, at - 40), at + 60))}`);
      }
      facts[side.id] = sizes(res, html);
    }
  }
  return facts;
}

/** A database of its own in the cluster (each app keeps its own migrations): its URL. */
export async function databaseOf(clusterUrl, name) {
  const admin = new PgDriver.Client({ connectionString: clusterUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(clusterUrl);
  url.pathname = `/${name}`;
  return url.href;
}

/**
 * Counts, at the database, the statements a page costs: PostgreSQL restarted once with
 * pg_stat_statements loaded (an extension of PostgreSQL's own contrib), which records every
 * statement any connection runs (BEGIN and COMMIT too) with its number of calls. Undefined (the
 * counts then say "not counted") when the cluster's PostgreSQL has no pg_stat_statements.
 */
async function statementCounts(cluster, bin) {
  if (!existsSync(join(bin, "..", "lib", "pg_stat_statements.so"))) return undefined;
  const admin = new PgDriver.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query(`ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`);
  await admin.end();
  await cluster.stop();
  await cluster.start();
  const client = new PgDriver.Client({ connectionString: cluster.url });
  await client.connect();
  await client.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
  /** The statements `COUNTED_REQUESTS` GETs of `url` cost, in `database`, one request at a time. */
  async function countOnce(url, cookie, database) {
    await client.query("SELECT pg_stat_statements_reset()");
    for (let i = 0; i < COUNTED_REQUESTS; i++) {
      const res = await fetch(url, { headers: { cookie } });
      await res.arrayBuffer();
      check(res.status === 200, `GET ${url} answered ${res.status} while its statements were counted`);
    }
    // This client's own statements name the view; every other statement is the server's.
    // Only the database the page's server uses: another app's background work (a job worker) runs in the cluster too.
    const { rows } = await client.query(
      `SELECT query, calls FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%' AND dbid = (SELECT oid FROM pg_database WHERE datname = $1) ORDER BY query`,
      [database],
    );
    const statements = rows.map((row) => ({ sql: row.query, perPage: Number(row.calls) / COUNTED_REQUESTS }));
    return { perPage: statements.reduce((n, x) => n + x.perPage, 0), statements };
  }
  return {
    /** The statements `COUNTED_REQUESTS` GETs of `url` cost, one request at a time: each statement's text and calls per page. */
    async of(url, cookie, database = new URL(cluster.url).pathname.slice(1) || "postgres") {
      // A page's own statements come a whole number of times per page. A share (0.1×) is a
      // server's background work that fell in the window (the policy app's job worker polls its
      // database every second: BEGIN, the schedules, the claim, COMMIT): counted again, a few
      // times at most, and reported as it is when it persists.
      let counted;
      for (let attempt = 0; attempt < COUNT_ATTEMPTS; attempt++) {
        counted = await countOnce(url, cookie, database);
        if (counted.statements.every((x) => Number.isInteger(x.perPage))) break;
      }
      return counted;
    },
    /** Stops recording (the load is measured without it). */
    async pause() {
      await client.query(`ALTER SYSTEM SET pg_stat_statements.track = 'none'`);
      await client.query("SELECT pg_reload_conf()");
    },
    /** Records again (the big posts' pages are counted after the other pages' load). */
    async resume() {
      await client.query(`ALTER SYSTEM SET pg_stat_statements.track = 'top'`);
      await client.query("SELECT pg_reload_conf()");
    },
    /** Stops recording and closes the connection. */
    async stop() {
      await this.pause();
      await client.end();
    },
  };
}

/**
 * A side's counted statements, compared without their constants: pg_stat_statements shows a
 * statement it saw parsed with its constants as `$n` (`SELECT $4 FROM "posts" LIMIT $3`), and
 * one a connection had prepared before the count began (fw names its statements: each
 * connection parses a text once) as written (`SELECT 1 FROM "posts" LIMIT $3`).
 */
function shapes(counted) {
  return counted.statements
    .map((x) => `${x.perPage}× ${x.sql.replace(/\$\d+|\b\d+\b/g, "?")}`)
    .sort()
    .join("\n");
}

/**
 * The statements each PostgreSQL side's pages cost, counted at the database; every side must
 * send the very statements the first sends, as many times, or the preflight fails.
 */
async function countQueries(counter, sides, cookie, failed) {
  const queries = {};
  for (const page of PAGES) {
    if (failed[page.id] !== undefined) continue;
    let reference;
    for (const side of sides) {
      const counted = await counter.of(`${side.server.url}${page.path}`, cookie);
      check(counted.perPage > 0, `${side.id} GET ${page.path}: no statement reached PostgreSQL`);
      const text = (c) => c.statements.map((x) => `${x.perPage}× ${x.sql}`).join("\n    ");
      if (reference === undefined) reference = { id: side.id, counted };
      else if (shapes(counted) !== shapes(reference.counted)) {
        fail(failed, page, `db preflight: ${side.id}'s ${page.path} sends other statements than ${reference.id}'s (per page):\n  ${reference.id}:\n    ${text(reference.counted)}\n  ${side.id}:\n    ${text(counted)}`);
        break;
      }
      queries[page.id] ??= {};
      queries[page.id][side.id] = counted;
    }
    if (failed[page.id] !== undefined) continue;
    log(`db: GET ${page.path}: ${sides.map((side) => `${side.id} ${queries[page.id][side.id].perPage}`).join(", ")} statement(s) per page`);
  }
  return queries;
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
  const apps = [{ id: "benchApp", label: "the bench's fw app (`DbApp`, four table models)", script: DB_APP_MAIN, cwd: () => pgliteCwd, paths: ["/login", INDEX_PATH, SHOW_PATH] }];
  const example = join(ROOT, "example", "dist", "main.js");
  if (existsSync(example) && readFileSync(example, "utf8").includes("DbApp")) {
    apps.push({
      id: "example",
      label: "the example (`example/dist/main.js`)",
      script: example,
      // It keeps covers and attachments (fw/files): production must be told where (issue 40).
      env: { FW_STORAGE: `file://${join(RUN_DIR, "example", "files")}` },
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

export async function db({ seconds, rounds, relationsRounds = rounds, warmup, connections, storeMs, storeRounds = 3, rssRounds, coldRounds }) {
  const env = { FW_SECRET: process.env.FW_SECRET, FW_ALLOWED_HOSTS: "127.0.0.1,localhost", FW_ORIGIN: "http://localhost", FW_MAILBOX: ".fw/bench-mail" };
  const embedded = { ...env, DATABASE_URL: "" };
  const servers = {};
  let cluster;
  const results = { postgres: undefined, errors: [] };
  let counter;
  mkdirSync(RUN_DIR, { recursive: true });
  try {
    const support = await postgresSupport();
    const bin = support.postgresBin();
    if (bin === undefined) {
      log("db: PostgreSQL not found (no /usr/lib/postgresql/*/bin/initdb, PG_BIN unset): the PostgreSQL and Fastify + pg rows are skipped; PGlite runs.");
      results.postgres = "not found";
    } else {
      cluster = await support.startCluster(bin);
      // Before pinning: loading pg_stat_statements restarts the cluster (a new postmaster).
      counter = await statementCounts(cluster, bin);
      results.postgres =
        `${bin} (a throwaway cluster: fsync off, max_connections 40${pinPostgres(cluster.url) ? `, pinned to core ${LOAD_CORE}` : ""}` +
        `${counter === undefined ? "; no pg_stat_statements, so no statement counts" : "; pg_stat_statements loaded, recording only while the preflight counts statements"})`;
      log(`db: PostgreSQL cluster at ${cluster.url}`);
    }
    const pg = cluster === undefined ? undefined : { ...env, DATABASE_URL: cluster.url };

    log("db: preparing the app's databases (db new, db migrate, db seed)");
    const pgCwd = pg === undefined ? undefined : await prepareApp("postgres", pg);
    const pgliteCwd = await prepareApp("pglite", embedded);
    // The policy rows (issue 41) on PostgreSQL, on PGlite without it.
    const policyEngine = pg === undefined ? "PGlite" : "PostgreSQL";
    const policyEnv = pg === undefined ? embedded : { ...pg, DATABASE_URL: await databaseOf(cluster.url, "policy") };
    const policyCwd = await prepareApp(`policy-${policyEngine.toLowerCase()}`, policyEnv, POLICY_APP_MAIN);

    if (pg !== undefined) {
      servers.fastify = await start("Fastify + pg", join(ROOT, "bench", "servers", "db-fastify.mjs"), { env: pg });
      servers.fwPg = await start("fw on PostgreSQL", DB_APP_MAIN, { env: pg, cwd: pgCwd });
    }
    servers.fwPglite = await start("fw on PGlite", DB_APP_MAIN, { env: embedded, cwd: pgliteCwd, timeoutMs: 120_000 });
    servers.policy = await start(`fw's policy app on ${policyEngine}`, POLICY_APP_MAIN, { env: policyEnv, cwd: policyCwd, timeoutMs: 120_000 });
    // The session every request sends: signed by fw ("ada" signed in, a CSRF token); the peer checks it by hand.
    const cookie = await signIn(servers.fwPg?.url ?? servers.fwPglite.url);
    const headers = [`Cookie: ${cookie}`];
    const sides = [
      ...(pg === undefined ? [] : [
        { id: "fastify", label: "Fastify + pg (same SQL, HTML by hand)", server: servers.fastify },
        { id: "fwPg", label: "fw on PostgreSQL (pg, pool of 10)", server: servers.fwPg },
      ]),
      { id: "fwPglite", label: "fw on PGlite (embedded, in the server's process)", server: servers.fwPglite },
    ];
    // The relations' pages are measured on PostgreSQL alone (fw against Fastify + pg; PGlite too without PostgreSQL).
    const measured = (page) => (page.relations && pg !== undefined ? sides.filter((side) => side.id !== "fwPglite") : sides);
    // Every server serves load first, as in the throughput part (FINDINGS 14).
    for (const side of sides) {
      for (const page of PAGES.filter((p) => p.follows === undefined && measured(p).includes(side))) await wrk({ url: `${side.server.url}${page.path}`, seconds: warmup, connections, core: LOAD_CORE, headers });
    }
    // Pages whose answers differ between the sides (or fail a check): not measured, FAILED in the report.
    const failed = {};
    results.failed = failed;
    results.facts = await preflight(sides, cookie, failed);
    results.facts.cookieBytes = cookie.length;
    let policyCookie;
    try {
      policyCookie = await policySignIn(servers.policy.url);
      await policyPreflight(servers.policy.url, policyCookie);
    } catch (error) {
      failed.policy = String(error.message ?? error);
      log(`db: FAILED the policy pages: ${failed.policy}`);
    }
    if (counter !== undefined) {
      log(`db: statements per page, counted at the database (pg_stat_statements, ${COUNTED_REQUESTS} requests a page, one at a time)`);
      results.facts.queries = await countQueries(counter, sides.filter((side) => side.id !== "fwPglite"), cookie, failed);
      if (failed.policy === undefined) {
        try {
          results.facts.policyQueries = await policyStatements(counter, servers.policy.url, policyCookie, pg === undefined ? undefined : "policy");
          log(`db: the policy pages: ${Object.entries(results.facts.policyQueries).map(([id, c]) => `${id} ${c.perPage}`).join(", ")} statement(s) per page`);
        } catch (error) {
          failed.policy = String(error.message ?? error);
          log(`db: FAILED the policy pages: ${failed.policy}`);
        }
      }
      await counter.pause();
    }
    results.facts.countedRequests = COUNTED_REQUESTS;
    const titles = {
      show: `Show \`GET ${SHOW_PATH}\` (one row by key)`,
      index: `Index \`GET ${INDEX_PATH}\` (${PAGE_SIZE} rows of ${SEEDED}, a filter form, a keyset pager)`,
      post: `Show of a post \`GET ${POST_PATH}\` (the post, its author's name and its ${TAGS_PER_POST} tags' names as links, its ${COMMENTS_PER_POST} comments: the has-many list)`,
      posts: `Index of posts \`GET ${POSTS_PATH}\` (${PAGE_SIZE} posts of ${POSTS}, each author's name and its ${TAGS_PER_POST} tags' names as links: ${AUTHORS} authors and ${TAGS} tags, the tags from the join table in one statement, one label query per model; a search box and a filter form offering the ${AUTHORS} authors and the ${TAGS} tags, read in parallel with the page; a keyset pager)`,
    };
    const groups = PAGES.filter((page) => page.follows === undefined && failed[page.id] === undefined).map((page) => ({
      id: page.id,
      title: titles[page.id],
      path: page.path,
      relations: page.relations === true,
      // Issue 29's target rows (fw against Fastify + pg within a few percent): five rounds, so one
      // noisy 2 s round moves the median less (16 s more in a full run).
      ...(page.relations === true ? { rounds: relationsRounds } : {}),
      baseline: pg === undefined ? undefined : "fastify",
      rows: measured(page).map((side) => ({
        id: side.id,
        label: side.label,
        queries: results.facts.queries?.[page.id]?.[side.id]?.perPage,
        url: `${side.server.url}${page.path}`,
        server: side.server,
        headers,
      })),
    }));
    // The policy app's job worker (its mailer's) polls the database: it is not running while the other pages are measured.
    await servers.policy.stop();
    delete servers.policy;
    await measureGroups(groups, { seconds, rounds, warmup, connections, core: LOAD_CORE, what: "db" });
    if (failed.policy === undefined) {
      servers.policy = await start(`fw's policy app on ${policyEngine}`, POLICY_APP_MAIN, { env: policyEnv, cwd: policyCwd, timeoutMs: 120_000 });
      const policy = policyGroup(servers.policy, await policySignIn(servers.policy.url), policyEngine, results.facts.policyQueries);
      await measureGroups([policy], { seconds, rounds, warmup, connections, core: LOAD_CORE, what: "db" });
      groups.push(policy);
    }
    for (const group of groups) {
      const rows = group.rows.map((r) => `${r.id} ${Math.round(r.rps.median)} req/s${r.ratio === undefined ? "" : ` (${r.ratio.toFixed(2)}×)`}${r.queries === undefined ? "" : `, ${r.queries} ${r.queries === 1 ? "statement" : "statements"} a page`}`);
      log(`db: ${group.id}: ${rows.join("; ")}`);
      // The embedded engine against the same app on PostgreSQL, paired round by round (issue 30).
      const embeddedRow = group.rows.find((row) => row.id === "fwPglite");
      const onPostgres = group.rows.find((row) => row.id === "fwPg");
      const embedded = embeddedRow === undefined || onPostgres === undefined ? undefined : pairedRatios(embeddedRow.runs, onPostgres.runs);
      if (embedded?.roundRatios !== undefined) group.pgliteToPostgres = { rps: embedded.roundRatios, dropped: embedded.dropped };
    }
    results.groups = groups;
    results.boot = Object.fromEntries(Object.entries(servers).map(([id, s]) => [id, s.bootMs]));
    await Promise.all(Object.values(servers).map((s) => s.stop()));
    for (const key of Object.keys(servers)) delete servers[key];

    // FW_BENCH_BIG_TABLES=0 leaves the 1,000,000-row rows out (seeding takes a minute or more each):
    // the report says "not measured"; =posts runs the bench app's big posts alone, =example the example's.
    const big = process.env.FW_BENCH_BIG_TABLES;
    // Issue 43: the bench app's posts Index at 1,000,000 posts (bench/big-posts.mjs), on PostgreSQL.
    if (big === "0" || big === "example" || pg === undefined) log(`db: big posts left out (${pg === undefined ? "no PostgreSQL" : `FW_BENCH_BIG_TABLES=${big}`})`);
    else try {
      results.bigPosts = await bigPosts({ clusterUrl: cluster.url, migrations: join(pgCwd, "db", "migrations"), counter, cookie, env, seconds, rounds: Math.min(rounds, 3), pageRounds: relationsRounds, warmup, connections: 10 });
    } catch (error) {
      log(`db: big posts not measured: ${error.stack ?? error}`);
      results.errors.push(`big posts: ${String(error.message ?? error).split("\n")[0]}`);
    }
    await counter?.stop();
    counter = undefined;

    // Issue 30 item 9: the example's Index and Show at 1,000 and 1,000,000 posts (bench/big-tables.mjs).
    // 10 connections: a page of PGlite's takes tens of ms, and 50 queued on it time out a 2 s round.
    if (big === "0" || big === "posts") log(`db: big tables left out (FW_BENCH_BIG_TABLES=${big})`);
    else try {
      results.bigTables = await bigTables({ seconds, rounds: Math.min(rounds, 3), warmup, connections: 10, clusterUrl: cluster?.url });
    } catch (error) {
      log(`db: big tables not measured: ${error.stack ?? error}`);
      results.errors.push(`big tables: ${String(error.message ?? error).split("\n")[0]}`);
    }

    log(`db: store ops (${storeMs} ms per operation kind)`);
    const targets = [...(pg === undefined ? [] : [["postgres", cluster.url]]), ["pglite", join(RUN_DIR, "store-pglite")]];
    const store = Object.fromEntries(targets.map(([id]) => [id, []]));
    rmSync(join(RUN_DIR, "store-pglite"), { recursive: true, force: true });
    for (let round = 0; round < storeRounds; round++) {
      for (const [id, target] of targets) store[id].push(await storeOps(target, storeMs));
      log(`  round ${round + 1}/${storeRounds}: ${targets.map(([id]) => `${id} ${Object.entries(store[id][round]).filter(([k]) => /^(insert|read)/.test(k)).map(([k, v]) => `${k} ${Math.round(v)}`).join(" ")}`).join("; ")}`);
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
      for (const app of [...apps.map((a) => ({ ...a, env: { ...embedded, ...a.env } })), ...references]) {
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
    await counter?.stop().catch(() => undefined);
    await cluster?.destroy();
  }
}
