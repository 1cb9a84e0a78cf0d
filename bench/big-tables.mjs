// The db part's big-table rows (issue 30, item 9): the example's `/posts` Index and a Show page
// with 1,000 posts and with 1,000,000 (half of them published), anonymous, on PostgreSQL and on
// PGlite. A page's cost must not grow with its table: the target is the 1,000,000-row page
// within 2× of the 1,000-row one (req/s ratio ≥ 0.5), per engine.
//  - Each database is migrated by the example's own `db migrate`, then seeded in one statement
//    (`INSERT … SELECT … FROM generate_series`) by this file run as a child process
//    (`node bench/big-tables.mjs seed <postgres-url|pglite-dir> <rows>`), then `VACUUM ANALYZE`d
//    (PGlite has no autovacuum: without it the planner has no statistics and index-only scans
//    read the heap).
//  - Servers pinned to core 0, wrk to core 1, rounds interleaved (bench/lib/rounds.mjs); the
//    ratio is paired round by round, the 1,000,000-row row against the 1,000-row row.
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { measureGroups } from "./lib/rounds.mjs";
import { freePort, log, pinned, ROOT, run, startServer, WORK } from "./lib/util.mjs";

const SERVER_CORE = 0;
const LOAD_CORE = 1;
const RUN_DIR = join(WORK, "big-tables");
/**
 * Seeded PGlite directories kept between runs (bench/.work is git-ignored): seeding 1,000,000 posts
 * in PGlite's WebAssembly is the part's longest step (20 s quiet, a minute loaded), so a run copies
 * the directory an earlier run seeded when nothing it was made from changed (cacheKey).
 */
const CACHE_DIR = join(WORK, "big-tables-cache");
/** Tables at least this big are cached; smaller ones seed in well under a second. */
const CACHED_FROM = 100_000;
const EXAMPLE = join(ROOT, "example", "dist", "main.js");
export const SIZES = [1_000, 1_000_000];
/** A published post (odd keys are published) in every size. */
const SHOW_PATH = "/posts/7";
const INDEX_PATH = "/posts";

/**
 * The seeding statements: one user, `rows` posts (odd keys published; dated a second apart up to a fixed
 * day, so two databases seeded alike answer byte-identical pages, cursors included), then statistics.
 */
function seedSql(rows) {
  return [
    `INSERT INTO "users" ("email", "password_hash", "session_epoch") VALUES ('bench@example.com', 'not a hash: nobody signs in', 'bench')`,
    `INSERT INTO "posts" ("title", "body", "published", "summary", "category", "author_id", "created_at")
       SELECT 'Post #' || i || ': "Fair" benchmarks & <other> stories',
              repeat('A body of some length, escaped & all. ', 6) || i,
              i % 2 = 1,
              CASE WHEN i % 4 = 0 THEN NULL ELSE 'Summary of post ' || i END,
              (ARRAY['news', 'howto', 'misc'])[1 + i % 3],
              (SELECT min("id") FROM "users"),
              timestamptz '2026-01-01 00:00:00+00' - (${Number(rows)} - i) * interval '1 second'
         FROM generate_series(1, ${Number(rows)}) AS i`,
    `VACUUM ANALYZE "users"`,
    `VACUUM ANALYZE "posts"`,
  ];
}

/** Runs in the child: opens the database with fw/db, seeds it, closes it, prints the time. */
async function seedChild(target, rows) {
  const { openDatabase } = await import("../dist/runtime/db/index.js");
  const db = target.startsWith("postgres://") ? await openDatabase({ url: target, log: () => undefined }) : await openDatabase({ directory: target, env: {}, durable: false });
  const t0 = performance.now();
  try {
    for (const sql of seedSql(rows)) await db.query(sql);
  } finally {
    await db.close();
  }
  console.log(JSON.stringify({ seedMs: performance.now() - t0 }));
}

/**
 * The example's environment in its folder `cwd`, on the database `url`. It boots in production (no
 * `dev` argument), which refuses to start without being told where fw/files keeps its covers
 * (FW_STORAGE, issue 40) and where fw/mail sends (FW_MAILBOX: a folder, nothing leaves the machine).
 */
function exampleEnv(cwd, url) {
  return { FW_SECRET: process.env.FW_SECRET, DATABASE_URL: url, FW_STORAGE: pathToFileURL(join(cwd, "files")).href, FW_MAILBOX: ".fw/bench-mail" };
}

async function appCommand(args, cwd, env) {
  const result = await run(process.execPath, [EXAMPLE, ...args], { cwd, env, timeoutMs: 300_000 });
  if (result.code !== 0) throw new Error(`node example/dist/main.js ${args.join(" ")} failed (${result.code ?? result.signal}):\n${result.output}`);
}

/**
 * What a seeded PGlite directory is made from, hashed: the example's migrations, the seeding
 * statements, the PGlite release, and fw's PGlite files (the template a new directory is unpacked
 * from, the settings it is opened with). A change to any of them seeds afresh.
 */
