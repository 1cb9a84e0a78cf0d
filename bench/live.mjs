// The live part of `npm run bench` (issue 23, fw/live): on two live pages served by
// bench/servers/fw-live.mjs (a counter, and a 50-row list like a derived Index's page), with a
// real WebSocket client speaking the live protocol (bench/lib/live-client.mjs):
//   - event → patch applied: from sending `{"t":"e",…}` to the answering render's diff applied
//     to the client's tree and the root's HTML rebuilt from it (what the browser client does
//     before morphing the DOM; the morph itself is not measured here), p50/p99, one event in
//     flight at a time;
//   - bytes per update: the render frame's bytes against the bytes of the page re-rendered
//     (the whole page as a GET answers it, layout included, and the live root's HTML alone);
//   - live sockets held per 100 MB of RSS: N sockets open on the counter page (each mounted:
//     one page state per socket), the server's RSS growth; beside it fw's plain `Route.ws` with
//     N idle sockets (bench/servers/fw-ws.mjs) for reference;
//   - the fan-out (issue 30, item 6: bench/live-fanout.mjs): the example with 100 anonymous live
//     `/posts` sockets and bursts of 15 writes: the reads they cost per write against the views
//     shown, and `/fw/health` answered meanwhile.
//
//   npm run bench -- --only=live
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { getLivePage, LiveConnection } from "./lib/live-client.mjs";
import { liveFanOut } from "./live-fanout.mjs";
import { idleRss } from "./memory.mjs";
import { WebSocket } from "../node_modules/ws/wrapper.mjs";
import { fmtInt, fmtMB, fmtNum, freePort, log, ROOT, rssOf, sleep, sorted, startServer } from "./lib/util.mjs";

const SERVER_CORE = 0;

async function start(name, script, env = {}) {
  const port = await freePort();
  const server = await startServer({ name, script: join(ROOT, script), env: { FW_SECRET: process.env.FW_SECRET, FW_ALLOWED_HOSTS: "127.0.0.1,localhost", FW_ORIGIN: "http://localhost", FW_MAILBOX: ".fw/bench-mail", PORT: String(port), NODE_ENV: "production", ...env }, core: SERVER_CORE });
  return { ...server, port, url: `http://127.0.0.1:${port}` };
}

function percentiles(values) {
  const s = sorted(values);
  const at = (p) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
  return { count: s.length, p50: at(50), p99: at(99), max: s[s.length - 1], mean: s.reduce((a, b) => a + b, 0) / s.length };
}

/** `events` events on one connection, one at a time, after `warmup` unmeasured ones; then the page re-rendered by a GET for comparison. */
async function latency(server, { path, event, pairs, events, warmup }) {
  const page = await getLivePage(server.url, path);
  const live = new LiveConnection(server.url, path, page);
  await live.opened;
  const mountBytes = Buffer.byteLength(JSON.stringify(live.tree));
  try {
    for (let i = 0; i < warmup; i++) await live.send(event, pairs(i));
    const ms = [];
    const bytes = [];
    for (let i = 0; i < events; i++) {
      const answer = await live.send(event, pairs(warmup + i));
      ms.push(answer.ms);
      bytes.push(answer.bytes);
    }
    // The same state re-rendered whole: what a page without fw/live would send (a new GET, which
    // mounts afresh, so its size is taken from a page of the same shape) and the live root's HTML.
    const again = await getLivePage(server.url, path, page.cookie);
    const rootBytes = Buffer.byteLength(live.html);
    return { path, event, events, warmup, latency: percentiles(ms), bytes: percentiles(bytes), pageBytes: again.bytes, rootBytes, mountBytes };
  } finally {
    live.close();
  }
}

/** Opens `count` live sockets on `path` (50 handshakes in flight), each mounted. */
async function openLive(server, path, count, page) {
  const sockets = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const live = new LiveConnection(server.url, path, page);
      sockets.push(live);
      await live.opened;
    }
  };
  await Promise.all(Array.from({ length: Math.min(50, count) }, worker));
  return sockets;
}

async function liveRss(count) {
  // Every socket comes from the bench's one address: fw/live holds at most 256 a client address by
  // default (issue 30), so the server is told to admit them all, as an app behind one proxy would be.
  const server = await start("live: sockets", "bench/servers/fw-live.mjs", { FW_LIVE_SOCKETS_PER_ADDRESS: String(count + 10) });
  try {
    const page = await getLivePage(server.url, "/counter");
    // One socket first (the ws package and the page's first render are one-off costs), then the settled RSS.
    const first = await openLive(server, "/counter", 1, page);
    const before = await idleRss(server, ["/counter"]);
    const rest = await openLive(server, "/counter", count - 1, page);
    // Each socket's page state is live: one event on a few of them, to be sure they answer.
    for (const live of rest.slice(0, 10)) await live.send("increment", [["by", "1"]]);
    await sleep(1500);
    const after = Math.min(rssOf(server.pid), (await sleep(200), rssOf(server.pid)));
    for (const live of [...first, ...rest]) live.close();
    return { count, before, after, perSocket: (after - before) / count };
  } finally {
    await server.stop();
  }
}

