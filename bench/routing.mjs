// Routing: one child process per table size (pinned to core 1), see routing-worker.mjs.
import { join } from "node:path";
import { BENCH, log, pinned, run, summary } from "./lib/util.mjs";

export async function routing({ sizes, rounds, roundMs, seed = 20250601 }) {
  const results = [];
  for (const size of sizes) {
    const { command, args } = pinned(1, process.execPath, [join(BENCH, "routing-worker.mjs"), JSON.stringify({ size, rounds, roundMs, seed })]);
    const result = await run(command, args, { timeoutMs: 240_000 });
    if (result.code !== 0) throw new Error(`routing worker for ${size} routes failed (${result.code ?? result.signal}):\n${result.output}`);
    const data = JSON.parse(result.output.slice(result.output.indexOf("{")));
    data.summary = Object.fromEntries(Object.entries(data.ns).map(([name, values]) => [name, summary(values)]));
    log(
      `routing: ${size} routes: fw ${data.summary.fw.median.toFixed(0)} ns, lookup only ${data.summary.fwLookupOnly.median.toFixed(0)} ns, ` +
        `find-my-way ${data.summary.findMyWay.median.toFixed(0)} ns, naive ${data.summary.naive.median.toFixed(0)} ns; ` +
        `checked ${data.checks.checked + data.overlapChecks.checked}, mismatches ${data.checks.mismatches + data.overlapChecks.mismatches}`,
    );
    results.push(data);
  }
  return results;
}
