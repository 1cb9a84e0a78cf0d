// How long a new-password check holds the event loop (issue 39, item 21): the first check of a
// process (zxcvbn-ts's dictionaries are loaded and ranked then) and the ones after it. Run on the
// built runtime (`npm run build` first), in a fresh process: `node bench/password-check-stall.mjs`.
// A 1 ms interval notes the longest gap between its turns while each check runs (the loop's
// longest stall), beside the check's own time and the process's RSS before and after; three
// fresh processes, one line each. Timings are reported here, never asserted in a test.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROUNDS = 3;

if (process.argv[2] === "--child") {
  const { newPasswordProblem } = await import("../dist/runtime/auth/index.js");
  const rss = () => Math.round(process.memoryUsage().rss / 1e6);
  const stallDuring = async (work) => {
    let last = performance.now();
    let longest = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
    }, 1);
    const started = performance.now();
    await work();
    const took = performance.now() - started;
    clearInterval(timer);
    longest = Math.max(longest, performance.now() - last);
    return { took: Math.round(took), stall: Math.round(longest) };
  };
  // Let the loop settle before measuring.
  await new Promise((done) => setTimeout(done, 200));
  const before = rss();
  const first = await stallDuring(() => newPasswordProblem("plum orbit velvet 9271", "ada@example.com"));
  const second = await stallDuring(() => newPasswordProblem("granite lantern 4471 ferry", "bob@example.com"));
  const third = await stallDuring(() => newPasswordProblem("qwertyuiopasdf", "eve@example.com"));
  console.log(JSON.stringify({ first, second, third, rssBeforeMB: before, rssAfterMB: rss() }));
  process.exit(0);
}

const script = fileURLToPath(import.meta.url);
for (let round = 1; round <= ROUNDS; round++) {
  const ran = spawnSync(process.execPath, [script, "--child"], { encoding: "utf8" });
  if (ran.status !== 0) throw new Error(ran.stderr);
  const r = JSON.parse(ran.stdout.trim().split("\n").at(-1));
  console.log(
    `round ${round}: first check ${r.first.took} ms, loop stalled ${r.first.stall} ms; second ${r.second.took} ms / stalled ${r.second.stall} ms; ` +
      `third ${r.third.took} ms / stalled ${r.third.stall} ms; RSS ${r.rssBeforeMB} → ${r.rssAfterMB} MB`,
  );
}
