// Turns the measurements into BENCHMARKS.md: machine, command, targets, then one table per part.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BENCH, fmtInt, fmtMB, fmtMs, fmtNum, fmtSpread } from "./lib/util.mjs";
import { bigPostsSection } from "./big-posts.mjs";
import { bigTablesSection } from "./big-tables.mjs";
import { DB_CHECKED_PAGES, DB_PAGES, perPage, targetsTable } from "./targets.mjs";
import { liveSection } from "./live.mjs";
import { scaleSection } from "./scale.mjs";
import { jobsSection } from "./jobs.mjs";
import { filesSection } from "./files.mjs";

const pct = (x) => (Number.isFinite(x) ? `${x >= 0 ? "+" : ""}${(x * 100).toFixed(0)} %` : "–");
const ratio = (x) => (Number.isFinite(x) ? `${x.toFixed(2)}×` : "–");

function range(s, fmt) {
  return `${fmt(s.min)}–${fmt(s.max)}`;
}

/** The row a throughput row is compared with when it is not its group's baseline (older result files have none). */
function ownBaseline(group, row) {
  if (row.baseline === undefined || row.baseline === group.baseline) return undefined;
  return group.rows.find((r) => r.id === row.baseline);
}

/** "raw", or the label of the raw run a row is compared with. */
function baseName(group, row) {
  const own = ownBaseline(group, row);
  return own === undefined ? "raw" : (own.short ?? own.label);
}

/** The server's CPU time per request, median over the rounds (older result files have none). */
function cpuCell(cpu) {
  return cpu === undefined || !Number.isFinite(cpu.median) ? "–" : fmtNum(cpu.median, 1);
}

