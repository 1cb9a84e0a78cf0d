// wrk (the C load generator, from Debian) driven from node: install, run pinned, parse.
import { writeFileSync } from "node:fs";
import { cpuSnapshot, ensureDebianTool, otherShare, pinned, run } from "./util.mjs";

/** Installs wrk with apt-get when it is missing (as root). Returns true when wrk is there. */
export function ensureWrk() {
  return ensureDebianTool("wrk", ["--version"], "wrk");
}

function toMs(value, unit) {
  const n = Number(value);
  return unit === "us" ? n / 1000 : unit === "ms" ? n : unit === "s" ? n * 1000 : unit === "m" ? n * 60_000 : NaN;
}

/**
 * One wrk run: `-t1 -cC -dDs --latency` against `url`, pinned to `core`. Resolves with requests
 * per second, the p50/p99 latency in ms, the count of non-2xx/3xx answers and socket errors.
 * Bounded: wrk stops itself after the duration, and is killed 30 s later if it did not.
 */
export async function wrk({ url, seconds, connections = 50, core, headers = [], script, serverPid }) {
  const args = ["-t1", `-c${connections}`, `-d${seconds}s`, "--latency", "--timeout", "5s"];
  for (const header of headers) args.push("-H", header);
  if (script !== undefined) args.push("-s", script);
  args.push(url);
  const { command, args: argv } = pinned(core, "wrk", args);
  const before = serverPid === undefined ? undefined : cpuSnapshot(serverPid);
  const result = await run(command, argv, { timeoutMs: seconds * 1000 + 30_000 });
  const after = serverPid === undefined ? undefined : cpuSnapshot(serverPid);
  const other = serverPid === undefined ? NaN : otherShare(before, after);
  const out = result.output;
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  if (result.code !== 0 || rps === null) throw new Error(`wrk failed (${result.code}): ${out}`);
  const lat = (pct) => {
    const m = new RegExp(`^\\s+${pct}%\\s+([\\d.]+)(us|ms|s|m)`, "m").exec(out);
    return m === null ? NaN : toMs(m[1], m[2]);
  };
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const total = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const socketErrors = /Socket errors: (.+)/.exec(out)?.[1];
  // The server's own CPU time per request (utime + stime, in 1/100 s ticks, over the requests wrk counted): time the
  // machine's host took from the server's core moves req/s, not this.
  const cpuUs = before === undefined || after === undefined || total === 0 ? NaN : ((after.server - before.server) * 10_000) / total;
  return { rps: Number(rps[1]), p50: lat(50), p99: lat(99), non2xx, total, socketErrors, other, cpuUs };
}

/**
 * Writes to `file` a wrk Lua script that sends `GET path` with each of `cookies` in turn, one per
 * request (the requests are formatted once, in init), and returns `file`.
 */
export function cookiesScript(cookies, path, file) {
  writeFileSync(
    file,
    `local cookies = {\n${cookies.map((c) => `  ${JSON.stringify(c)},`).join("\n")}\n}\n` +
      `local requests = {}\n` +
      `init = function(args)\n  for i, c in ipairs(cookies) do requests[i] = wrk.format("GET", "${path}", { ["Cookie"] = c }) end\nend\n` +
      `local n = 0\n` +
      `request = function()\n  n = n % #requests + 1\n  return requests[n]\nend\n`,
  );
  return file;
}
