// Small helpers shared by every part of the bench: statistics, child processes, machine facts.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { cpus } from "node:os";
import { createServer } from "node:net";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const BENCH = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const ROOT = resolve(BENCH, "..");
export const WORK = resolve(BENCH, ".work");

// ---------- statistics ----------

export function sorted(values) {
  return [...values].sort((a, b) => a - b);
}

/** Linear-interpolated quantile of already sorted values. */
function quantile(s, q) {
  if (s.length === 0) return NaN;
  const at = (s.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return s[lo] + (s[hi] - s[lo]) * (at - lo);
}

/** median, min, max, q1, q3 and the count of a list of numbers. */
export function summary(values) {
  const s = sorted(values);
  return { n: s.length, median: quantile(s, 0.5), min: s[0], max: s[s.length - 1], q1: quantile(s, 0.25), q3: quantile(s, 0.75) };
}

/**
 * A row's runs against a baseline's, paired round by round: req/s ratios and CPU-time ratios
 * (less CPU per request is faster). A round in which either side served nothing (wrk counted no
 * request: the machine's other load took the core for the whole round) measured nothing, so it is
 * left out rather than turned into 0, Infinity or NaN; `dropped` counts those. Without any round
 * left, the ratios are undefined (not measured).
 */
export function pairedRatios(runs, baseRuns) {
  const kept = runs.map((run, i) => [run, baseRuns[i]]).filter(([run, base]) => base !== undefined && run.rps > 0 && base.rps > 0);
  const dropped = runs.length - kept.length;
  if (kept.length === 0) return { roundRatios: undefined, cpuRoundRatios: undefined, dropped };
  const cpu = kept.filter(([run, base]) => run.cpuUs > 0 && base.cpuUs > 0);
  return {
    roundRatios: summary(kept.map(([run, base]) => run.rps / base.rps)),
    cpuRoundRatios: cpu.length === 0 ? undefined : summary(cpu.map(([run, base]) => base.cpuUs / run.cpuUs)),
    dropped,
  };
}

// ---------- formatting ----------

export function fmtInt(n) {
  if (!Number.isFinite(n)) return "–";
  return Math.round(n).toLocaleString("en-US");
}

export function fmtNum(n, digits = 2) {
  if (!Number.isFinite(n)) return "–";
  return n.toFixed(digits);
}

/** "12,345 (12,001–12,700)" */
export function fmtSpread(s, fmt = fmtInt) {
  return `${fmt(s.median)} (${fmt(s.min)}–${fmt(s.max)})`;
}

export function fmtMs(ms) {
  if (!Number.isFinite(ms)) return "–";
  return ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`;
}

export function fmtMB(bytes) {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

// ---------- processes ----------

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let tasksetChecked;
/** Whether `taskset` exists and the machine has at least two cores to split. */
export function canPin() {
  if (tasksetChecked === undefined) {
    tasksetChecked = cpus().length >= 2 && spawnSync("taskset", ["-c", "0", "true"]).status === 0;
  }
  return tasksetChecked;
}

/** argv prefixed with `taskset -c <core>` when pinning is possible. */
export function pinned(core, command, args) {
  return canPin() && core !== undefined ? { command: "taskset", args: ["-c", String(core), command, ...args] } : { command, args };
}

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

/**
 * Starts a server process (optionally pinned to a core) and resolves once a line of its stdout
 * matches `ready`. Fails after `timeoutMs`. The returned object stops it by its own pid.
 */
export function startServer({ name, script, args = [], env = {}, core, ready = /listening|serving/, timeoutMs = 15_000, nodeArgs = [], launcher = [], cwd = ROOT }) {
  // `launcher` runs node under another program (valgrind, for bench/instructions.mjs).
  const [program, ...before] = [...launcher, process.execPath];
  const { command, args: argv } = pinned(core, program, [...before, ...nodeArgs, script, ...args]);
  const child = spawn(command, argv, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk) => {
    output += chunk;
    if (output.length > 20_000) output = output.slice(-10_000);
  };
  child.stderr.on("data", collect);
  return new Promise((done, fail) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      fail(new Error(`${name} did not start within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = (chunk) => {
      collect(chunk);
      if (ready.test(output)) {
        clearTimeout(timer);
        // keep draining stdout (access logs would otherwise fill the pipe and block the server)
        child.stdout.off("data", onData).on("data", collect);
        done({
          name,
          pid: child.pid,
          child,
          output: () => output,
          stop: (graceMs) => stopChild(child, graceMs),
        });
      }
    };
    child.stdout.on("data", onData);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      fail(new Error(`${name} exited (${code ?? signal}) before it was ready:\n${output}`));
    });
  });
}