function table(head, rows) {
  return [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");
}

function throughputSection(tp, opts) {
  const out = [];
  out.push(
    `wrk ${opts.wrkArgs}, ${opts.rounds} interleaved rounds per scenario after a ${opts.warmup} s warm-up each; ` +
      `servers pinned to core 0, wrk to core 1. req/s: median (min–max) over the rounds. The ratio to raw is paired: taken ` +
      `round by round (the two runs seconds apart), then its median; its range is beside it. "CPU µs per request" is the ` +
      `server's own CPU time (utime + stime) over the requests wrk counted, and its ratio is paired the same way: on this ` +
      `virtual machine the host takes time from the server's core unseen by "others", which moves req/s by tens of percent ` +
      `between rounds but CPU time per request by a few; the verdicts read req/s, as the issue asks. "others" is the share of the ` +
      `whole machine that processes other than the bench used during the runs (median): the noise. FW_SECRET set, access log off, ` +
      `fw booted through \`HttpApp.main()\` (production). Every response was checked before the load (status, body, cookies; ` +
      `the four session pages are byte-identical, ${tp.facts.pageBytes} B, sha256 ${tp.facts.pageSha}…); wrk then counted no unexpected status.`,
  );
  for (const group of tp.groups) {
    out.push(`\n### ${group.title}\n`);
    if (group.baseline !== undefined) {
      out.push(
        table(
          ["server", "req/s median (min–max)", "ratio to raw (median of rounds)", "per-round ratio", "CPU µs per request", "ratio by CPU time", "p99 latency", "others"],
          group.rows.map((row) => [
            row.label,
            fmtSpread(row.rps),
            ownBaseline(group, row) === undefined ? ratio(row.ratio) : `${ratio(row.ratio)} (to ${baseName(group, row)})`,
            row.roundRatios === undefined ? "–" : range(row.roundRatios, (x) => x.toFixed(2)),
            cpuCell(row.cpu),
            row.cpuRoundRatios === undefined ? "–" : `${ratio(row.cpuRoundRatios.median)} (${range(row.cpuRoundRatios, (x) => x.toFixed(2))})`,
            `${fmtNum(row.p99.median, 1)} ms`,
            `${Math.round(row.other.median * 100)} %`,
          ]),
        ),
      );
      if (group.id === "page") {
        out.push(
          "\nfw remembers up to 1,024 session cookies it verified, each from its second visit on (runtime/http/session-codec.ts), so the first rows, one " +
            "session sent back by every request, cost fw a lookup where the hand-written servers verify the HMAC and parse the " +
            "JSON each time. The \"sessions in turn\" rows cycle through 2,048 cookies signed at the start of the run: more than " +
            "fw remembers, so it does the same work as raw on every request; that fw row is compared with raw under the same load. Both fw rows are held to the target.",
        );
      }
      if (group.id === "text") {
        out.push(
          "\nThe target applies to `Route.api`, the like-for-like route (no session, as raw), and to the browser route with its " +
            "cookie sent back, compared with raw receiving the same Cookie header (which it ignores): the request's bytes, and " +
            "what the kernel and node's HTTP parser do with them, are then the same on both sides. A browser route reads the session " +
            "cookie on every request (spec 5.8), so its rows show what a session costs: with the cookie sent back, a repeated " +
            "cookie is a cache lookup; without one, every request is a first visit that mints a CSRF token, signs a new session " +
            "and sends `Set-Cookie`, work raw does not do (shown for tracking, not held to the target).",
        );
      }
    } else {
      const rows = group.rows.map((row) => [row.label, fmtSpread(row.rps), cpuCell(row.cpu), `${fmtNum(row.p99.median, 1)} ms`, `${Math.round(row.other.median * 100)} %`]);
      out.push(table(["fw scenario", "req/s median (min–max)", "CPU µs per request", "p99 latency", "others"], rows));
    }
  }
  return out.join("\n");
}

function routingSection(rt, opts) {
  const rows = rt.map((x) => [
    fmtInt(x.routes),
    fmtSpread(x.summary.fw),
    fmtSpread(x.summary.fwLookupOnly),
    fmtSpread(x.summary.findMyWay),
    fmtSpread(x.summary.naive),
    ratio(x.summary.fw.median / x.summary.findMyWay.median),
    `${fmtInt(x.checks.checked)} + ${fmtInt(x.overlapChecks.checked)} / ${x.checks.mismatches + x.overlapChecks.mismatches}`,
    `${((x.checks.fmwDiffers / x.checks.checked) * 100).toFixed(1)} %`,
  ]);
  const first = rt[0];
  const last = rt[rt.length - 1];
  return [
    `ns per lookup, medians of ${opts.rounds} interleaved rounds of ≥ ${opts.roundMs} ms each (min–max), one process per size pinned to core 1. ` +
      `Each size has a realistic REST table (resources under namespaces: \`/new\` and \`/search\` beside \`/:id\`, sub-resources, catch-alls, and ` +
      `generic routes such as \`GET /:section/:page\` in the middle of the table that overlap what follows) and 10,000 requests: ~80 % built from a ` +
      `route (ids, slugs, and literals of other routes as parameter values, 5 % HEAD), the rest unknown segments (404) or wrong methods (405); ` +
      `${(first.hitShare * 100).toFixed(0)}–${(last.hitShare * 100).toFixed(0)} % end up matching. ` +
      `"fw" is what dispatch pays: \`splitPath\` (split + percent-decode + checks) then \`Matcher.lookup\`; "lookup only" takes pre-split segments. ` +
      `find-my-way gets the raw path (it splits and decodes itself). The naive scan is a precompiled first-match loop over the table (then a second ` +
      `pass for the 405 list) and is the reference: fw's answer (route, params, 405 Allow list) is compared with it on every path, plus on a ` +
      `heavy-overlap random table like spec/support/random.ts (tiny alphabet, random methods, catch-alls, empty segments) of the same size. ` +
      `A path with an empty segment (\`//\`) is refused by \`splitPath\` with 400 before any route is asked, so it is counted apart and not ` +
      `compared: ${fmtInt(rt.reduce((n, x) => n + (x.checks.refused ?? 0) + (x.overlapChecks.refused ?? 0), 0))} such paths in this run.`,
    "",
    table(["routes", "fw (split + lookup)", "fw lookup only", "find-my-way", "naive ordered scan", "fw / find-my-way", "paths checked (REST + random) / differing", "find-my-way ≠ table order"], rows),
    "",
    `Growth of fw from ${fmtInt(first.routes)} to ${fmtInt(last.routes)} routes: ${ratio(last.summary.fw.median / first.summary.fw.median)} ` +
      `(lookup only: ${ratio(last.summary.fwLookupOnly.median / first.summary.fwLookupOnly.median)}). find-my-way ranks routes by specificity, ` +
      `not by table order, so its pick differs from the contract on the share of requests shown in the last column; it is timed, not checked.`,
  ].join("\n");
}

function buildSection(b, opts) {
  /** One table row per app size, for the cold or the incremental builds. */
  const rowsOf = (times, overhead) =>
    b.map((x) => [
      `${x.routeFiles} route files`,
      fmtSpread(x[times].fw, fmtMs),
      fmtSpread(x[times].typia, fmtMs),
      fmtSpread(x[times].tsc, fmtMs),
      `${pct(x[overhead].median)} (${range(x[overhead], pct)})`,
    ]);
  const cold = rowsOf("cold", "coldOverhead");
  const inc = rowsOf("inc", "incOverhead");
  const checked = b.filter((x) => x.coldChecks !== undefined);
  const checksRows = checked.flatMap((x) => [
    [`${x.routeFiles} route files, cold`, fmtSpread(x.cold.fw, fmtMs), fmtSpread(x.cold["fw-unchecked"], fmtMs), `${pct(x.coldChecks.median)} (${range(x.coldChecks, pct)})`, `${fmtMs(x.cpu.cold.fw.median)} / ${fmtMs(x.cpu.cold.unchecked.median)}: ${pct(x.coldChecksCpu.median)} (${range(x.coldChecksCpu, pct)})`],
    [`${x.routeFiles} route files, incremental`, fmtSpread(x.inc.fw, fmtMs), fmtSpread(x.inc["fw-unchecked"], fmtMs), `${pct(x.incChecks.median)} (${range(x.incChecks, pct)})`, `${fmtMs(x.cpu.inc.fw.median)} / ${fmtMs(x.cpu.inc.unchecked.median)}: ${pct(x.incChecksCpu.median)} (${range(x.incChecksCpu, pct)})`],
  ]);
  return [
    `Generated apps under bench/.work/build/ (git-ignored): groups of five route files (a JSX list page with a capability, a Show page whose ` +
      `\`id: number\` typia decodes, a New form with the CSRF token, a POST Create, an API route) plus a home page. Wall time of one ` +
      `\`node tspc.js -p app\` / \`node tsc -p app\` process, with emit (JS + source maps). "typia only" and "plain tsc" compile the same ` +
      `sources with the table module fw generated kept as an ordinary file, so all three programs are the same size. ` +
      `${opts.coldNote} Overhead = fw ÷ typia-only − 1, per round (runs seconds apart), median (min–max).`,
    "",
    "Cold build (dist removed; for fw the generated module too):",
    "",
    table(["app", "tspc fw + typia", "tspc typia only", "plain tsc", "fw's own overhead"], cold),
    "",
    `Incremental rebuild (\`--incremental\`, .tsbuildinfo from the previous build) after editing the JSX text of one handler (\`src/app/g0/_id/Show.tsx\`):`,
    "",
    table(["app", "tspc fw + typia", "tspc typia only", "plain tsc", "fw's own overhead"], inc),
    ...(checksRows.length === 0
      ? []
      : [
          "",
          "fw's path and live topic checks (TS91050, TS91051; issue 31): the same fw build with the plugin option `verifyPaths: false` " +
            "(the typed path builder is still written), per round; the apps' links, form actions and redirects are checked in the first. " +
            "The compiler process's CPU time (user + system, bench/lib/cpu-time.cjs) is given beside the wall time: it moves much less with the machine's other load.",
          "",
          table(["app", "tspc fw + typia", "without the checks", "the checks' overhead (wall)", "CPU with / without: overhead"], checksRows),
        ]),
  ].join("\n");
}

function devSection(d) {
  return [
    `\`fw dev\` on a generated app of ${d.routes} route files (bench/dev-reload.mjs; every fourth page takes a typed \`id: number\`), ` +
      `a \`DbApp\` with a table model on ${d.database ?? "no database"} (fw dev holds the embedded database across restarts): ` +
      `the handler of a page that lists the table is edited and saved ${d.samples.length} times; each sample runs from just before the write until the reload socket ` +
      `said \`reload\` (the client reconnecting every 100 ms across the restart, as the browser's does) and a GET of the page returned the new ` +
      `text, read from the database. First build and start (a new database): ${fmtMs(d.firstStartMs)}.`,
    "",
    table(["edit", "save → reloaded"], d.samples.map((ms, i) => [String(i + 1), fmtMs(ms)])),
    "",
    `Median ${fmtMs(d.median)}.`,
    ...(d.start === undefined
      ? []
      : [
          "",
          `\`npm start\` to the example's first page (bench/first-page.mjs: GET / answered 200), after this run's build, so nothing is rebuilt ` +
            `(scripts/build.mjs finds fw and the example up to date) and the example's database exists: ${d.start.samples.map(fmtMs).join(", ")}; median ${fmtMs(d.start.median)}.`,
        ]),
  ].join("\n");
}

function memorySection(m, opts) {
  const idle = m.idle.map((x) => [x.label, fmtSpread(x.rss, fmtMB), ratio(x.ratio), x.ratioToPg === undefined ? "–" : ratio(x.ratioToPg)]);
  const ws = m.ws.map((x) => [x.label, fmtMB(x.before), fmtMB(x.after), `${(x.perConnection / 1024).toFixed(1)} KB`]);
  return [
    `Each server started fresh per round (${opts.rounds} rounds, interleaved), pinned to core 0, sent five \`GET /\` (a first visit, then its cookie back), ` +
      `then read (VmRSS, the lowest of three readings 200 ms apart, one second after the last request). The example app boots in production ` +
      `mode with FW_SECRET and its access log on (its default), once as \`npm run build\` built it and once as \`fw bundle\` bundled that build ` +
      `(rolldown, code splitting on: fw, typia and the app in one entry plus chunks, ws left in node_modules; docs/guides/deploying.md, "Production: fw bundle"). ` +
      `The idle-memory target is read on the bundle, the optional production step; the unbundled row shows what an app run straight from its build pays.`,
    "",
    table(["server", "idle RSS median (min–max)", "ratio to raw", "ratio to raw with the pg pool"], idle),
    "",
    `${fmtInt(m.wsConnections)} idle WebSocket connections (clients from the bench process, \`ws\`, Origin = the app's own, no compression), one run each; "before" is read with the first socket already open (fw loads \`ws\` on its first handshake):`,
    "",
    table(["server", "RSS before", `RSS with ${fmtInt(m.wsConnections)} sockets`, "per connection"], ws),
  ].join("\n");
}

function dbSection(d, opts) {
  const out = [];
  out.push(
    `PostgreSQL: ${d.postgres === "not found" ? "not found on this machine, so the Fastify + pg and fw-on-PostgreSQL rows were skipped and no ratio is given" : d.postgres}. The bench's fw app (bench/servers/db-app, on \`DbApp\`, ` +
      `built with tspc, its migration written by \`db new\` and applied by \`db migrate\`, its rows from \`db seed\`) has four table models: Article (\`derives<Article>(Form, Resource, { table: "articles" })\`, ` +
      `no references, 60 rows), and Author (25), Post (60, \`author: Id<Author>\`: a foreign key, a link labelled with the author's name) and Comment (20 per post, \`post: Id<Post>\`: the post's Show lists them). ` +
      `It serves their derived Show and Index (issue 43's: a filter form derived from the model, a keyset pager saying how many rows there are, Next to \`?after=<cursor>\`) through a layout that reads the session; Fastify + pg (bench/servers/db-fastify.mjs, pool of 10 as fw's) checks the same session cookie by hand, sends the same SQL (unnamed, as pg does by default and as a Fastify app does unless it names each query by hand; fw prepares each statement once a connection and runs it by name, its default since issue 39: docs/guides/database.md, "Prepared statements") ` +
      `(the statements SqlStore sends: \`SELECT … WHERE "id" = $1\`; an Index's first page counted 10 pages ahead, \`SELECT …, (SELECT count(*) FROM (SELECT 1 FROM "posts" LIMIT $3) AS fw_counted) AS fw_total … ORDER BY "id" LIMIT $1 OFFSET $2\`, its next page by key, \`… WHERE "id" >= $3 AND "id" > $4 ORDER BY "id" LIMIT $1 OFFSET $2\` (one row more than the page); ` +
      `the authors the posts' filter offers, \`… FROM "authors" ORDER BY "name" COLLATE "C" ASC, "id" …\`, in parallel with the page; a page's author labels in one \`… WHERE "id" = ANY($3::bigint[])\` (counted exactly, \`count(*) OVER ()\`); a post's comments as \`… WHERE "post_id" = $3 …\`, counted 10 pages ahead too; the labels and the comments in parallel as fw asks for them) and builds the same HTML by hand, with the same security headers. ` +
      `wrk ${opts.wrkArgs} with the session cookie, ${opts.rounds} interleaved rounds (the relations' pages ${opts.relationsRounds ?? opts.rounds}) after a ${opts.warmup} s warm-up; servers pinned to core 0, wrk and the PostgreSQL cluster to core 1; ` +
      `PGlite runs inside fw's server process (core 0); the relations' pages are measured on PostgreSQL only. Ratios are to Fastify + pg, paired round by round; "CPU µs per request" is the server process's own (PostgreSQL's backends are not in it). ` +
      `"statements per page" is counted at the database, for each side alike: pg_stat_statements' calls over ${d.facts?.countedRequests ?? 10} requests of the page, one at a time, a BEGIN or COMMIT would count too; the preflight fails unless both sides send the very same statements as many times.`,
  );
  if (d.facts !== undefined) {
    const bytes = (what) => Object.entries(d.facts[what]).map(([id, s]) => `${id} ${s.body} B + ${s.head} B of head`).join(", ");
    const titles = { ...DB_PAGES, ...DB_CHECKED_PAGES };
    const pages = Object.keys(d.facts).filter((k) => titles[k] !== undefined);
    out.push(`\nEvery answer was checked before the load and is byte-identical on every side: ${pages.map((p) => `${titles[p]} ${bytes(p)}`).join("; ")}. The request carries a ${d.facts.cookieBytes} B cookie.`);
    if (d.facts.queries !== undefined) {
      out.push(`\nThe statements of one page, the same on both sides (per page):\n`);
      for (const [page, sides] of Object.entries(d.facts.queries)) {
        const first = Object.values(sides)[0];
        out.push(`- ${titles[page] ?? page}: ${perPage(first.perPage)} — ${first.statements.map((x) => `${x.perPage === 1 ? "" : `${perPage(x.perPage)}× `}\`${x.sql}\``).join("; ")}`);
      }
    }
  }
  for (const group of d.groups ?? []) {
    out.push(`\n### ${group.title}\n`);
    out.push(
      table(
        ["server", "statements per page", "req/s median (min–max)", group.baselineLabel ?? "ratio to Fastify + pg", "per-round ratio", "CPU µs per request", "ratio by CPU time", "p99 latency", "others"],
        group.rows.map((row) => [
          row.label,
          row.queries === undefined ? "–" : perPage(row.queries),
          fmtSpread(row.rps),
          row.ratio === undefined ? "–" : ratio(row.ratio),
          row.roundRatios === undefined ? "–" : range(row.roundRatios, (x) => x.toFixed(2)),
          cpuCell(row.cpu),
          row.cpuRoundRatios === undefined ? "–" : `${ratio(row.cpuRoundRatios.median)} (${range(row.cpuRoundRatios, (x) => x.toFixed(2))})`,
          `${fmtNum(row.p99.median, 1)} ms`,
          `${Math.round(row.other.median * 100)} %`,
        ]),
      ),
    );
  }
  out.push(...bigPostsSection(d.bigPosts, { table, fmtSpread, fmtNum, fmtMs, ratio, range, wrkArgs: `wrk -t1 -c10 -d${opts.seconds}s` }));
  out.push(...bigTablesSection(d.bigTables, { table, fmtSpread, fmtNum, fmtMs, ratio, range, wrkArgs: `wrk -t1 -c10 -d${opts.seconds}s` }));
  if (d.store !== undefined) {
    out.push(
      `\n### Store operations (SqlStore directly)\n\nOps/s, median (min–max) of ${d.store.pglite.insertSequential.n} runs (engines interleaved), ${fmtMs(opts.storeMs)} per kind, in a process pinned to core 0 ` +
        `(bench/db-worker.mjs): \`insert\` of a row like the bench's Post (~330 B) returning it, \`get\` of a key spread over the table; "one at a time" awaits each before the next, ` +
        `"${d.storeConcurrency} in flight" keeps ${d.storeConcurrency} going (PostgreSQL: a pool of 10 connections; PGlite: its one connection queues them).\n`,
    );
    const kinds = [["insertSequential", "insert, one at a time"], ["insertConcurrent", `insert, ${d.storeConcurrency} in flight`], ["readSequential", "read by key, one at a time"], ["readConcurrent", `read by key, ${d.storeConcurrency} in flight`]];
    const engines = Object.keys(d.store);
    const name = (e) => (e === "pglite" ? "PGlite" : "PostgreSQL");
    const cpu = (e, k) => (d.storeCpu?.[e]?.[k] === undefined ? "–" : fmtNum(d.storeCpu[e][k].median, 0));
    out.push(
      table(
        ["operation", ...engines.map((e) => `${name(e)} ops/s`), ...engines.map((e) => `${name(e)} CPU µs per op`)],
        kinds.map(([k, label]) => [label, ...engines.map((e) => fmtSpread(d.store[e][k])), ...engines.map((e) => cpu(e, k))]),
      ),
    );
    out.push(`\n"CPU µs per op" is the measuring process's own CPU time per operation (median): on PostgreSQL the client's side only (the driver, fw's store, the row conversion), on PGlite the engine's work too, since it runs in that process.`);
  }
  if (d.cold !== undefined) {
    out.push(
      `\n### PGlite cold start, idle memory, boot\n\nPGlite's open in a fresh process (bench/db-worker.mjs, ${d.cold.first.n} rounds): first open of an empty directory (fw's template unpacked, else PGlite's initdb; relaxed, as \`dev\` and the tests open it) ` +
        `${fmtSpread(d.cold.first, fmtMs)}; reopen of that directory ${fmtSpread(d.cold.reopen, fmtMs)}` +
        `${d.cold.firstDurable === undefined ? "" : `; a durable first open (production's: the copy synced to disk) ${fmtSpread(d.cold.firstDurable, fmtMs)}`}.`,
    );
  }
  if (d.idle !== undefined) {
    out.push(
      `\nIdle RSS as the memory part reads it (five requests, then the lowest of three readings a second later), and the time from spawn to "serving" (the database opened ` +
        `and its migrations checked), each started fresh per round in its migrated working directory:\n`,
    );
    out.push(table(["app", "idle RSS median (min–max)", "spawn → serving"], d.idle.map((x) => [x.label, fmtSpread(x.rss, fmtMB), fmtSpread(x.boot, fmtMs)])));
  }
  if (d.errors?.length > 0) out.push(`\nNot measured: ${d.errors.join("; ")}.`);
  return out.join("\n");
}

function jsonSection(j, opts) {
  const out = [];
  out.push(
    `wrk ${opts.wrkArgs}, ${opts.rounds} interleaved rounds after a ${opts.warmup} s warm-up each, servers pinned to core 0 and wrk to core 1, ` +
      "as the throughput part. Every side answers the same 50 posts (the fw app's own `src/posts.ts`, built; the peers import its JavaScript) " +
      `and the preflight checked the bodies byte-identical (${fmtInt(j.facts.bytes)} B). Ratios are to Fastify with its response schema, paired round by round. ` +
      "fw's app is `bench/servers/json-app`, built with tspc (fw's transformer and typia) as an app is: `GET /api/posts` is `Json(POSTS)` with the return type " +
      "inferred (the build writes the route's checked writer: typia's `equals` of the type, then JSON.stringify for a plain value it accepts, typia's typed " +
      "stringify for anything else; runtime/http/json-writer.ts), `GET /api/posts-untyped` the same handler declared `: Response` (JSON.stringify, unchecked).",
  );
  const group = j.groups[0];
  out.push(`\n### ${group.title}\n`);
  out.push(
    table(
      ["server", "req/s median (min–max)", "ratio to Fastify + schema (median of rounds)", "per-round ratio", "CPU µs per request", "ratio by CPU time", "p99 latency", "others"],
      group.rows.map((row) => [
        row.label,
        fmtSpread(row.rps),
        ratio(row.ratio),
        row.roundRatios === undefined ? "–" : range(row.roundRatios, (x) => x.toFixed(2)),
        cpuCell(row.cpu),
        row.cpuRoundRatios === undefined ? "–" : `${ratio(row.cpuRoundRatios.median)} (${range(row.cpuRoundRatios, (x) => x.toFixed(2))})`,
        `${fmtNum(row.p99.median, 1)} ms`,
        `${Math.round(row.other.median * 100)} %`,
      ]),
    ),
  );
  const tokens = j.groups.find((g) => g.id === "tokens");
  if (tokens !== undefined) {
    out.push(`\n### ${tokens.title}\n`);
    out.push(
      "The fw app's `GET /api/posts` again (the same 50 posts), behind fw/auth's `apiKey` (`/api/keyed/posts`) and behind a per-user token with the scope " +
        "`posts:read` (`/api/token/posts`: `fw_api_tokens` on the app's embedded PGlite, one process: it reads a token once and remembers it for 10 s, forgetting it when revoked; " +
        "an app in several processes, with a fan-out, reads the row on every call: one statement, 3.4× an apiKey call on PGlite when it was measured that way). " +
        `The statements a call sends are counted by the app over 20 calls each: apiKey ${tokens.statements?.apiKey ?? "?"}, token ${tokens.statements?.token ?? "?"}. Ratios to apiKey, paired round by round.\n`,
    );
    out.push(
      table(
        ["guard", "req/s median (min–max)", "ratio to apiKey (median of rounds)", "per-round ratio", "CPU µs per request", "p99 latency"],
        tokens.rows.map((row) => [row.label, fmtSpread(row.rps), ratio(row.ratio), row.roundRatios === undefined ? "–" : range(row.roundRatios, (x) => x.toFixed(2)), cpuCell(row.cpu), `${fmtNum(row.p99.median, 1)} ms`]),
      ),
    );
  }
  if (j.writers.error !== undefined) {
    out.push(`\n### The writers alone\n\nNot measured: ${j.writers.error}.`);
    return out.join("\n");
  }
  out.push(
    `\n### The writers alone (${fmtInt(j.writers.bytes)} B a write; \`bench/json-worker.mjs\`, one process pinned to core 0, ${opts.writerRounds} interleaved rounds of ${opts.writerMs} ms)\n`,
  );
  out.push(
    table(
      ["writer", "writes/s median (min–max)", "ratio to JSON.stringify (median of rounds)"],
      j.writers.rows.map((row) => [row.name, fmtSpread(row.opsPerSecond), `${ratio(row.ratio.median)} (${range(row.ratio, (x) => x.toFixed(2))})`]),
    ),
  );
  return out.join("\n");
}

function opsSection(o, opts) {
  const out = [];
  out.push(
    `wrk ${opts.wrkArgs}, ${opts.rounds} interleaved rounds after a ${opts.warmup} s warm-up each, servers pinned to core 0 and wrk to core 1, ` +
      "as the throughput part. Each group is one feature of issue 44 on against off (or two ways of doing one thing); the ratios are paired round by round " +
      "to the group's first row. The machine is shared: compare the ratios, and read a ratio whose rounds disagree as noise.",
  );
  for (const group of o.groups) {
    out.push(`\n### ${group.title}\n`);
    out.push(
      table(
        ["server", "req/s median (min–max)", "ratio to the first row (median of rounds)", "per-round ratio", "CPU µs per request", "ratio by CPU time", "p99 latency", "others"],
        group.rows.map((row) => [
          row.label,
          fmtSpread(row.rps),
          ratio(row.ratio),
          row.roundRatios === undefined ? "–" : range(row.roundRatios, (x) => x.toFixed(2)),
          cpuCell(row.cpu),
          row.cpuRoundRatios === undefined ? "–" : `${ratio(row.cpuRoundRatios.median)} (${range(row.cpuRoundRatios, (x) => x.toFixed(2))})`,
          `${fmtNum(row.p99.median, 1)} ms`,
          `${Math.round(row.other.median * 100)} %`,
        ]),
      ),
    );
    const p = group.paired;
    if (p?.roundRatios !== undefined) {
      const both = (r) => `${ratio(r.roundRatios.median)} (rounds ${range(r.roundRatios, (x) => x.toFixed(2))})${r.cpuRoundRatios === undefined ? "" : `, by CPU time ${ratio(r.cpuRoundRatios.median)} (${range(r.cpuRoundRatios, (x) => x.toFixed(2))})`}`;
      out.push(
        `\nOver its ${p.pairs} process pairs (each side started ${p.pairs} times; every round of every pair against its own pair's baseline): **${p.feature} ${both(p)}**.` +
          (p.control?.roundRatios === undefined ? "" : ` The A/A rows (a later pair's baseline against the first's, the same server twice): ${both(p.control)}: ratios within that spread of 1.00 are noise.`),
      );
    }
  }
  const f = o.fanOut;
  if (f !== undefined) {
    out.push("\n### Fan-out past one database: a chat message to the sockets of two app processes\n");
    if (f.skipped !== undefined) out.push(`Not measured: ${f.skipped}.`);
    else {
      out.push(
        `The scale fixture (spec/fixtures/scale) twice on one throwaway PostgreSQL, ${fmtInt(f.redis.sockets)} chat sockets split between the two, ` +
          `${f.redis.messages} messages sent one at a time from a socket on the first (\`Room("chat")\`): the time from each send to its arrival on every socket ` +
          "(nothing pinned; the processes, PostgreSQL, Redis and the bench's client share the two cores).\n",
      );
      out.push(
        table(
          ["fan-out", "deliveries", "p50 ms", "p99 ms", "max ms", "lost"],
          [
            ["PostgreSQL LISTEN/NOTIFY (fw/db's default)", fmtInt(f.postgres.deliveries), fmtNum(f.postgres.p50, 1), fmtNum(f.postgres.p99, 1), fmtNum(f.postgres.max, 1), fmtInt(f.postgres.lost)],
            ["Redis PUBLISH/SUBSCRIBE (`FW_FANOUT=redis://…`)", fmtInt(f.redis.deliveries), fmtNum(f.redis.p50, 1), fmtNum(f.redis.p99, 1), fmtNum(f.redis.max, 1), fmtInt(f.redis.lost)],
          ],
        ),
      );
    }
  }
  return out.join("\n");
}

export function report(r) {
  const mc = r.machine;
  const parts = [];
  parts.push(`# Benchmarks

Written by \`${r.command}\` on ${r.date} (${fmtMs(r.durationMs)} in all${r.quick ? "; **a --quick smoke run: few, short rounds, small tables — not for comparison**" : ""}).
How to run and what each part measures: [bench/README.md](bench/README.md).

## Machine

| | |
|---|---|
| CPU | ${mc.model}, ${mc.cores} cores${mc.mem ? `, ${mc.mem} RAM` : ""} |
| Node | ${mc.node} |
| kernel | ${mc.kernel} |
| load generator | wrk ${mc.wrk} (Debian), ${mc.pinned ? "servers pinned to core 0 and wrk to core 1 with taskset" : "no taskset: not pinned"} |
| peers | fastify ${r.versions.fastify}, hono ${r.versions.hono}, @hono/node-server ${r.versions["@hono/node-server"]}, find-my-way ${r.versions["find-my-way"]}${r.versions.pg === undefined ? "" : `, pg ${r.versions.pg}, @electric-sql/pglite ${r.versions["@electric-sql/pglite"]}`}${r.versions["@fastify/multipart"] === undefined ? "" : `, @fastify/multipart ${r.versions["@fastify/multipart"]}, @fastify/static ${r.versions["@fastify/static"]} (fw and @fastify/multipart both parse with @fastify/busboy ${r.versions["@fastify/busboy"]})`} |
| toolchain | typescript ${r.versions.typescript}, ts-patch ${r.versions["ts-patch"]}, typia ${r.versions.typia} |
| fw | working tree at ${r.git}, built by \`npm run build\`${r.built ? " at the start of this run" : " before this run (--no-build)"} |
| noise | ${r.noise} |
`);
  parts.push(`## Targets\n\nEvery target of the issues, one row each (bench/targets.mjs lists them and their numbers); a part that did not run leaves its targets "not measured".\n\n${targetsTable(r)}\n`);
  if (r.errors.length > 0) parts.push(`## Parts that failed in this run\n\n${r.errors.map((e) => `- ${e}`).join("\n")}\n`);
  if (r.throughput !== undefined) parts.push(`## Throughput\n\n${throughputSection(r.throughput, r.options.throughput)}\n`);
  if (r.routing !== undefined) parts.push(`## Routing\n\n${routingSection(r.routing, r.options.routing)}\n`);
  if (r.build !== undefined) parts.push(`## Build\n\n${buildSection(r.build, r.options.build)}\n`);
  if (r.dev !== undefined) parts.push(`## Dev loop\n\n${devSection(r.dev)}\n`);
  if (r.memory !== undefined) parts.push(`## Memory\n\n${memorySection(r.memory, r.options.memory)}\n`);
  if (r.db !== undefined) parts.push(`## Database (fw/db)\n\n${dbSection(r.db, { ...r.options.db, wrkArgs: `-t1 -c${r.options.db.connections} -d${r.options.db.seconds}s` })}\n`);
  if (r.scale !== undefined) parts.push(`## Scale-out (issue 21)\n\n${scaleSection(r.scale)}\n`);
  if (r.live !== undefined) parts.push(`## Live pages (issue 23, fw/live)\n\n${liveSection(r.live)}\n`);
  if (r.json !== undefined) parts.push(`## JSON answers (issue 31)\n\n${jsonSection(r.json, { ...r.options.json, wrkArgs: `-t1 -c${r.options.json.connections} -d${r.options.json.seconds}s` })}\n`);
  if (r.jobs !== undefined) parts.push(`## Background jobs (issue 32, fw/jobs)\n\n${jobsSection(r.jobs)}\n`);
  if (r.ops !== undefined) parts.push(`## Running in production (issue 44)\n\n${opsSection(r.ops, { ...r.options.ops, wrkArgs: `-t1 -c${r.options.ops.connections} -d${r.options.ops.seconds}s` })}\n`);
  if (r.files !== undefined) parts.push(`## Files (issue 40, fw/files)\n\n${filesSection(r.files, { ...r.options.files, sharp: r.versions.sharp })}\n`);
  const findings = join(BENCH, "FINDINGS.md");
  if (existsSync(findings)) parts.push(readFileSync(findings, "utf8").trim() + "\n");
  return parts.join("\n");
}
