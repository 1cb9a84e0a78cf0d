// The db part's 1,000,000-post rows (issue 43's "Done when"): the bench app's posts Index
// (bench/servers/db-app: a post by an author, in a category, with three of 20 tags in the join
// table posts_tags, its title and body searched) on PostgreSQL with 1,000,000 posts and 3,000,000
// links, fw alone (the Fastify peer's rows are the 60-post pages of db.mjs):
//  - the first page (`GET /posts`), the 1,000th keyset page (`?after=` the 49,950th post's
//    cursor) and the Index filtered by a tag and a category (`?category=news&tags=3`), wrk rows
//    interleaved as the other pages, each ratio to the first page paired round by round
//    (targets: the 1,000th page within 1.2× of the first, the filtered one within 2×);
//  - a search for a word (`?q=`), one request at a time as a reader types them, for a rare word
//    (1,000 posts hold it), a frequent one (100,000) and one in every post, p50 and p95 by word
//    (target: p95 ≤ 50 ms);
//  - the statements each page costs, counted at the database (pg_stat_statements, db.mjs's
//    counter) and printed beside each row;
//  - each page's CPU time per request in the server and in the database (the cluster's processes,
//    bench/lib/cluster-cpu.mjs), and its ratio to the first page's by the two together: a page that
//    costs the database more is bound by the load core (wrk and PostgreSQL share it), so its req/s
//    ratio reads the database's share, the CPU ratio the whole cost.
// The database is migrated by the app's own `db migrate` (the migration `db new` wrote for the
// 60-post database) and seeded by one `INSERT … SELECT … FROM generate_series` per table, then
// `VACUUM ANALYZE` (`node bench/big-posts.mjs seed <url> <rows>`, a child process).
import { cpSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import PgDriver from "pg";
import { DB_APP_MAIN } from "./lib/db-app.mjs";
import { clusterCpu } from "./lib/cluster-cpu.mjs";
import { measureGroups } from "./lib/rounds.mjs";
import { cpuSnapshot, freePort, log, otherShare, run, sorted, startServer, summary, WORK } from "./lib/util.mjs";
import { wrk } from "./lib/wrk.mjs";

const SERVER_CORE = 0;
const LOAD_CORE = 1;
const DATABASE = "fw_big_posts";
export const BIG_POSTS = 1_000_000;
const PAGE_SIZE = 50;
const TAGS = 20;
/** The words searched, and how many posts hold each (the seeding puts them there). */
export const SEARCHED = [
  { word: "zeppelin", matches: BIG_POSTS / 1000 },
  { word: "fence", matches: BIG_POSTS / 10 },
  { word: "benchmarks", matches: BIG_POSTS },
];
/** Searches of each word per round, one at a time, after as many untimed. */
const SEARCHES = 20;

function cursor(key) {
  return Buffer.from(JSON.stringify([key]), "utf8").toString("base64url");
}

/** The pages measured: the first, the 1,000th by keyset, the filtered one; and a search's. */
const FIRST_PATH = "/posts";
const PAGE_1000_PATH = `/posts?after=${cursor(999 * PAGE_SIZE)}`;
const FILTERED_PATH = "/posts?category=news&tags=3";
const searchPath = (word) => `/posts?q=${encodeURIComponent(word)}`;

/**
 * The seeding statements, in one session: the 25 authors and 20 tags of the 60-post seed, `rows`
 * posts (author, category and tags by number as bench/servers/db-app/src/seed.ts gives them: post
 * n is in category ["news", "howto", "misc"][n % 3], tagged n % 20 + 1, (n + 7) % 20 + 1 and
 * (n + 13) % 20 + 1), their links, then statistics. Every post's title holds "benchmarks", its
 * body one of ten words (a tenth of the posts each: "fence" is one), and one post in 1,000 also
 * "zeppelin". The foreign keys' checks are off for the session (`session_replication_role`): the
 * rows are made valid, and 4,000,000 checks would double the time. A CHECKPOINT last, so the
 * seeded pages are written before anything is measured.
 */
export function seedSql(rows) {
  const n = Number(rows);
  return [
    `SET session_replication_role = replica`,
    `SET maintenance_work_mem = '256MB'`,
    `INSERT INTO "authors" ("name", "email") SELECT 'Author #' || i || ' "Quill" & <Sons>', 'author' || i || '@example.com' FROM generate_series(1, 25) AS i`,
    `INSERT INTO "tags" ("name") SELECT 'Tag #' || i || ' "Q&A" <' || i || '>' FROM generate_series(1, ${TAGS}) AS i`,
    `INSERT INTO "posts" ("title", "author_id", "body", "published", "category")
       SELECT 'Post #' || i || ': "Fair" benchmarks & <other> stories', 1 + (i - 1) % 25,
              'A body of some length, escaped & all, about the ' ||
                (ARRAY['fence', 'garden', 'river', 'castle', 'harbour', 'meadow', 'lantern', 'orchard', 'quarry', 'violin'])[1 + i % 10] ||
                CASE WHEN i % 1000 = 0 THEN ' and a zeppelin' ELSE '' END || '. Post ' || i || '.',
              i % 3 <> 0, (ARRAY['news', 'howto', 'misc'])[1 + i % 3]
         FROM generate_series(1, ${n}) AS i`,
    `INSERT INTO "posts_tags" ("post_id", "tag_id")
       SELECT i, t FROM generate_series(1, ${n}) AS i, LATERAL (VALUES (i % ${TAGS} + 1), ((i + 7) % ${TAGS} + 1), ((i + 13) % ${TAGS} + 1)) AS x(t)`,
    `SET session_replication_role = DEFAULT`,
    `VACUUM ANALYZE "authors"`,
    `VACUUM ANALYZE "tags"`,
    `VACUUM ANALYZE "posts"`,
    `VACUUM ANALYZE "posts_tags"`,
    // The seeded gigabyte written out now: left to the checkpointer, it took the machine during the first round measured.
    `CHECKPOINT`,
  ];
}

/** Runs in the child: one connection (the session's settings hold for every statement), the time printed. */
async function seedChild(url, rows) {
  const client = new PgDriver.Client({ connectionString: url });
  await client.connect();
  const t0 = performance.now();
  try {
    for (const sql of seedSql(rows)) await client.query(sql);
  } finally {
    await client.end();
  }
  console.log(JSON.stringify({ seedMs: performance.now() - t0 }));
}

function check(condition, message) {
  if (!condition) throw new Error(`big posts preflight: ${message}`);
}

const count = (text, pattern) => (text.match(pattern) ?? []).length;
const keysShown = (html) => [...html.matchAll(/<a href="\/posts\/(\d+)">Show<\/a>/g)].map((m) => Number(m[1]));

/** The pages checked before any load, and what each must show. */
const PAGES = [
  {
    id: "first",
    path: FIRST_PATH,
    check(html) {
      const keys = keysShown(html);
      check(keys.length === PAGE_SIZE && keys[0] === 1 && keys[PAGE_SIZE - 1] === PAGE_SIZE, `${FIRST_PATH} should list posts 1 to ${PAGE_SIZE}, not ${keys.slice(0, 3).join(", ")}…`);
      check(html.includes(`<span>500 or more posts</span><a href="/posts?after=${cursor(PAGE_SIZE)}" rel="next">Next</a>`), `${FIRST_PATH}'s pager should count "500 or more posts" (10 pages ahead) and link Next after post ${PAGE_SIZE}`);
    },
  },
  {
    id: "page1000",
    path: PAGE_1000_PATH,
    check(html) {
      const keys = keysShown(html);
      const from = 999 * PAGE_SIZE + 1;
      check(keys.length === PAGE_SIZE && keys[0] === from && keys[PAGE_SIZE - 1] === 1000 * PAGE_SIZE, `${PAGE_1000_PATH} (the 1,000th page) should list posts ${from} to ${1000 * PAGE_SIZE}, not ${keys.slice(0, 3).join(", ")}…`);
      check(html.includes(`rel="prev">Previous</a>`) && html.includes(`<a href="/posts?after=${cursor(1000 * PAGE_SIZE)}" rel="next">Next</a>`), `${PAGE_1000_PATH} lacks Previous, or Next after post ${1000 * PAGE_SIZE}`);
    },
  },
  {
    id: "filtered",
    path: FILTERED_PATH,
    check(html) {
      const keys = keysShown(html);
      // Post n is news when n % 3 = 0, and tagged 3 when n % 20 is 2, 15 or 9.
      const wanted = (n) => n % 3 === 0 && [2, 15, 9].includes(n % 20);
      check(keys.length === PAGE_SIZE && keys.every(wanted), `${FILTERED_PATH} should list ${PAGE_SIZE} news posts tagged 3, not ${keys.length} (${keys.filter((k) => !wanted(k)).slice(0, 3).join(", ")} are not)`);
      check(count(html, /<td>news<\/td>/g) === PAGE_SIZE, `${FILTERED_PATH} should show "news" in each row`);
      check(html.includes('<option value="3" selected>Tag #3 &quot;Q&amp;A&quot; &lt;3&gt;</option>') && html.includes('<option value="news" selected>news</option>'), `${FILTERED_PATH}'s filter form should show tag 3 and news chosen`);
    },
  },
  ...SEARCHED.map(({ word }) => ({
    id: `search-${word}`,
    path: searchPath(word),
    search: word,
    check(html) {
      const keys = keysShown(html);
      check(keys.length === PAGE_SIZE, `${searchPath(word)} should list a page of ${PAGE_SIZE} posts, not ${keys.length}`);
      check(count(html, /<mark>/g) >= PAGE_SIZE, `${searchPath(word)} should mark the word in each row's snippet`);
    },
  })),
];

/** One page's answer: 200, the session's user, and its own checks. */
async function preflight(url, page, cookie) {
  const res = await fetch(`${url}${page.path}`, { headers: { cookie } });
  const html = await res.text();
  check(res.status === 200, `GET ${page.path} answered ${res.status}: ${html.slice(0, 300)}`);
  check(html.includes("Signed in as ada"), `GET ${page.path} lacks the session's user`);
  page.check(html);
}

/** Searches of each word, one at a time, `SEARCHES` per word a round, the words interleaved; each request's time in ms. */
async function searchRounds(url, cookie, rounds) {
  const times = Object.fromEntries(SEARCHED.map(({ word }) => [word, []]));
  const once = async (word) => {
    const t0 = performance.now();
    const res = await fetch(`${url}${searchPath(word)}`, { headers: { cookie } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET ${searchPath(word)} answered ${res.status}`);
    return performance.now() - t0;
  };
  for (const { word } of SEARCHED) for (let i = 0; i < SEARCHES; i++) await once(word);
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < SEARCHES; i++) for (const { word } of round % 2 === 0 ? SEARCHED : [...SEARCHED].reverse()) times[word].push(await once(word));
    log(`  search round ${round + 1}/${rounds}: ${SEARCHED.map(({ word }) => `${word} p95 ${percentile(times[word].slice(-SEARCHES), 0.95).toFixed(1)} ms`).join(", ")}`);
  }
  return SEARCHED.map(({ word, matches }) => ({ word, matches, samples: times[word].length, p50: percentile(times[word], 0.5), p95: percentile(times[word], 0.95), max: Math.max(...times[word]) }));
}

/** The nearest-rank percentile of `values`. */
function percentile(values, p) {
  const s = sorted(values);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
}

/** A database of its own for the big posts, migrated by the app's `db migrate` in `cwd` and seeded (a child process): the seeding's time in ms. */
async function prepare(clusterUrl, url, cwd, migrations, appEnv) {
  rmSync(cwd, { recursive: true, force: true });
  mkdirSync(cwd, { recursive: true });
  cpSync(migrations, join(cwd, "db", "migrations"), { recursive: true });
  const admin = new PgDriver.Client({ connectionString: clusterUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${DATABASE}"`);
    await admin.query(`CREATE DATABASE "${DATABASE}"`);
  } finally {
    await admin.end();
  }
  const migrated = await run(process.execPath, [DB_APP_MAIN, "db", "migrate"], { cwd, env: appEnv, timeoutMs: 120_000 });
  if (migrated.code !== 0) throw new Error(`the big posts' db migrate failed:\n${migrated.output}`);
  const seeded = await run(process.execPath, [join("bench", "big-posts.mjs"), "seed", url.href, String(BIG_POSTS)], { timeoutMs: 900_000 });
  if (seeded.code !== 0) throw new Error(`seeding ${BIG_POSTS} posts failed (${seeded.code ?? seeded.signal}):\n${seeded.output}`);
  const { seedMs } = JSON.parse(seeded.output.trim().split("\n").pop());
  log(`big posts: ${BIG_POSTS.toLocaleString("en")} posts and ${(3 * BIG_POSTS).toLocaleString("en")} links seeded in ${Math.round(seedMs)} ms`);
  return seedMs;
}

/**
 * The big posts' rows on the cluster `clusterUrl`: a database of their own, migrated from
 * `migrations` (the 60-post app's folder), seeded, served by the bench app; `counter` (db.mjs's
 * pg_stat_statements counter, paused) counts each page's statements. `seeded`: the database is
 * there from an earlier call on the same cluster (trying a change to fw without seeding again).
 * `pageRounds`: the three pages' rounds (`rounds` the searches').
 * Returns { rows, seedMs, group, search, queries }.
 */
export async function bigPosts({ clusterUrl, migrations, counter, cookie, env, seconds, rounds, pageRounds = rounds, warmup, connections, seeded = false }) {
  const url = new URL(clusterUrl);
  url.pathname = `/${DATABASE}`;
  const appEnv = { ...env, DATABASE_URL: url.href };
  const cwd = join(WORK, "db-run", "big-posts");
  const seedMs = seeded ? undefined : await prepare(clusterUrl, url, cwd, migrations, appEnv);
  const port = await freePort();
  const server = await startServer({ name: `the bench app, ${BIG_POSTS} posts`, script: DB_APP_MAIN, env: { ...appEnv, PORT: String(port) }, core: SERVER_CORE, cwd, timeoutMs: 60_000 });
  const base = `http://127.0.0.1:${port}`;
  try {
    for (const page of PAGES) await preflight(base, page, cookie);
    const queries = {};
    if (counter !== undefined) {
      await counter.resume();
      try {
        for (const page of PAGES) queries[page.id] = (await counter.of(`${base}${page.path}`, cookie, DATABASE)).perPage;
      } finally {
        await counter.pause();
      }
      log(`big posts: statements per page: ${PAGES.map((p) => `${p.id} ${queries[p.id]}`).join(", ")}`);
    }
    const headers = [`Cookie: ${cookie}`];
    const load = databaseLoad({ clusterUrl, headers, seconds, warmup, connections });
    const row = (id, label, path) => ({ id, label, url: `${base}${path}`, server, headers, queries: queries[id], path, load: load(`${base}${path}`) });
    const group = {
      id: "bigPosts",
      title: `The posts Index at ${BIG_POSTS.toLocaleString("en")} posts, fw on PostgreSQL`,
      baseline: "first",
      // Two target rows whose sides are close (the 1,000th page against the first): as many rounds as the relations' pages (five).
      rounds: pageRounds,
      rows: [
        row("first", `first page \`GET ${FIRST_PATH}\``, FIRST_PATH),
        row("page1000", `1,000th page by keyset \`GET ${PAGE_1000_PATH}\` (posts 49,951–50,000)`, PAGE_1000_PATH),
        row("filtered", `filtered by a tag and a category \`GET ${FILTERED_PATH}\``, FILTERED_PATH),
      ],
    };
    await measureGroups([group], { seconds, rounds, warmup, connections, core: LOAD_CORE, what: "big posts" });
    withDatabaseCpu(group);
    log(`big posts: ${group.rows.map((r) => `${r.id} ${Math.round(r.rps.median)} req/s${r.ratio === undefined ? "" : ` (${r.ratio.toFixed(2)}×)`}, CPU ${cpuPair(r)} a request${r.costRoundRatios === undefined ? "" : ` (${r.costRoundRatios.median.toFixed(2)}× by CPU)`}, ${r.queries ?? "?"} statements`).join("; ")}`);
    log(`big posts: searching, one request at a time (${SEARCHES} per word a round)`);
    const search = await searchRounds(base, cookie, rounds);
    for (const s of search) s.queries = queries[`search-${s.word}`];
    log(`big posts: search ${search.map((s) => `"${s.word}" (${s.matches.toLocaleString("en")} posts) p50 ${s.p50.toFixed(1)} ms, p95 ${s.p95.toFixed(1)} ms`).join("; ")}`);
    return { rows: BIG_POSTS, seedMs, group, search, queries };
  } finally {
    await server.stop();
  }
}

/**
 * A row's load (bench/lib/rounds.mjs): wrk as for any row, and the cluster's CPU time around it, so
 * each run also holds `dbCpuUs` (the database's CPU µs per request) and an `other` share that does not
 * count the database as another's load (wrk's counts every process but the server, wrk and the bench).
 */
function databaseLoad({ clusterUrl, headers, seconds, warmup, connections }) {
  const database = clusterCpu(clusterUrl);
  return (url) =>
    async ({ warmup: warming, serverPid }) => {
      if (warming) return wrk({ url, seconds: warmup, connections, core: LOAD_CORE, headers });
      const before = { machine: cpuSnapshot(serverPid), database: database?.() };
      const result = await wrk({ url, seconds, connections, core: LOAD_CORE, headers, serverPid });
      const after = { machine: cpuSnapshot(serverPid), database: database?.() };
      if (database === undefined || before.machine === undefined || after.machine === undefined || result.total === 0) return { ...result, dbCpuUs: NaN };
      const ticks = after.database - before.database;
      const machine = after.machine.total - before.machine.total;
      return { ...result, dbCpuUs: (ticks * 10_000) / result.total, other: Math.max(0, otherShare(before.machine, after.machine) - ticks / machine) };
    };
}

/** Each row's database CPU per request, and its ratio to the baseline's by server + database CPU, round by round (less is faster). */
function withDatabaseCpu(group) {
  const cost = (run) => run.cpuUs + run.dbCpuUs;
  const base = group.rows.find((r) => r.id === group.baseline);
  for (const row of group.rows) {
    row.dbCpu = summary(row.runs.map((r) => r.dbCpuUs));
    const ratios = row.runs.map((run, i) => cost(base.runs[i]) / cost(run)).filter(Number.isFinite);
    if (ratios.length > 0) row.costRoundRatios = summary(ratios);
  }
}

/** "1.7 + 2.8 ms": the server's and the database's CPU time per request, medians. */
function cpuPair(row) {
  const ms = (us) => (Number.isFinite(us) ? (us / 1000).toFixed(2) : "?");
  return `${ms(row.cpu?.median)} + ${ms(row.dbCpu?.median)} ms`;
}

if (process.argv[2] === "seed") await seedChild(process.argv[3], Number(process.argv[4]));

/** The section of the db part: how the rows were made, the three pages, the searches. */
export function bigPostsSection(bp, { table, fmtSpread, fmtNum, fmtMs, ratio, range, wrkArgs }) {
  if (bp?.group === undefined) return [];
  const statements = (n) => (n === undefined ? "–" : String(n));
  const out = [
    `\n### Big posts: the bench app's posts Index at ${bp.rows.toLocaleString("en")} posts (issue 43)\n`,
    `The bench app (bench/servers/db-app) on a PostgreSQL database of its own, migrated by its \`db migrate\` and seeded by one \`INSERT … SELECT … FROM generate_series\` per table ` +
      `(${bp.rows.toLocaleString("en")} posts by 25 authors in 3 categories, ${(3 * bp.rows).toLocaleString("en")} links to 20 tags) then \`VACUUM ANALYZE\` (bench/big-posts.mjs${bp.seedMs === undefined ? "" : `; seeding took ${fmtMs(bp.seedMs)}`}). ` +
      `Signed in. ${wrkArgs}, the server pinned to core 0, wrk and PostgreSQL to core 1, rows interleaved; each ratio is the page's req/s over the first page's, paired round by round. ` +
      `Statements per page counted at the database (pg_stat_statements). CPU a request: the server's, then the database's (the cluster's processes, read from /proc around each round); ` +
      `the ratio by CPU is the first page's server + database CPU over the page's, round by round. "Others" leaves the database out (it is part of the page's cost).`,
    "",
    table(
      ["page", "req/s median (min–max)", "ratio to the first page", "per-round ratio", "CPU a request (server + database)", "ratio by CPU (server + database)", "p99 latency", "statements a page", "others"],
      bp.group.rows.map((row) => [
        row.label,
        fmtSpread(row.rps),
        row.ratio === undefined || row.id === "first" ? "–" : ratio(row.ratio),
        row.roundRatios === undefined || row.id === "first" ? "–" : range(row.roundRatios, (x) => x.toFixed(2)),
        row.dbCpu === undefined ? "–" : cpuPair(row),
        row.costRoundRatios === undefined || row.id === "first" ? "–" : `${ratio(row.costRoundRatios.median)} (${range(row.costRoundRatios, (x) => x.toFixed(2))})`,
        `${fmtNum(row.p99.median, 1)} ms`,
        statements(row.queries),
        `${Math.round(row.other.median * 100)} %`,
      ]),
    ),
    `\nSearches (\`GET /posts?q=<word>\`, ranked, snippets marked), one request at a time from the bench's process, the words interleaved, after ${SEARCHES} untimed each:\n`,
    table(
      ["word", "posts holding it", "searches", "p50", "p95", "max", "statements a page"],
      (bp.search ?? []).map((s) => [`"${s.word}"`, s.matches.toLocaleString("en"), String(s.samples), `${fmtNum(s.p50, 1)} ms`, `${fmtNum(s.p95, 1)} ms`, `${fmtNum(s.max, 1)} ms`, statements(s.queries)]),
    ),
  ];
  return out;
}
