// Preloaded into a compiler process by bench/build.mjs (`node --require`): on exit it writes the
// process's own CPU time (user + system, ms) to FW_BENCH_CPU_FILE. On a shared machine wall time
// moves by tens of percent with the neighbours' load; a process's CPU time much less.
"use strict";
const file = process.env.FW_BENCH_CPU_FILE;
if (file !== undefined) {
  process.on("exit", () => {
    const { user, system } = process.cpuUsage();
    require("node:fs").writeFileSync(file, String((user + system) / 1000));
  });
}
