// Time from `npm <script>` (start, dev) to the example's first page served: what a user waits
// for, build check and boot included. The dev part of `npm run bench` runs it after the build,
// so it measures a second start (nothing to rebuild); on its own:
//
//   node bench/first-page.mjs [start|dev] [runs=3]
//
// Each run picks a free port, runs the npm script in the repository (the example keeps its own
// database in example/.fw/db, as `npm start` does), asks GET / every 50 ms until it answers
// 200, then stops the script's whole process group (npm, sh, the app, fw dev's compiler).
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(import.meta.dirname, "..");

function freePort() {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

/** One run: ms from spawning `npm run <script>` to the first 200 of GET /. */
export async function firstPage(script, { timeoutMs = 300_000 } = {}) {
  const port = await freePort();
  const started = performance.now();
  const child = spawn("npm", ["run", "--silent", script], { cwd: ROOT, env: { ...process.env, PORT: String(port) }, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const exited = new Promise((done) => child.once("exit", done));
  let gone = false;
  void exited.then(() => (gone = true));
  try {
    while (performance.now() - started < timeoutMs) {
      if (gone) throw new Error(`npm run ${script} exited before serving:\n${output}`);
      const ok = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(5_000) }).then(
        (response) => response.status === 200,
        () => false,
      );
      if (ok) return { ms: performance.now() - started, output };
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`npm run ${script} did not serve within ${timeoutMs} ms:\n${output}`);
  } finally {
    if (!gone) process.kill(-child.pid, "SIGTERM");
    await exited;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const script = process.argv[2] ?? "start";
  const runs = Number(process.argv[3] ?? 3);
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const { ms, output } = await firstPage(script);
    samples.push(ms);
    const built = /build: building \S+/.exec(output)?.[0] ?? "nothing built";
    console.log(`npm run ${script} → first page: ${Math.round(ms)} ms (${built})`);
  }
  const sorted = [...samples].sort((a, b) => a - b);
  console.log(`median of ${runs}: ${Math.round(sorted[Math.floor(runs / 2)])} ms`);
}