function cacheKey(rows) {
  const hash = createHash("sha256");
  const migrations = join(ROOT, "example", "db", "migrations");
  for (const name of readdirSync(migrations).sort()) hash.update(`${name}\0`).update(readFileSync(join(migrations, name))).update("\0");
  hash.update(seedSql(rows).join(";\n"));
  hash.update(readFileSync(join(ROOT, "node_modules", "@electric-sql", "pglite", "package.json")));
  const db = join(ROOT, "dist", "runtime", "db");
  for (const name of readdirSync(db).filter((n) => /^pglite-(settings|template)/.test(n) && !n.endsWith(".map")).sort()) hash.update(`${name}\0`).update(readFileSync(join(db, name)));
  return `pglite-${rows}-${hash.digest("hex").slice(0, 16)}`;
}

/** A migrated, seeded database of `rows` posts for the example: its cwd (migrations copied in) and its DATABASE_URL. */
async function prepare(engine, rows, clusterUrl) {
  const cwd = join(RUN_DIR, `${engine}-${rows}`);
  rmSync(cwd, { recursive: true, force: true });
  mkdirSync(cwd, { recursive: true });
  cpSync(join(ROOT, "example", "db", "migrations"), join(cwd, "db", "migrations"), { recursive: true });
  const cached = engine === "pglite" && rows >= CACHED_FROM ? join(CACHE_DIR, cacheKey(rows)) : undefined;
  if (cached !== undefined && existsSync(cached)) {
    const t0 = performance.now();
    cpSync(cached, join(cwd, "db"), { recursive: true });
    const copyMs = performance.now() - t0;
    log(`big tables: ${engine}, ${rows} posts copied from an earlier run's seeding (${cached}) in ${Math.round(copyMs)} ms`);
    return { cwd, env: exampleEnv(cwd, `pglite:${join(cwd, "db")}`), copyMs };
  }
  let url;
  let target;
  if (engine === "postgres") {
    const name = `fw_big_${rows}`;
    const { openDatabase } = await import("../dist/runtime/db/index.js");
    const admin = await openDatabase({ url: clusterUrl, log: () => undefined });
    try {
      await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
      await admin.query(`CREATE DATABASE "${name}"`);
    } finally {
      await admin.close();
    }
    url = clusterUrl.replace(/\/[^/]*$/, `/${name}`);
    target = url;
  } else {
    target = join(cwd, "db");
    url = `pglite:${target}`;
  }
  const env = exampleEnv(cwd, url);
  await appCommand(["db", "migrate"], cwd, env);
  const { command, args } = pinned(SERVER_CORE, process.execPath, [join("bench", "big-tables.mjs"), "seed", target, String(rows)]);
  const seeded = await run(command, args, { timeoutMs: 900_000 });
  if (seeded.code !== 0) throw new Error(`seeding ${rows} posts on ${engine} failed (${seeded.code ?? seeded.signal}):\n${seeded.output}`);
  const { seedMs } = JSON.parse(seeded.output.trim().split("\n").pop());
  log(`big tables: ${engine}, ${rows} posts seeded in ${Math.round(seedMs)} ms`);
  if (cached !== undefined) {
    // Only this key's copy is kept; it is written whole under another name, then renamed into place.
    rmSync(CACHE_DIR, { recursive: true, force: true });
    mkdirSync(CACHE_DIR, { recursive: true });
    cpSync(target, `${cached}.partial`, { recursive: true });
    renameSync(`${cached}.partial`, cached);
  }
  return { cwd, env, seedMs };
}

function check(condition, message) {
  if (!condition) throw new Error(`big tables preflight: ${message}`);
}

/** The rows of one engine: Index and Show at each size, checked before any load. */
async function serve(engine, rows, prepared, servers) {
  const port = await freePort();
  const server = await startServer({ name: `example on ${engine}, ${rows} posts`, script: EXAMPLE, env: { ...prepared.env, PORT: String(port) }, core: SERVER_CORE, cwd: prepared.cwd, timeoutMs: 180_000 });
  servers.push(server);
  const url = `http://127.0.0.1:${port}`;
  const index = await fetch(`${url}${INDEX_PATH}`);
  const html = await index.text();
  check(index.status === 200, `${engine} ${rows}: GET ${INDEX_PATH} answered ${index.status}: ${html.slice(0, 300)}`);
  check((html.match(/<a href="\/posts\/\d+">/g) ?? []).length >= 50, `${engine} ${rows}: the Index should list a page of 50 posts`);
  // The Index pages by key (Previous / Next) and counts its rows only as far as 10 pages ahead: half
  // the seeded posts are published, so 1,000 read "500 posts" and 1,000,000 "… or more posts".
  check(html.includes(rows / 2 > 10 * 50 ? " or more posts</span>" : `<span>${(rows / 2).toLocaleString("en")} posts</span>`), `${engine} ${rows}: the Index's pager is not what ${rows} posts give: ${/<nav class="fw-pager".*?<\/nav>/.exec(html)?.[0] ?? html.slice(0, 400)}`);
  const show = await fetch(`${url}${SHOW_PATH}`);
  const shown = await show.text();
  check(show.status === 200 && shown.includes("Post #7: &quot;Fair&quot;"), `${engine} ${rows}: GET ${SHOW_PATH} answered ${show.status}: ${shown.slice(0, 300)}`);
  return { server, url };
}

