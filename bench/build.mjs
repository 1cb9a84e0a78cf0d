// Build: generated apps of N route files, compiled three ways on the same sources:
//   fw    — tspc with fw's program transformer + typia (writes src/.fw/routes.ts itself)
//   typia — tspc with typia only; the table module (and the API module beside it) the ones fw generated, kept as plain files
//   tsc   — plain tsc on the typia variant's sources (it ignores the plugins)
// Cold builds (dist, the .tsbuildinfo and, for fw, the generated module removed first; run with
// --incremental, so each writes the .tsbuildinfo the next step reads) in interleaved rounds, then
// incremental rebuilds after editing one handler's JSX text, starting from the last cold build.
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EDITED, generateApp, linkFw, showFile } from "./lib/app-gen.mjs";
import { log, ROOT, run, summary, WORK } from "./lib/util.mjs";

const TSPC = join(ROOT, "node_modules", "ts-patch", "bin", "tspc.js");
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
const VARIANTS = ["fw", "typia", "tsc"];

async function compile(dir, variant, extra = []) {
  const bin = variant === "tsc" ? TSC : TSPC;
  const result = await run(process.execPath, [bin, "-p", dir, ...extra], { cwd: dir, timeoutMs: 300_000 });
  if (result.code !== 0) throw new Error(`${variant} build of ${dir} failed (${result.code ?? result.signal}):\n${result.output.slice(0, 4000)}`);
  return result.ms;
}

function clean(dir, variant) {
  rmSync(join(dir, "dist"), { recursive: true, force: true });
  // an --incremental build that finds its .tsbuildinfo would skip the files it lists as emitted
  rmSync(join(dir, "tsconfig.tsbuildinfo"), { force: true });
  if (variant === "fw") rmSync(join(dir, "src", ".fw"), { recursive: true, force: true });
}

export async function build({ sizes, coldRounds, incRounds }) {
  linkFw();
  const results = [];
  for (const size of sizes) {
    const dirs = Object.fromEntries(VARIANTS.map((v) => [v, join(WORK, "build", `app-${size}-${v}`)]));
    let routeFiles = 0;
    for (const v of VARIANTS) routeFiles = generateApp(dirs[v], size, v).routeFiles;

    const copyTable = () => {
      for (const v of ["typia", "tsc"]) {
        mkdirSync(join(dirs[v], "src", ".fw"), { recursive: true });
        // routes.ts and, beside it, api.ts (the API's types and description, which routes.ts loads: issue 31)
        for (const file of ["routes.ts", "api.ts"]) {
          if (existsSync(join(dirs.fw, "src", ".fw", file))) copyFileSync(join(dirs.fw, "src", ".fw", file), join(dirs[v], "src", ".fw", file));
        }
      }
    };
    const cold = Object.fromEntries(VARIANTS.map((v) => [v, []]));
    for (let round = 0; round < coldRounds; round++) {
      for (const v of VARIANTS) {
        clean(dirs[v], v);
        cold[v].push(await compile(dirs[v], v, ["--incremental"]));
        // fw wrote the table module: the other two compile it as a plain, hand-written file
        if (v === "fw" && round === 0) copyTable();
      }
      log(`  ${size} files, cold round ${round + 1}/${coldRounds}: ${VARIANTS.map((v) => `${v} ${(cold[v][round] / 1000).toFixed(1)}s`).join(", ")}`);
    }
    // the fw build made a working app: `routes` lists every route file's route
    const listed = await run(process.execPath, [join(dirs.fw, "dist", "main.js"), "routes"], { cwd: dirs.fw, timeoutMs: 60_000 });
    const rows = listed.output.split("\n").filter((line) => /^(GET|POST)\s/.test(line)).length;
    if (listed.code !== 0 || rows !== routeFiles) throw new Error(`the built app lists ${rows} routes, not ${routeFiles}:\n${listed.output.slice(0, 2000)}`);

    const inc = Object.fromEntries(VARIANTS.map((v) => [v, []]));
    for (let round = 0; round < incRounds; round++) {
      for (const v of VARIANTS) {
        const file = join(dirs[v], EDITED);
        writeFileSync(file, showFile(0, round + 1));
        inc[v].push(await compile(dirs[v], v, ["--incremental"]));
        if (!readFileSync(join(dirs[v], "dist", "app", "g0", "_id", "Show.js"), "utf8").includes(`(edit ${round + 1})`)) {
          throw new Error(`${v}: the incremental build did not emit the edited handler`);
        }
      }
      log(`  ${size} files, incremental round ${round + 1}/${incRounds}: ${VARIANTS.map((v) => `${v} ${(inc[v][round] / 1000).toFixed(1)}s`).join(", ")}`);
    }
    const stats = (values) => summary(values);
    results.push({
      size,
      routeFiles,
      cold: Object.fromEntries(VARIANTS.map((v) => [v, stats(cold[v])])),
      inc: Object.fromEntries(VARIANTS.map((v) => [v, stats(inc[v])])),
      // fw's own overhead over typia-only, round by round (the two ran seconds apart)
      coldOverhead: stats(cold.fw.map((ms, i) => ms / cold.typia[i] - 1)),
      incOverhead: stats(inc.fw.map((ms, i) => ms / inc.typia[i] - 1)),
    });
  }
  return results;
}