/** The same on fw's plain `Route.ws` (idle sockets, no page state), for reference. */
async function plainRss(count) {
  const server = await start("live: plain ws", "bench/servers/fw-ws.mjs");
  const open = () =>
    new Promise((done, fail) => {
      const socket = new WebSocket(`ws://127.0.0.1:${server.port}/ws`, { origin: server.url, perMessageDeflate: false });
      socket.once("open", () => done(socket)).once("error", fail);
    });
  try {
    const sockets = [await open()];
    const before = await idleRss(server);
    let next = 1;
    const worker = async () => {
      while (next < count) {
        next++;
        sockets.push(await open());
      }
    };
    await Promise.all(Array.from({ length: 50 }, worker));
    await sleep(1500);
    const after = Math.min(rssOf(server.pid), (await sleep(200), rssOf(server.pid)));
    for (const socket of sockets) socket.terminate();
    return { count, before, after, perSocket: (after - before) / count };
  } finally {
    await server.stop();
  }
}

export async function live({ events, warmup, sockets, fanOut }) {
  const server = await start("live: pages", "bench/servers/fw-live.mjs");
  let pages;
  try {
    const client = await fetch(`${server.url}/fw/live.js`);
    if (client.status !== 200) throw new Error(`GET /fw/live.js answered ${client.status}`);
    const clientBody = Buffer.from(await client.arrayBuffer());
    const clientBytes = clientBody.byteLength;
    const clientGzip = gzipSync(clientBody, { level: 9 }).byteLength;
    const counter = await latency(server, { path: "/counter", event: "increment", pairs: () => [["by", "1"]], events, warmup });
    log(`live: counter p50 ${fmtNum(counter.latency.p50)} ms, p99 ${fmtNum(counter.latency.p99)} ms, ${fmtInt(counter.bytes.p50)} B per update vs ${fmtInt(counter.pageBytes)} B page`);
    const list = await latency(server, { path: "/tasks", event: "toggle", pairs: (i) => [["id", String((i % 50) + 1)]], events, warmup });
    log(`live: list p50 ${fmtNum(list.latency.p50)} ms, p99 ${fmtNum(list.latency.p99)} ms, ${fmtInt(list.bytes.p50)} B per update vs ${fmtInt(list.pageBytes)} B page`);
    pages = { counter, list, clientBytes, clientGzip };
  } finally {
    await server.stop();
  }
  log(`live: ${sockets} sockets on the counter page`);
  const held = await liveRss(sockets);
  log(`live: ${fmtMB(held.after - held.before)} for ${sockets} live sockets (${fmtInt(held.perSocket)} B each)`);
  const plain = await plainRss(sockets);
  log(`live: ${fmtMB(plain.after - plain.before)} for ${sockets} plain Route.ws sockets (${fmtInt(plain.perSocket)} B each)`);
  let fanned;
  try {
    fanned = fanOut === undefined ? undefined : await liveFanOut(fanOut);
  } catch (error) {
    // The rows above stand without it; the report says what went wrong.
    log(`live: fan-out failed: ${error.stack ?? error}`);
    fanned = { error: String(error.message ?? error).split("\n")[0] };
  }
  return { ...pages, held, plain, ...(fanned === undefined ? {} : { fanOut: fanned }), options: { events, warmup, sockets } };
}

