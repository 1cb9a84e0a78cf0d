// Build: generated apps of N route files, compiled three ways on the same sources:
//   fw    — tspc with fw's program transformer + typia (writes src/.fw/routes.ts itself)
//   typia — tspc with typia only; the table module (and the API module beside it) the ones fw generated, kept as plain files
//   tsc   — plain tsc on the typia variant's sources (it ignores the plugins)
//   fw-unchecked — (plans with `unchecked`) fw with its path and live topic checks off (the plugin
//           option verifyPaths: false), so the checks' own cost (issue 31) is fw ÷ fw-unchecked − 1
// Cold builds (dist, the .tsbuildinfo and, for fw, the generated module removed first; run with
// --incremental, so each writes the .tsbuildinfo the next step reads) in interleaved rounds, then
// incremental rebuilds after editing one handler's JSX text, starting from the last cold build.
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EDITED, generateApp, linkFw, showFile } from "./lib/app-gen.mjs";
import { log, ROOT, run, summary, WORK } from "./lib/util.mjs";

const TSPC = join(ROOT, "node_modules", "ts-patch", "bin", "tspc.js");
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
const CPU_TIME = join(ROOT, "bench", "lib", "cpu-time.cjs");
const BASE_VARIANTS = ["fw", "typia", "tsc"];

/** One compile: its wall time, and the CPU time of its process (`cpu`, ms: what the checks' overhead is read from too). */
async function compile(dir, variant, extra = [], cpu = []) {
  const bin = variant === "tsc" ? TSC : TSPC;
  const cpuFile = join(dir, "cpu-time.txt");
  rmSync(cpuFile, { force: true });
  const result = await run(process.execPath, ["--require", CPU_TIME, bin, "-p", dir, ...extra], { cwd: dir, timeoutMs: 300_000, env: { FW_BENCH_CPU_FILE: cpuFile } });
  if (result.code !== 0) throw new Error(`${variant} build of ${dir} failed (${result.code ?? result.signal}):\n${result.output.slice(0, 4000)}`);
  cpu.push(Number(readFileSync(cpuFile, "utf8")));
  return result.ms;
}

function clean(dir, variant) {
  rmSync(join(dir, "dist"), { recursive: true, force: true });
  // an --incremental build that finds its .tsbuildinfo would skip the files it lists as emitted
  rmSync(join(dir, "tsconfig.tsbuildinfo"), { force: true });
  if (variant.startsWith("fw")) rmSync(join(dir, "src", ".fw"), { recursive: true, force: true });
}

export async function build({ sizes, coldRounds, incRounds, unchecked = false }) {
  linkFw();
  const VARIANTS = unchecked ? ["fw", "fw-unchecked", ...BASE_VARIANTS.slice(1)] : BASE_VARIANTS;
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
    const coldCpu = Object.fromEntries(VARIANTS.map((v) => [v, []]));
    const incCpu = Object.fromEntries(VARIANTS.map((v) => [v, []]));
    for (let round = 0; round < coldRounds; round++) {
      for (const v of VARIANTS) {
        clean(dirs[v], v);
        cold[v].push(await compile(dirs[v], v, ["--incremental"], coldCpu[v]));
        // fw wrote the table module: the other two compile it as a plain, hand-written file
        if (v === "fw" && round === 0) copyTable();
      }
      log(`  ${size} files, cold round ${round + 1}/${coldRounds}: ${VARIANTS.map((v) => `${v} ${(cold[v][round] / 1000).toFixed(1)}s (CPU ${(coldCpu[v][round] / 1000).toFixed(1)}s)`).join(", ")}`);
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
        inc[v].push(await compile(dirs[v], v, ["--incremental"], incCpu[v]));
        if (!readFileSync(join(dirs[v], "dist", "app", "g0", "_id", "Show.js"), "utf8").includes(`(edit ${round + 1})`)) {
          throw new Error(`${v}: the incremental build did not emit the edited handler`);
        }
      }
      log(`  ${size} files, incremental round ${round + 1}/${incRounds}: ${VARIANTS.map((v) => `${v} ${(inc[v][round] / 1000).toFixed(1)}s (CPU ${(incCpu[v][round] / 1000).toFixed(1)}s)`).join(", ")}`);
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
      // the path and topic checks' own cost: fw ÷ fw without them, round by round
      ...(unchecked
        ? {
            coldChecks: stats(cold.fw.map((ms, i) => ms / cold["fw-unchecked"][i] - 1)),
            incChecks: stats(inc.fw.map((ms, i) => ms / inc["fw-unchecked"][i] - 1)),
            cpu: { cold: { fw: stats(coldCpu.fw), unchecked: stats(coldCpu["fw-unchecked"]) }, inc: { fw: stats(incCpu.fw), unchecked: stats(incCpu["fw-unchecked"]) } },
            coldChecksCpu: stats(coldCpu.fw.map((ms, i) => ms / coldCpu["fw-unchecked"][i] - 1)),
            incChecksCpu: stats(incCpu.fw.map((ms, i) => ms / incCpu["fw-unchecked"][i] - 1)),
          }
        : {}),
    });
  }
  return results;
}