/** SIGTERM, then SIGKILL after `graceMs` (3 s); resolves when the child is gone. */
export function stopChild(child, graceMs = 3000) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(timer);
      done();
    });
    child.kill("SIGTERM");
  });
}

/**
 * The pid whose RSS to read: under taskset the child *is* the server (taskset execs), so the
 * child's pid is right either way.
 */
export function rssOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  if (!match) throw new Error(`no VmRSS for ${pid}`);
  return Number(match[1]) * 1024;
}

/** Installs a Debian package with apt-get when `command` is missing (as root). Returns true when it is there. */
export function ensureDebianTool(command, versionArgs, pkg) {
  if (spawnSync(command, versionArgs).error === undefined) return true;
  log(`${command} is missing: apt-get update && apt-get install -y ${pkg}`);
  const update = spawnSync("apt-get", ["update"], { stdio: "inherit", timeout: 300_000 });
  const install = spawnSync("apt-get", ["install", "-y", pkg], { stdio: "inherit", timeout: 300_000 });
  if (update.status !== 0 || install.status !== 0) return false;
  return spawnSync(command, versionArgs).error === undefined;
}

/** Runs a command to completion; resolves with code, output and wall time in ms. Bounded in time. */
export function run(command, args, { cwd = ROOT, env = {}, timeoutMs = 300_000 } = {}) {
  return new Promise((done) => {
    const started = performance.now();
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (c) => (output += c));
    child.stderr.on("data", (c) => (output += c));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, output, ms: performance.now() - started });
    });
  });
}

// ---------- machine ----------

export function machine() {
  let model = cpus()[0]?.model ?? "unknown";
  try {
    const info = readFileSync("/proc/cpuinfo", "utf8");
    const m = /model name\s*:\s*(.+)/.exec(info);
    if (m) model = m[1].trim();
  } catch {}
  let mem = "";
  try {
    const m = /MemTotal:\s+(\d+) kB/.exec(readFileSync("/proc/meminfo", "utf8"));
    if (m) mem = `${Math.round(Number(m[1]) / 1024 / 1024)} GiB`;
  } catch {}
  const wrk = spawnSync("wrk", ["--version"], { encoding: "utf8" });
  const wrkVersion = /wrk\s+(\S+)/.exec(`${wrk.stdout}${wrk.stderr}`)?.[1] ?? "not installed";
  const kernel = spawnSync("uname", ["-r"], { encoding: "utf8" }).stdout.trim();
  return { model, cores: cpus().length, mem, node: process.version, wrk: wrkVersion, kernel, pinned: canPin() };
}

/** Load average and the busiest other processes: a hint that the machine was shared. */
export function loadSnapshot() {
  let load = "";
  try {
    load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  } catch {}
  return load;
}

export function packageVersion(dir, name) {
  for (const base of [resolve(BENCH, "node_modules"), resolve(ROOT, "node_modules")]) {
    const file = resolve(base, name, "package.json");
    if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8")).version;
  }
  return "?";
}

export function log(...parts) {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${parts.join(" ")}\n`);
}

/** Share of all cores busy over `ms` (from /proc/stat): how much else runs on the machine. */
export async function busyShare(ms) {
  const read = () => {
    const line = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
    const idle = line[3] + (line[4] ?? 0);
    const total = line.reduce((a, b) => a + b, 0);
    return { idle, total };
  };
  try {
    const a = read();
    await sleep(ms);
    const b = read();
    const total = b.total - a.total;
    return total > 0 ? 1 - (b.idle - a.idle) / total : NaN;
  } catch {
    return NaN;
  }
}

function procTicks(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  // utime, stime, cutime, cstime (fields 14–17 of proc(5), counted after the comm field)
  return { own: Number(fields[11]) + Number(fields[12]), children: Number(fields[13]) + Number(fields[14]) };
}

/**
 * CPU counters to tell how much of the machine *other* processes used while a load ran:
 * machine busy time minus the server's, the bench's own and its reaped children's (wrk).
 */
export function cpuSnapshot(serverPid) {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
    const self = procTicks(process.pid);
    // irq and softirq time (loopback TCP is processed there) belongs to no process: counted as ours, not as others'
    return {
      total: line.reduce((a, b) => a + b, 0),
      idle: line[3] + (line[4] ?? 0) + (line[5] ?? 0) + (line[6] ?? 0),
      server: procTicks(serverPid).own,
      self: self.own,
      children: self.children,
    };
  } catch {
    return undefined;
  }
}

/** Share of the whole machine (all cores) that other processes used between two snapshots. */
export function otherShare(a, b) {
  if (a === undefined || b === undefined) return NaN;
  const total = b.total - a.total;
  const busy = total - (b.idle - a.idle);
  const ours = b.server - a.server + (b.self - a.self) + (b.children - a.children);
  return total > 0 ? Math.max(0, busy - ours) / total : NaN;
}