/** The fan-out's paragraph and table (issue 30, item 6), or a line saying it was not measured. */
function fanOutSection(f) {
  if (f === undefined) return "Fan-out (issue 30): not measured (no PostgreSQL on this machine: the example's statements are counted on its wire).";
  if (f.error !== undefined) return `Fan-out (issue 30): failed: ${f.error}`;
  const row = (x) => [
    `${fmtInt(x.sockets)} on ${x.views === 1 ? "`/posts`" : `\`/posts\` in its ${x.views} orders`}`,
    fmtInt(x.views),
    `${fmtInt(x.writes)} (${x.rounds} × ${fmtInt(x.writes / x.rounds)})`,
    fmtInt(x.reads),
    `**${fmtNum(x.reads / x.writes)}**`,
    `${fmtInt(sorted(x.settledMs)[Math.floor(x.settledMs.length / 2)])} / ${fmtInt(Math.max(...x.settledMs))}`,
    `${fmtNum(x.health.p50, 1)} / **${fmtNum(x.health.p99, 1)}** / ${fmtNum(x.health.max, 1)} (${fmtInt(x.health.count)})`,
    fmtNum(x.serverCpuMs / x.writes, 1),
  ];
  return [
    `Fan-out (issue 30, item 6; bench/live-fanout.mjs): the example as built, production boot pinned to core 0, on a throwaway PostgreSQL reached through a ` +
      `proxy that writes down every statement (spec/support/pg-query-log.ts). ${fmtInt(f.sockets)} anonymous visitors (each its own session) hold a live ` +
      `\`/posts\` socket; a signed-in author sends ${fmtInt(f.writes)} posts at once (${f.rounds === 1 ? "one burst" : `${f.rounds} bursts, one after the other`}), each burst waited for until every socket shows it. ` +
      "Reads are the SELECTs of the posts the refreshes sent; the sockets of one view (same path and query, nobody signed in) share one read per publish, " +
      "and publishes arriving while it runs wait for one more (target: reads per write ≤ the views). `/fw/health` is asked one request after another " +
      "from a process of its own (core 1) from just before the first burst to the end of the last (target: p99 < 50 ms). Server CPU is its user + system " +
      "time over the bursts (clock ticks of 10 ms), per write.",
    "",
    "| live sockets | views | writes (bursts) | reads of the posts | reads per write | every socket updated, ms after the burst (median / max) | `/fw/health` during, ms p50 / p99 / max (probes) | server CPU per write, ms |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
    ...f.scenarios.map((x) => `| ${row(x).join(" | ")} |`),
    ...(f.guard === undefined
      ? []
      : [
          "",
          `The guarded page (issue 30, item 7): the author, signed in on the same server, asked \`GET ${f.guard.path}\` (signed-in users only; an anonymous GET does not get it) ` +
            `${fmtInt(f.guard.requests)} times: ${fmtInt(f.guard.statements)} statements in all, of which **${fmtInt(f.guard.userStatements)}** read the users or their signed-out sessions ` +
            `(${fmtNum(f.guard.userStatements / f.guard.requests, 1)} a request; the guard's \`byId\` and \`isRevoked\` are one statement on SqlUsers).`,
        ]),
  ].join("\n");
}

/** The report's section. */
export function liveSection(r) {
  const per100 = (x) => (100 * 1024 * 1024) / x.perSocket;
  const row = (name, x) => [
    name,
    `${fmtNum(x.latency.p50)} / ${fmtNum(x.latency.p99)} / ${fmtNum(x.latency.max)}`,
    fmtInt(x.bytes.p50),
    fmtInt(x.pageBytes),
    `${fmtNum(x.pageBytes / x.bytes.p50, 1)}×`,
    fmtInt(x.rootBytes),
    `${fmtNum(x.rootBytes / x.bytes.p50, 1)}×`,
  ];
  const { options } = r;
  return [
    `bench/servers/fw-live.mjs (production boot, pinned to core 0): a counter (\`/counter\`: one number and a button) and a 50-row list (\`/tasks\`: ` +
      `a table like a derived Index's page, each event toggling one row), the pages of bench/servers/live-pages.tsx compiled by fw's JSX ` +
      `pre-renderer and mounted with \`livePageRoutes\` / \`liveSocketRoute\` / \`liveClientRoute\`. The client is bench/lib/live-client.mjs: a ` +
      `real WebSocket speaking the live protocol (session cookie and CSRF token from the page's GET, Origin sent), keeping the tree, applying ` +
      `each diff and rebuilding the root's HTML from it, as /fw/live.js does before it morphs the DOM (the DOM morph is not in these figures). ` +
      `${fmtInt(options.events)} events per page, one in flight at a time, after ${fmtInt(options.warmup)} unmeasured ones.`,
    "",
    "| page | event → patch applied, ms p50 / p99 / max | bytes per update (frame, median) | page re-rendered (GET, with layout) | ratio | live root's HTML | ratio |",
    "|---|---:|---:|---:|---:|---:|---:|",
    `| ${row("counter", r.counter).join(" | ")} |`,
    `| ${row("50-row list", r.list).join(" | ")} |`,
    "",
    `Live sockets held: ${fmtInt(r.held.count)} sockets open on the counter page, each mounted (its own page state and template tree), RSS ` +
      `${fmtMB(r.held.before)} → ${fmtMB(r.held.after)}: ${fmtInt(r.held.perSocket)} B per socket, **${fmtInt(per100(r.held))} live sockets per 100 MB of RSS**. ` +
      `For reference, fw's plain \`Route.ws\` with ${fmtInt(r.plain.count)} idle sockets: ${fmtInt(r.plain.perSocket)} B per socket, ${fmtInt(per100(r.plain))} per 100 MB.`,
    "",
    `The client (\`GET /fw/live.js\`) is ${fmtInt(r.clientBytes)} B as served, ${fmtInt(r.clientGzip)} B gzipped (\`gzip -9\`).`,
    "",
    fanOutSection(r.fanOut),
  ].join("\n");
}
