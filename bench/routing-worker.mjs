// One routing measurement, run in its own process (pinned by routing.mjs) for one table size:
// ns per lookup of fw's Matcher, find-my-way and a naive ordered scan on the same table and
// paths, plus a check that fw answers exactly what the naive scan (the contract: first match in
// table order) answers on every path. Prints one JSON object on stdout.
import FindMyWay from "find-my-way";
import { Matcher } from "../dist/runtime/routing/matcher.js";
import { splitPath } from "../dist/runtime/http/path.js";
import { Route } from "../dist/runtime/index.js";
import { METHODS, Random, randomOverlapTable, randomOverlapPaths, restPaths, restTable } from "./lib/tables.mjs";

const { size, rounds, roundMs, seed } = JSON.parse(process.argv[2]);

const handler = () => {
  throw new Error("not called");
};

// ---------- the naive ordered scan: reference semantics and the "no index" baseline ----------

function compile(pattern) {
  const parts = pattern === "/" ? [] : pattern.slice(1).split("/");
  return parts.map((p) => (p.startsWith(":") ? { t: 1, name: p.slice(1) } : p.startsWith("*") ? { t: 2, name: p.slice(1) } : { t: 0, value: p }));
}

/** The params `segs` captures from `segments`, or undefined. */
function matchSegs(segs, segments) {
  let params;
  for (let i = 0; i < segs.length; i++) {
    const s = segs[i];
    if (s.t === 2) {
      (params ??= {})[s.name] = segments.slice(i).join("/");
      return params;
    }
    if (i >= segments.length) return undefined;
    const actual = segments[i];
    if (s.t === 0) {
      if (s.value !== actual) return undefined;
    } else {
      if (actual === "") return undefined;
      (params ??= {})[s.name] = actual;
    }
  }
  return segments.length === segs.length ? (params ?? {}) : undefined;
}

class NaiveScan {
  constructor(rows) {
    this.rows = rows.map((row, index) => ({ ...row, index, segs: compile(row.path) }));
  }

  lookup(method, segments) {
    const rows = this.rows;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      if (row.method !== method && !(method === "HEAD" && row.method === "GET")) continue;
      const params = matchSegs(row.segs, segments);
      if (params !== undefined) return { type: "found", index: row.index, params };
    }
    let mask = 0;
    for (let i = 0; i < rows.length; i++) {
      if (matchSegs(rows[i].segs, segments) !== undefined) mask |= 1 << METHODS.indexOf(rows[i].method);
    }
    if (mask === 0) return { type: "none" };
    if (mask & 1) mask |= 1 << METHODS.indexOf("HEAD");
    return { type: "method", allowed: METHODS.filter((_, i) => (mask & (1 << i)) !== 0) };
  }
}

// ---------- the three routers on one table ----------

function build(rows) {
  const routes = rows.map((row) => Route.http({ method: row.method, path: row.path, handler, source: `r${row.index}` }));
  const indexOf = new Map(routes.map((route, index) => [route, index]));
  const fw = new Matcher(routes);
  const naive = new NaiveScan(rows);
  const fmw = FindMyWay({ ignoreTrailingSlash: true, maxParamLength: 500 });
  const seen = new Set();
  let fmwSkipped = 0;
  rows.forEach((row, index) => {
    // find-my-way has one unnamed wildcard and refuses a second route of one shape and method
    const path = row.path.replace(/\*[A-Za-z_$][\w$]*$/, "*");
    const key = `${row.method} ${path.replace(/:[^/]+/g, ":")}`;
    if (seen.has(key)) {
      fmwSkipped++;
      return;
    }
    seen.add(key);
    try {
      fmw.on(row.method, path, handler, { index });
    } catch {
      fmwSkipped++;
    }
  });
  return { routes, indexOf, fw, naive, fmw, fmwSkipped };
}

function sameAnswer(a, b, indexOf) {
  if (a.type !== b.type) return false;
  if (a.type === "none") return true;
  if (a.type === "method") return a.allowed.join() === b.allowed.join();
  if (indexOf.get(a.route) !== b.index) return false;
  const ka = Object.keys(a.params);
  return ka.length === Object.keys(b.params).length && ka.every((k) => a.params[k] === b.params[k]);
}

