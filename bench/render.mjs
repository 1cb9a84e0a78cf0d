#!/usr/bin/env node
// Rendering alone, in process: the bench's session page and layout (bench/servers/fw-pages.tsx)
// built with fw's JSX pre-renderer (tspc, as `npm run bench` builds it) and without it (plain tsc,
// so every element is a runtime node), against the hand-written template string of the peers
// (bench/servers/page.mjs). Handler + layout + render per call; interleaved rounds, medians.
//
//   npm run build && node bench/render.mjs
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { buildBenchPages } from "./lib/bench-pages.mjs";
import { ROOT, WORK } from "./lib/util.mjs";

buildBenchPages();
const plainDir = join(WORK, "servers-plain");
const tsc = spawnSync(process.execPath, [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "bench/servers", "--outDir", plainDir], { cwd: ROOT, encoding: "utf8" });
if (tsc.status !== 0) throw new Error(`tsc -p bench/servers failed:\n${tsc.stdout}${tsc.stderr}`);

const pre = await import(join(WORK, "servers", "fw-pages.js"));
const plain = await import(join(plainDir, "fw-pages.js"));
const { renderPage } = await import(join(ROOT, "dist", "runtime", "server", "layout.js"));
const { Request } = await import(join(ROOT, "dist", "runtime", "http", "request.js"));
const { Session, withReserved } = await import(join(ROOT, "dist", "runtime", "http", "session.js"));
const { POSTS, renderPost } = await import("./servers/page.mjs");

const csrf = "eW91IGZvdW5kIHRoZSB0b2tlbg";
const request = new Request({ path: "/posts/7", params: { id: 7 }, session: withReserved(Session.empty.set("user", "ada"), "_csrf", csrf) });
const page = (pages) => () => renderPage(pages.postPage(POSTS, request).body.html, pages.layout, request);
const variants = {
  "fw, pre-rendered JSX": page(pre),
  "fw, runtime JSX tree": page(plain),
  "template string by hand": () => renderPost(POSTS.get(7), "ada", csrf),
};
const outputs = new Set(Object.values(variants).map((render) => render()));
if (outputs.size !== 1) throw new Error("the three renderings differ: the comparison would not be fair");

const ROUNDS = 7;
const CALLS = 20_000;
const times = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, render] of Object.entries(variants)) {
    let bytes = 0;
    const started = performance.now();
    for (let i = 0; i < CALLS; i++) bytes += render().length;
    times[name].push(((performance.now() - started) * 1000) / CALLS);
    if (bytes === 0) throw new Error("nothing rendered");
  }
}
console.log(`${[...outputs][0].length} characters each, ${ROUNDS} interleaved rounds of ${CALLS.toLocaleString("en")} renders`);
for (const [name, list] of Object.entries(times)) {
  list.sort((a, b) => a - b);
  console.log(`${name.padEnd(26)} median ${list[ROUNDS >> 1].toFixed(1)} µs (best ${list[0].toFixed(1)}, worst ${list[ROUNDS - 1].toFixed(1)})`);
}
