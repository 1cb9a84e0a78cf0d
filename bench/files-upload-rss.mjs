#!/usr/bin/env node
// Peak RSS growth of an fw server while it takes a large multipart upload (issue 40: "a 1 GB
// upload costs the process a small constant"). Needs dist/ (npm run build:fw).
//
//   node bench/files-upload-rss.mjs            1 GiB
//   node bench/files-upload-rss.mjs --mb=200   a smaller file
//
// The server runs in a child process (dist/runtime, one route taking one file field); this
// process streams the body to it from generated chunks (nothing of it is held here either) and
// samples the child's RSS from /proc every 20 ms. Prints the RSS before, the peak during, the
// growth, and MB/s (informational: the machine is shared).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const mb = Number(process.argv.find((a) => a.startsWith("--mb="))?.slice(5) ?? 1024);
const size = mb * 1024 * 1024;
const spool = mkdtempSync(join(tmpdir(), "fw-rss-spool-"));

const SERVER = `
import { HttpApp, Ok, Route, RouteTable } from ${JSON.stringify(join(ROOT, "dist/runtime/index.js"))};
const routes = RouteTable.of(Route.api({ method: "POST", path: "/upload", files: { file: { maxBytes: ${size + 1}, accept: ["application/octet-stream", "text/plain"] } },
  handler: (request) => Ok(JSON.stringify(request.files.all.map((f) => ({ size: f.size, checksum: f.checksum })).concat(request.files.problems))) }));
const app = new HttpApp({ routes, secret: "x".repeat(40), allowedHosts: ["*"], accessLog: false, uploads: { spoolDir: ${JSON.stringify(spool)}, maxRequestBytes: ${size + 1} }, requestTimeoutMs: 3_600_000 });
const running = await app.serve({ port: 0, host: "127.0.0.1", dev: false });
console.log("READY " + running.port);
`;

const rssOf = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;

const child = spawn(process.execPath, ["--input-type=module", "-e", SERVER], { env: { ...process.env, NODE_ENV: "production" }, stdio: ["ignore", "pipe", "inherit"] });
const port = await new Promise((resolve) => child.stdout.on("data", (chunk) => /READY (\d+)/.test(String(chunk)) && resolve(Number(/READY (\d+)/.exec(String(chunk))[1]))));
// One small upload first: the parser and file-type load on the first multipart request, a cost
// paid once per process, not per upload.
await fetch(`http://127.0.0.1:${port}/upload`, { method: "POST", body: (() => { const f = new FormData(); f.set("file", new Blob(["warm-up"]), "w.txt"); return f; })() }).then((r) => r.text());
await new Promise((resolve) => setTimeout(resolve, 500));
const before = rssOf(child.pid);
let peak = before;
const sampler = setInterval(() => (peak = Math.max(peak, rssOf(child.pid))), 20);

const boundary = "----fwRssBoundary";
const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
const chunk = process.argv.includes("--binary") ? Buffer.alloc(256 * 1024, 0) : Buffer.alloc(256 * 1024, "fw-rss ");
const started = performance.now();
const answer = await new Promise((resolve, reject) => {
  const req = request({ host: "127.0.0.1", port, method: "POST", path: "/upload", headers: { "content-type": `multipart/form-data; boundary=${boundary}`, "content-length": head.length + size + tail.length } }, (res) => {
    let text = "";
    res.on("data", (c) => (text += c));
    res.on("end", () => resolve(`${res.statusCode} ${text}`));
  });
  req.on("error", reject);
  req.write(head);
  let sent = 0;
  const pump = () => {
    while (sent < size) {
      const piece = size - sent >= chunk.length ? chunk : chunk.subarray(0, size - sent);
      sent += piece.length;
      if (!req.write(piece)) return void req.once("drain", pump);
    }
    req.end(tail);
  };
  pump();
});
const seconds = (performance.now() - started) / 1000;
clearInterval(sampler);
child.kill("SIGTERM");
rmSync(spool, { recursive: true, force: true });
const MiB = (n) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
console.log(`upload of ${mb} MiB: ${answer.slice(0, 120)}`);
console.log(`RSS before ${MiB(before)}, peak during ${MiB(peak)}, growth ${MiB(peak - before)}; ${(mb / seconds).toFixed(0)} MiB/s (${seconds.toFixed(1)} s)`);