/** fw vs naive on every path; also how often find-my-way's pick differs from table order. */
function check(table, paths) {
  let checked = 0;
  let mismatches = 0;
  let fmwDiffers = 0;
  let firstMismatch;
  let refused = 0;
  for (const { method, path } of paths) {
    let segments;
    try {
      segments = splitPath(path);
    } catch {
      refused++; // an empty segment (`//`) or a dot segment: fw answers 400 before any route is asked
      continue;
    }
    const fw = table.fw.lookup(method, segments);
    const naive = table.naive.lookup(method, segments);
    checked++;
    if (!sameAnswer(fw, naive, table.indexOf)) {
      mismatches++;
      firstMismatch ??= { method, path, fw: fw.type === "found" ? table.indexOf.get(fw.route) : fw, naive };
    }
    const found = table.fmw.find(method === "HEAD" ? "GET" : method, path);
    const fmwIndex = found === null ? undefined : found.store.index;
    const naiveIndex = naive.type === "found" ? naive.index : undefined;
    if (fmwIndex !== naiveIndex) fmwDiffers++;
  }
  return { checked, mismatches, fmwDiffers, firstMismatch, refused };
}

// ---------- timing ----------

let sink = 0;

/** ns per lookup of `fn` over `paths` (cycled) for at least `ms` milliseconds. */
function time(fn, paths, ms) {
  let count = 0;
  const started = process.hrtime.bigint();
  const budget = BigInt(Math.round(ms * 1e6));
  let elapsed = 0n;
  do {
    for (let i = 0; i < paths.length; i++) sink += fn(paths[i]);
    count += paths.length;
    elapsed = process.hrtime.bigint() - started;
  } while (elapsed < budget);
  return Number(elapsed) / count;
}

const random = new Random(seed);
const rows = restTable(size, random);
const table = build(rows);
const paths = restPaths(rows, 10_000, random);
const checks = check(table, paths);

// the heavy-overlap random table (tiny alphabet, like spec/support/random.ts): correctness only
const overlapRows = randomOverlapTable(size, random);
const overlap = build(overlapRows);
const overlapChecks = check(overlap, randomOverlapPaths(Math.min(10_000, 2000 + size), random));

const withSegments = paths.map((p) => ({ method: p.method, path: p.path, segments: splitPath(p.path) }));
// The naive scan visits every route: a slice of the paths is enough to time it.
const naivePaths = withSegments.slice(0, Math.max(50, Math.min(withSegments.length, Math.round(2e6 / size))));

const matchers = {
  fw: (p) => (table.fw.lookup(p.method, splitPath(p.path)).type === "found" ? 1 : 0),
  fwLookupOnly: (p) => (table.fw.lookup(p.method, p.segments).type === "found" ? 1 : 0),
  findMyWay: (p) => (table.fmw.find(p.method === "HEAD" ? "GET" : p.method, p.path) === null ? 0 : 1),
  naive: (p) => (table.naive.lookup(p.method, splitPath(p.path)).type === "found" ? 1 : 0),
};

// warm-up, then interleaved rounds: fw, fw lookup only, find-my-way, naive, fw, …
for (const [name, fn] of Object.entries(matchers)) time(fn, name === "naive" ? naivePaths : withSegments, roundMs / 2);
const ns = Object.fromEntries(Object.keys(matchers).map((name) => [name, []]));
for (let round = 0; round < rounds; round++) {
  for (const [name, fn] of Object.entries(matchers)) ns[name].push(time(fn, name === "naive" ? naivePaths : withSegments, roundMs));
}

const hits = paths.filter((p) => table.naive.lookup(p.method, splitPath(p.path)).type === "found").length;
process.stdout.write(
  JSON.stringify({
    size,
    routes: rows.length,
    paths: paths.length,
    hitShare: hits / paths.length,
    fmwSkipped: table.fmwSkipped,
    ns,
    checks,
    overlapChecks: { ...overlapChecks, routes: overlapRows.length },
    sink: sink > 0,
  }),
);
