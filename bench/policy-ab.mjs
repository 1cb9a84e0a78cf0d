// `node bench/ab.mjs policy <side>…`: the policy rows (bench/db-policy.mjs, issue 41) as an A/B of fw builds.
// Each side is the policy app (bench/servers/policy-app) as one build of fw built it: `fw` (the current build,
// built into bench/.work/policy-app first) or `fw@<name>` (a snapshot's copy); each on a database of its own in one
// throwaway PostgreSQL cluster (pinned to the load core, as the db part pins it), migrated and seeded by its own
// `db` commands, ada signed in through the form. Every round loads each side's two pages, `/memos` (under `owned`)
// and `/drafts` (under the policy), one after another, the order turned every other round; it prints each side's
// CPU time per request on each page, the policy page's ratio to `owned` on the same server (the bench's figure),
// and each page's ratio to the first side's, paired round by round.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { buildDbApp, POLICY_APP_MAIN } from "./lib/db-app.mjs";
import { databaseOf, pinPostgres, prepareApp } from "./db.mjs";
import { POLICY_PAGES, policyPreflight, policySignIn } from "./db-policy.mjs";
import { postgresSupport } from "./lib/postgres.mjs";
import { SNAPSHOTS } from "./lib/sides.mjs";
import { freePort, startServer, summary } from "./lib/util.mjs";
import { ensureWrk, wrk } from "./lib/wrk.mjs";

const SERVER_CORE = 0;
const LOAD_CORE = 1;

/** The built policy app a side runs: the current build's, or the copy a snapshot kept of it. */
function policyMain(side) {
  if (side === "fw") return POLICY_APP_MAIN;
  const name = /^fw@(.+)$/.exec(side)?.[1];
  if (name === undefined) throw new Error(`the policy scenario's sides are fw and fw@<snapshot>, not ${JSON.stringify(side)}`);
  const main = join(SNAPSHOTS, name, "bench", ".work", "policy-app", "dist", "main.js");
  if (!existsSync(main)) throw new Error(`the snapshot ${name} has no policy app (${main}): make snapshots after \`node bench/profile.mjs db-memos-fw\` or an ab policy run has built it`);
  return main;
}

const ratio = (values) => {
  const s = summary(values);
  return `${s.median.toFixed(3)} (${s.min.toFixed(3)}–${s.max.toFixed(3)})`;
};

export async function comparePolicy(sides, { rounds, seconds }) {
  if (sides.length === 0) throw new Error("usage: node bench/ab.mjs policy <fw|fw@name>... [--rounds=6] [--seconds=3]");
  const mains = sides.map(policyMain);
  if (!ensureWrk()) throw new Error("wrk is not installed and apt-get could not install it");
  process.env.FW_SECRET ??= randomBytes(32).toString("base64url");
  // Production boots refuse without the hosts they answer for (issue 32); mail (the teams' invitations) goes to a folder.
  process.env.FW_ALLOWED_HOSTS ??= "127.0.0.1,localhost";
  process.env.FW_ORIGIN ??= "http://localhost";
  process.env.FW_MAILBOX ??= ".fw/bench-mail";
  if (sides.includes("fw")) buildDbApp();
  const support = await postgresSupport();
  const bin = support.postgresBin();
  if (bin === undefined) throw new Error("PostgreSQL not found (no /usr/lib/postgresql/*/bin/initdb, PG_BIN unset)");
  const cluster = await support.startCluster(bin);
  const servers = [];
  try {
    for (const [i, side] of sides.entries()) {
      const env = { DATABASE_URL: await databaseOf(cluster.url, `policy_ab_${i}`) };
      const cwd = await prepareApp(`policy-ab-${i}`, env, mains[i]);
      const port = await freePort();
      const started = await startServer({ name: side, script: mains[i], env: { ...env, PORT: String(port) }, core: SERVER_CORE, cwd, timeoutMs: 120_000 });
      const url = `http://127.0.0.1:${port}`;
      servers.push({ side, started, url, cookie: undefined, cpu: {}, rps: {} });
    }
    pinPostgres(cluster.url);
    const loads = [];
    for (const server of servers) {
      server.cookie = await policySignIn(server.url);
      await policyPreflight(server.url, server.cookie);
      for (const page of POLICY_PAGES) {
        server.cpu[page.id] = [];
        server.rps[page.id] = [];
        loads.push({ server, page });
      }
    }
    const run = ({ server, page }, secs) => wrk({ url: server.url + page.path, seconds: secs, core: LOAD_CORE, headers: [`Cookie: ${server.cookie}`], serverPid: server.started.pid });
    for (const load of loads) await run(load, 2); // warm-up
    for (let round = 0; round < rounds; round++) {
      for (const load of round % 2 === 0 ? loads : [...loads].reverse()) {
        const result = await run(load, seconds);
        load.server.cpu[load.page.id].push(result.cpuUs);
        load.server.rps[load.page.id].push(result.rps);
      }
      console.log(`round ${round + 1}/${rounds}: ${loads.map(({ server, page }) => `${server.side} ${page.path} ${server.cpu[page.id][round].toFixed(1)} µs`).join(", ")}`);
    }
    const [owned, policy] = POLICY_PAGES.map((page) => page.id);
    const base = servers[0];
    console.log(`\npolicy, ${rounds} rounds of ${seconds} s; CPU µs per request (median); ratios paired round by round (median, range), above 1 is cheaper`);
    for (const s of servers) {
      const pages = POLICY_PAGES.map((page) => `${page.path} ${summary(s.cpu[page.id]).median.toFixed(1)} µs (${Math.round(summary(s.rps[page.id]).median)} req/s)`).join(", ");
      const byCpu = ratio(s.cpu[owned].map((v, i) => v / s.cpu[policy][i]));
      const byRps = ratio(s.rps[policy].map((v, i) => v / s.rps[owned][i]));
      const toBase = s === base ? "" : "; to " + base.side + ": " + POLICY_PAGES.map((page) => `${page.path} ${ratio(s.cpu[page.id].map((v, i) => base.cpu[page.id][i] / v))}`).join(", ");
      console.log(`${s.side.padEnd(14)} ${pages}; ${POLICY_PAGES[1].path} to ${POLICY_PAGES[0].path} by CPU ${byCpu}, by req/s ${byRps}${toBase}`);
    }
  } finally {
    await Promise.all(servers.map((s) => s.started.stop()));
    await cluster.destroy();
  }
}
