#!/usr/bin/env node
// Builds fw (dist/) and the example (example/dist/), each only when what it is built from
// changed since its last successful build: `npm start` and `npm run dev` run it before every
// start, and a start with nothing changed should not spend a minute compiling what is already
// there (issue 30 item 4).
//
//   node scripts/build.mjs [fw] [example] [--force] [--check]
//
// No target names both, fw first (the example is built with fw's transformer). A target is built
// again when a file it is built from changed (its sources, its tsconfig files, the compilers'
// versions; fw's for the example), when a file its last build wrote is missing or was changed
// since (scripts/up-to-date.mjs), or with --force (`npm run build:fw`, which `npm pack` runs: a
// package is always built afresh). --check builds nothing: it says what would be built and exits
// 1 if anything would. The stamp is removed before a build starts and written only once it
// succeeded, so a failed or interrupted build is never taken for a good one. A rebuild is a whole
// build, as before: tspc with fw's transformer derives files (the route table) from all sources.
import { spawnSync } from "node:child_process";
import { copyFileSync, cpSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative, resolve } from "node:path";
import { forgetBuild, inputHash, stampBuild, staleness } from "./up-to-date.mjs";

const ROOT = resolve(import.meta.dirname, "..");
const require = createRequire(join(ROOT, "package.json"));
const TSC = require.resolve("typescript/bin/tsc");
const TSPC = require.resolve("ts-patch/bin/tspc.js");

/** What each target is built from, where it goes, and how. */
const TARGETS = {
  fw: {
    out: "dist",
    inputs: [
      "runtime",
      "transformer",
      "tsconfig.base.json",
      "tsconfig.build.json",
      "tsconfig.transformer.json",
      "package.json",
      "scripts/build.mjs",
      "scripts/up-to-date.mjs",
      // The compilers and the plugins that run in them, as installed (the lockfile may lag a hand install).
      "node_modules/typescript/package.json",
      "node_modules/ts-patch/package.json",
      "node_modules/typia/package.json",
      // The template of a new embedded database is made with the installed PGlite.
      "scripts/pglite-template.mjs",
      "node_modules/@electric-sql/pglite/package.json",
    ],
    steps: [
      () => run(TSC, ["-p", "tsconfig.transformer.json"]),
      () => copyFileSync(join(ROOT, "transformer/package.json"), join(ROOT, "dist/transformer/package.json")),
      () => run(TSPC, ["-p", "tsconfig.build.json"]),
      () => cpSync(join(ROOT, "runtime/live/client"), join(ROOT, "dist/runtime/live/client"), { recursive: true }),
      // A new embedded database starts from a copy of this, not initdb's slow run (runtime/db/pglite-template.ts).
      () => run(join(ROOT, "scripts/pglite-template.mjs"), []),
    ],
  },
  example: {
    out: "example/dist",
    inputs: ["example/src", "example/tsconfig.json"],
    // Built with fw's transformer and types: a change to fw rebuilds it.
    after: "fw",
    steps: [() => run(TSPC, ["-p", "example"])],
  },
};

function run(script, args) {
  const result = spawnSync(process.execPath, [script, ...args], { cwd: ROOT, stdio: "inherit" });
  if (result.status !== 0) {
    process.stderr.write(`build: ${relative(ROOT, script)} ${args.join(" ")} failed (${result.status ?? result.signal})\n`);
    process.exit(result.status ?? 1);
  }
}

const argv = process.argv.slice(2);
const force = argv.includes("--force");
const check = argv.includes("--check");
const named = argv.filter((arg) => !arg.startsWith("--"));
const unknown = [...named.filter((name) => !(name in TARGETS)), ...argv.filter((arg) => arg.startsWith("--") && arg !== "--force" && arg !== "--check")];
if (unknown.length > 0) {
  process.stderr.write(`build: unknown ${unknown.join(", ")}; usage: node scripts/build.mjs [fw] [example] [--force] [--check]\n`);
  process.exit(2);
}
const wanted = named.length === 0 ? Object.keys(TARGETS) : Object.keys(TARGETS).filter((name) => named.includes(name));

const hashes = {};
let stale = 0;
for (const [name, target] of Object.entries(TARGETS)) {
  hashes[name] = inputHash(ROOT, target.inputs, target.after === undefined ? "" : hashes[target.after]);
  if (!wanted.includes(name)) continue;
  const why = force ? "--force" : staleness(ROOT, target.out, hashes[name]);
  if (why === undefined) {
    process.stdout.write(`build: ${target.out}/ is up to date (nothing it is built from changed)\n`);
    continue;
  }
  stale++;
  if (check) {
    process.stdout.write(`build: ${target.out}/ would be built (${why})\n`);
    continue;
  }
  process.stdout.write(`build: building ${target.out}/ (${why})\n`);
  forgetBuild(ROOT, target.out);
  for (const step of target.steps) step();
  stampBuild(ROOT, target.out, hashes[name]);
}
if (check && stale > 0) process.exitCode = 1;
