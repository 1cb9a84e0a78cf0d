// Where a served process's event loop stalls: load with
//   NODE_OPTIONS=--import=$PWD/bench/hooks/loop-stalls.mjs npm run bench -- --only=live
// A 10 ms interval notes every turn later than 40 ms, and the inspector's sampling profiler runs
// (200 µs); at SIGTERM (the bench stopping the server) both go to bench/.work/loop-stalls-<pid>.json:
// `{ profile, stalls: [[fromUs, toUs]] }`, the stalls on the profile's clock, so the samples taken
// inside each stall say what held the loop (FINDINGS.md 26). Only the process started as
// `node <…example…/main.js>` with no arguments (the served example) is watched; others load nothing.
import { writeFileSync, mkdirSync } from "node:fs";
import { Session } from "node:inspector";
import { join } from "node:path";

const STALL_NS = 40_000_000n;
if (process.argv[1]?.includes("example") && process.argv.length === 2) {
  const session = new Session();
  session.connect();
  session.post("Profiler.enable", () => session.post("Profiler.setSamplingInterval", { interval: 200 }, () => session.post("Profiler.start")));
  const stalls = [];
  let last = process.hrtime.bigint();
  setInterval(() => {
    const now = process.hrtime.bigint();
    if (now - last > STALL_NS) stalls.push([Number(last / 1000n), Number(now / 1000n)]);
    last = now;
  }, 10).unref();
  process.on("SIGTERM", () =>
    session.post("Profiler.stop", (error, result) => {
      const out = join(import.meta.dirname, "..", ".work");
      mkdirSync(out, { recursive: true });
      if (error === null) writeFileSync(join(out, `loop-stalls-${process.pid}.json`), JSON.stringify({ profile: result.profile, stalls }));
      process.exit(0);
    }),
  );
}
