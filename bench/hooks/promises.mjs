// Promises a request, counted inside a served process: load with
//   NODE_OPTIONS=--import=./bench/hooks/promises.mjs node bench/profile.mjs db-post-fw --seconds=4
// (NODE_OPTIONS reaches the server profile.mjs starts). Between the 3,000th and the 5,000th request
// the process counts every promise made (async_hooks PROMISE inits) and appends the average to
// bench/.work/promises.txt; with FW_PROMISE_SITES=1 it writes, instead, where they were made over
// 100 requests (the three top frames, per request), to bench/.work/promise-sites-<pid>.txt.
// Requests in flight at the window's edges blur the count by a fraction of a promise (FINDINGS.md 26).
import { createHook } from "node:async_hooks";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";

const OUT = join(import.meta.dirname, "..", ".work");
const SITES = process.env.FW_PROMISE_SITES === "1";
const [FROM, TO] = SITES ? [3000, 3100] : [3000, 5000];
let requests = 0;
let counting = false;
let made = 0;
const sites = new Map();
if (SITES) Error.stackTraceLimit = 12;

createHook({
  init(_id, type) {
    if (type !== "PROMISE" || !counting) return;
    made++;
    if (!SITES) return;
    const frames = (new Error().stack ?? "").split("\n").slice(2).filter((line) => !line.includes("async_hooks") && !line.includes("hooks/promises.mjs"));
    const key = frames.slice(0, 3).map((line) => line.trim().replace(/^at /, "")).join(" < ");
    sites.set(key, (sites.get(key) ?? 0) + 1);
  },
}).enable();

const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, ...args) {
  if (event === "request" && ++requests >= FROM && requests <= TO) {
    counting = requests < TO;
    if (requests === TO) report();
  }
  return emit.call(this, event, ...args);
};

function report() {
  mkdirSync(OUT, { recursive: true });
  const per = (n) => (n / (TO - FROM)).toFixed(2);
  if (SITES) {
    const lines = [...sites].sort((a, b) => b[1] - a[1]).map(([site, n]) => `${per(n)} ${site}`);
    writeFileSync(join(OUT, `promise-sites-${process.pid}.txt`), `${lines.join("\n")}\n`);
  } else {
    appendFileSync(join(OUT, "promises.txt"), `${process.argv[1]}: ${per(made)} promises a request (requests ${FROM}–${TO})\n`);
  }
}