/**
 * The big-table groups, one per engine (PostgreSQL when `clusterUrl` is given, then PGlite),
 * measured like the db part's pages. Returns { groups, seedMs, copiedMs }.
 */
export async function bigTables({ seconds, rounds, warmup, connections, clusterUrl }) {
  if (!existsSync(EXAMPLE)) throw new Error("the example is not built (example/dist/main.js): run npm run build first");
  mkdirSync(RUN_DIR, { recursive: true });
  const engines = [...(clusterUrl === undefined ? [] : [["postgres", "PostgreSQL"]]), ["pglite", "PGlite"]];
  const groups = [];
  const seedMs = {};
  const copiedMs = {};
  for (const [engine, label] of engines) {
    const servers = [];
    try {
      const sides = {};
      for (const rows of SIZES) {
        const prepared = await prepare(engine, rows, clusterUrl);
        if (prepared.copyMs === undefined) seedMs[`${engine}-${rows}`] = prepared.seedMs;
        else copiedMs[`${engine}-${rows}`] = prepared.copyMs;
        sides[rows] = await serve(engine, rows, prepared, servers);
      }
      const [small, big] = SIZES;
      const row = (what, path, rows, baseline) => ({
        id: `${what}${rows}`,
        label: `${what === "index" ? "Index" : "Show"} \`GET ${path}\`, ${rows.toLocaleString("en")} posts`,
        url: `${sides[rows].url}${path}`,
        server: sides[rows].server,
        baseline,
      });
      const group = {
        id: `big-${engine}`,
        engine: label,
        title: `The example's pages on ${label}: ${small.toLocaleString("en")} posts against ${big.toLocaleString("en")} (anonymous; half published)`,
        baseline: `index${small}`,
        rows: [row("index", INDEX_PATH, small, `index${small}`), row("index", INDEX_PATH, big, `index${small}`), row("show", SHOW_PATH, small, `show${small}`), row("show", SHOW_PATH, big, `show${small}`)],
      };
      await measureGroups([group], { seconds, rounds, warmup, connections, core: LOAD_CORE, what: "big tables" });
      groups.push(group);
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
  }
  rmSync(RUN_DIR, { recursive: true, force: true });
  return { groups, seedMs, copiedMs };
}

if (process.argv[2] === "seed") await seedChild(process.argv[3], Number(process.argv[4]));

/** The section of the db part: how the rows were made, then one table per engine. */
export function bigTablesSection(bt, { table, fmtSpread, fmtNum, fmtMs, ratio, range, wrkArgs }) {
  if (bt?.groups === undefined) return [];
  const out = [
    `\n### Big tables: the example's pages at 1,000 and 1,000,000 posts (issue 30, item 9)\n`,
    `The example (example/dist/main.js, its own migrations applied by \`db migrate\`) on a database seeded by one \`INSERT … SELECT … FROM generate_series\` ` +
      `(half the posts published, one author) then \`VACUUM ANALYZE\` (bench/big-tables.mjs; seeding took ${Object.entries(bt.seedMs)
        .map(([id, ms]) => `${id} ${fmtMs(ms)}`)
        .join(", ")}${Object.keys(bt.copiedMs ?? {}).length === 0 ? "" : `; ${Object.entries(bt.copiedMs).map(([id, ms]) => `${id} copied in ${fmtMs(ms)} from the directory an earlier run seeded the same way (same migrations, statements, PGlite and fw's PGlite files; bench/.work/big-tables-cache)`).join(", ")}`}). Anonymous requests: \`GET /posts\` (the live Index of published posts, page 1, counted 10 pages ahead) and \`GET /posts/7\` (Show, with its comments section). ` +
      `${wrkArgs}, servers pinned to core 0, wrk to core 1, rows interleaved; the ratio is the 1,000,000-row page's req/s over the 1,000-row page's, paired round by round.`,
  ];
  for (const group of bt.groups) {
    out.push(`\n#### ${group.title}\n`);
    out.push(
      table(
        ["page", "req/s median (min–max)", "ratio to 1,000 posts", "per-round ratio", "p99 latency", "others"],
        group.rows.map((row) => [
          row.label,
          fmtSpread(row.rps),
          row.ratio === undefined ? "–" : ratio(row.ratio),
          row.roundRatios === undefined ? "–" : range(row.roundRatios, (x) => x.toFixed(2)),
          `${fmtNum(row.p99.median, 1)} ms`,
          `${Math.round(row.other.median * 100)} %`,
        ]),
      ),
    );
  }
  return out;
}
