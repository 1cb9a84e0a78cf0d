// Files (issue 40): fw against Fastify + @fastify/multipart and @fastify/static, same files, same
// run. Servers pinned to core 0, the load (wrk, the upload client) to core 1, as the throughput part.
//   - uploads: a 100 MiB PDF POSTed as multipart/form-data (bench/files-client.mjs, pinned, a
//     child process), fw's `files` route (spooled, checked, put into DiskStorage by a rename)
//     against @fastify/multipart piping it to a file on the same disk; MiB/s over whole uploads,
//     one at a time (the target) and 4 in flight, interleaved rounds paired round by round;
//   - serving: wrk on `GET /file`, a stored 5 MiB file through `serveStored` against @fastify/static,
//     keep-alive; the preflight checks both send the file's very bytes and their headers;
//   - the peak RSS growth of a fresh server process during one 1 GiB upload (fw, the target; Fastify
//     and a bare node:http piping the body to a file beside it);
//   - a thumbnail's time (bench/thumbnail.mjs, fw/files' images module).
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { PDF_HEAD } from "./files-client.mjs";
import { measureGroups } from "./lib/rounds.mjs";
import { cpuSnapshot, freePort, log, otherShare, pinned, rssOf, run, sleep, startServer, WORK } from "./lib/util.mjs";
import { fileChecksum } from "./servers/files-common.mjs";

const SERVER_CORE = 0;
const LOAD_CORE = 1;
const MiB = 1024 * 1024;
/** The upload measured (100 MiB), the file served (5 MiB), the upload whose RSS is read (1 GiB). */
export const UPLOAD_BYTES = 100 * MiB;
export const SERVED_BYTES = 5 * MiB;
export const RSS_UPLOAD_BYTES = 1024 * MiB;
/** Every side's per-file limit: over the 1 GiB upload and its framing. */
const MAX_BYTES = 1100 * MiB;

const FILES = join(WORK, "files");
const RUN = join(FILES, "run");
export const UPLOAD_FILE = join(FILES, "upload.pdf");
const SERVED_FILE = join(FILES, "served", "served.pdf");

/** A file of `size` bytes that reads as a PDF (its head) and is otherwise random: made once, kept under bench/.work. */
function inputFile(path, size) {
  if (existsSync(path) && statSync(path).size === size) return;
  mkdirSync(join(path, ".."), { recursive: true });
  const bytes = randomBytes(size);
  PDF_HEAD.copy(bytes);
  writeFileSync(path, bytes);
}

function check(condition, message) {
  if (!condition) throw new Error(`files preflight: ${message}`);
}

const SIDES = {
  fw: { script: "files-fw.mjs", label: "fw", stored: (key) => join(RUN, "fw-store", key.slice(0, 2), key) },
  fastify: { script: "files-fastify.mjs", label: "Fastify", stored: (key) => join(RUN, "fastify-store", key) },
  fastifySha: { script: "files-fastify.mjs", env: { FASTIFY_SHA256: "1" }, label: "Fastify + SHA-256", stored: (key) => join(RUN, "fastify-store", key) },
  raw: { script: "files-raw.mjs", label: "raw node:http", stored: (key) => join(RUN, "raw-store", key) },
};

/** A side's server script and its environment (bench/profile.mjs's upload and file scenarios start them too). */
export function filesServer(side) {
  return { script: join("bench", "servers", SIDES[side].script), env: { ...SIDES[side].env, FILES_DIR: RUN, FILES_SERVE: SERVED_FILE, FILES_MAX_BYTES: String(MAX_BYTES) } };
}

async function start(side, name) {
  const port = await freePort();
  const { script, env } = filesServer(side);
  const server = await startServer({ name, script, env: { ...env, PORT: String(port) }, core: SERVER_CORE });
  return { ...server, side, port, url: `http://127.0.0.1:${port}` };
}

/** Runs the upload client pinned to the load core; resolves with its JSON line. */
async function client(url, args) {
  const { command, args: argv } = pinned(LOAD_CORE, process.execPath, [join("bench", "files-client.mjs"), url, ...args]);
  const result = await run(command, argv, { timeoutMs: 600_000 });
  if (result.code !== 0) throw new Error(`files-client.mjs ${url} ${args.join(" ")} failed (${result.code ?? result.signal}):\n${result.output}`);
  return JSON.parse(result.output.trim().split("\n").pop());
}

/**
 * Empties the folders the uploads are stored in (fw's served file is in a folder of its own), skipping
 * a file written to in the last second (a Fastify upload under way writes its file in place).
 */
export function sweepStores() {
  const now = Date.now();
  const sweep = (folder) => {
    for (const entry of existsSync(folder) ? readdirSync(folder, { withFileTypes: true }) : []) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) sweep(path);
      else if (now - statSync(path, { throwIfNoEntry: false })?.mtimeMs > 1000) rmSync(path, { force: true });
    }
  };
  for (const store of ["fw-store", "fastify-store", "raw-store"]) sweep(join(RUN, store));
}

/** Removes what a run's uploads stored (after it, untimed: no run is slowed by a filling disk, nor by its writeback). */
function removeStored(side, keys) {
  for (const key of keys) rmSync(SIDES[side].stored(key), { force: true });
}

/** A row's load: `count` uploads of the 100 MiB file, `concurrency` in flight; per second is MiB/s, CPU time per upload. */
function uploadLoad(server, count, concurrency) {
  return async ({ warmup, serverPid }) => {
    const before = serverPid === undefined ? undefined : cpuSnapshot(serverPid);
    const done = await client(`${server.url}/upload`, [`--file=${UPLOAD_FILE}`, `--count=${warmup ? Math.min(count, concurrency) : count}`, `--concurrency=${concurrency}`]);
    const after = serverPid === undefined ? undefined : cpuSnapshot(serverPid);
    removeStored(server.side, done.keys);
    const mibPerSecond = done.bytes / MiB / (done.ms / 1000);
    const cpuUs = before === undefined || after === undefined ? NaN : ((after.server - before.server) * 10_000) / done.uploads;
    return { rps: mibPerSecond, p99: NaN, non2xx: 0, total: done.uploads, other: otherShare(before, after), cpuUs, msPerUpload: done.ms / done.uploads };
  };
}

/**
 * One GET (or HEAD) with node:http: fetch would add `Cache-Control: no-cache` to a conditional
 * request (the Fetch standard's "no-store" mode), which @fastify/send honours with a 200.
 */
function get(url, { method = "GET", headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

const sha = (bytes) => createHash("sha256").update(bytes).digest("hex");

/** Each side takes the 100 MiB upload whole (201, its key, the very bytes stored) and serves the 5 MiB file byte for byte with its headers. */
async function preflight(servers, servedSha) {
  const uploadSha = await fileChecksum(UPLOAD_FILE);
  for (const server of servers) {
    const done = await client(`${server.url}/upload`, [`--file=${UPLOAD_FILE}`, "--count=1"]);
    const stored = SIDES[server.side].stored(done.keys[0]);
    check(existsSync(stored), `${server.side} answered 201 with key ${done.keys[0]}, and nothing is stored at ${stored}`);
    check(statSync(stored).size === UPLOAD_BYTES && (await fileChecksum(stored)) === uploadSha, `${server.side} stored other bytes than the upload's at ${stored}`);
    removeStored(server.side, done.keys);
  }
  check(readdirSync(join(RUN, "fw-spool")).length === 0, `fw left ${readdirSync(join(RUN, "fw-spool")).join(", ")} in its spool folder`);
  const answers = {};
  for (const server of servers) {
    const res = await get(`${server.url}/file`);
    check(res.status === 200, `${server.side} GET /file answered ${res.status}`);
    check(res.body.length === SERVED_BYTES && sha(res.body) === servedSha, `${server.side} GET /file sent other bytes than the file's (${res.body.length} B)`);
    check(res.headers["content-length"] === String(SERVED_BYTES), `${server.side} GET /file sent content-length ${res.headers["content-length"]}`);
    check(res.headers["content-type"] === "application/pdf", `${server.side} GET /file sent content-type ${res.headers["content-type"]}`);
    check(res.headers["accept-ranges"] === "bytes" && res.headers.etag !== undefined, `${server.side} GET /file sent no ETag or no Accept-Ranges`);
    const again = await get(`${server.url}/file`, { headers: { "if-none-match": res.headers.etag } });
    check(again.status === 304 && again.body.length === 0, `${server.side} GET /file with If-None-Match: ${res.headers.etag} answered ${again.status}, not 304`);
    const part = await get(`${server.url}/file`, { headers: { range: "bytes=1000-1999" } });
    check(part.status === 206 && part.body.equals(readFileSync(SERVED_FILE).subarray(1000, 2000)), `${server.side} GET /file with Range: bytes=1000-1999 answered ${part.status} with other bytes`);
    answers[server.side] = Object.keys(res.headers).filter((h) => h !== "date" && h !== "connection" && h !== "keep-alive");
  }
  // fw's own serving rules, on top of what both send (docs/guides/files.md, "Serving").
  const fw = (await get(`${servers.find((s) => s.side === "fw").url}/file`, { method: "HEAD" })).headers;
  check(fw["x-content-type-options"] === "nosniff", "fw GET /file sent no X-Content-Type-Options: nosniff");
  check(fw["content-disposition"]?.startsWith("attachment;") === true, `fw GET /file sent Content-Disposition ${fw["content-disposition"]}, not an attachment`);
  check(fw["content-security-policy"]?.startsWith("sandbox") === true, "fw GET /file sent no sandboxing CSP");
  check(fw.etag === `"${servedSha}"`, `fw GET /file's ETag is ${fw.etag}, not the file's checksum`);
  return { uploadBytes: UPLOAD_BYTES, servedBytes: SERVED_BYTES, servedSha: servedSha.slice(0, 12), headers: answers };
}

/** VmHWM (the peak RSS) of a process, reset to its current RSS first by writing 5 to clear_refs (proc(5)), where allowed. */
function resetPeak(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

function peakOf(pid) {
  return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN) * 1024;
}

/**
 * The peak RSS growth of a fresh server of `side` while it takes one upload of `bytes` (generated by
 * the client as it sends: nothing of it is on disk before): its RSS after one small upload (the parser
 * and file-type load on the first multipart request) and a rest, then its peak during the upload: the
 * kernel's own high-water mark, reset before (sampling every 10 ms beside it, where it cannot be reset).
 */
export async function rssDuringUpload(side, bytes = RSS_UPLOAD_BYTES) {
  const server = await start(side, `${SIDES[side].label} (${(bytes / MiB).toFixed(0)} MiB upload)`);
  try {
    removeStored(side, (await client(`${server.url}/upload`, [`--generated=${64 * 1024}`])).keys);
    await sleep(500);
    const before = rssOf(server.pid);
    const kernelPeak = resetPeak(server.pid);
    let sampled = before;
    const sampler = setInterval(() => {
      try {
        sampled = Math.max(sampled, rssOf(server.pid));
      } catch {}
    }, 10);
    const done = await client(`${server.url}/upload`, [`--generated=${bytes}`]).finally(() => clearInterval(sampler));
    const peak = kernelPeak ? Math.max(peakOf(server.pid), sampled) : sampled;
    removeStored(side, done.keys);
    const result = { side, label: SIDES[side].label, bytes, before, peak, growth: peak - before, kernelPeak, mibPerSecond: done.bytes / MiB / (done.ms / 1000) };
    log(`files: ${(bytes / MiB).toFixed(0)} MiB upload, ${result.label}: RSS ${(before / MiB).toFixed(1)} → ${(peak / MiB).toFixed(1)} MiB, growth ${(result.growth / MiB).toFixed(1)} MiB (${result.mibPerSecond.toFixed(0)} MiB/s)`);
    return result;
  } finally {
    await server.stop();
  }
}

/** The files every side reads (made once, kept under bench/.work/files) and an empty folder for what they store. */
export function prepareFiles() {
  inputFile(UPLOAD_FILE, UPLOAD_BYTES);
  inputFile(SERVED_FILE, SERVED_BYTES);
  rmSync(RUN, { recursive: true, force: true });
  mkdirSync(RUN, { recursive: true });
}

/** bench/thumbnail.mjs in a child process (sharp's threads use both cores, as in a server). */
async function thumbnail(runs) {
  const result = await run(process.execPath, [join("bench", "thumbnail.mjs"), "--json", `--runs=${runs}`], { timeoutMs: 180_000 });
  if (result.code !== 0) throw new Error(`bench/thumbnail.mjs failed (${result.code ?? result.signal}):\n${result.output}`);
  return JSON.parse(result.output.trim().split("\n").pop());
}

export async function files({ serveSeconds, serveRounds, connections, warmup, uploadRounds, uploadsPerRun, concurrentRounds, concurrentUploads, thumbnailRuns }) {
  prepareFiles();
  const servedSha = await fileChecksum(SERVED_FILE);
  const servers = {};
  let results;
  try {
    servers.fastify = await start("fastify", "Fastify (files)");
    servers.fastifySha = await start("fastifySha", "Fastify + SHA-256 (files)");
    servers.fw = await start("fw", "fw (files)");
    const facts = await preflight([servers.fastify, servers.fastifySha, servers.fw], servedSha);
    const serve = {
      id: "serve",
      title: `Serving a stored ${SERVED_BYTES / MiB} MiB file (\`GET /file\`, keep-alive)`,
      baseline: "fastify",
      rows: [
        { id: "fastify", label: "Fastify + @fastify/static (`reply.sendFile`)", url: `${servers.fastify.url}/file`, server: servers.fastify },
        { id: "fw", label: "fw, `serveStored` from `DiskStorage` in a `Route.api` handler", url: `${servers.fw.url}/file`, server: servers.fw },
      ],
    };
    await measureGroups([serve], { seconds: serveSeconds, rounds: serveRounds, warmup, connections, core: LOAD_CORE, what: "files" });
    const uploadGroup = (id, count, concurrency, rounds) => ({
      id,
      title: `Upload of a ${UPLOAD_BYTES / MiB} MiB file, ${concurrency === 1 ? "one at a time" : `${concurrency} in flight`} (${count} uploads a round)`,
      baseline: "fastify",
      rounds,
      concurrency,
      rows: [
        { id: "fastify", label: "Fastify + @fastify/multipart, the file piped to disk", server: servers.fastify, load: uploadLoad(servers.fastify, count, concurrency) },
        // fw's work on the Fastify side: a SHA-256 of the bytes on their way (what a checksum column costs), not the target's
        // peer; one at a time only (the part's time budget).
        ...(concurrency === 1
          ? [{ id: "fastifySha", label: "Fastify + @fastify/multipart, piped to disk through a SHA-256 `Transform` (fw's work)", server: servers.fastifySha, load: uploadLoad(servers.fastifySha, count, concurrency) }]
          : []),
        { id: "fw", label: "fw, a `files` route: spooled (SHA-256, type from the bytes), `DiskStorage.put` by a rename", server: servers.fw, load: uploadLoad(servers.fw, count, concurrency) },
      ],
    });
    const uploads = [uploadGroup("upload", uploadsPerRun, 1, uploadRounds), uploadGroup("upload4", concurrentUploads, 4, concurrentRounds)];
    await measureGroups(uploads, { rounds: uploadRounds, warmup: 1, core: LOAD_CORE, what: "files" });
    results = { facts, groups: [serve, ...uploads] };
  } finally {
    await Promise.all(Object.values(servers).map((s) => s.stop()));
  }
  results.rss = [];
  for (const side of ["fw", "fastify", "raw"]) results.rss.push(await rssDuringUpload(side));
  log(`files: a thumbnail, ${thumbnailRuns} runs`);
  results.thumbnail = await thumbnail(thumbnailRuns);
  log(`files: thumb ${results.thumbnail.thumb.median.toFixed(0)} ms, large ${results.thumbnail.large.median.toFixed(0)} ms`);
  rmSync(RUN, { recursive: true, force: true });
  return results;
}

// ---------- the report's section ----------

const ratioText = (x) => (Number.isFinite(x) ? `${x.toFixed(2)}×` : "–");
const spread = (s, digits = 0) => `${s.median.toFixed(digits)} (${s.min.toFixed(digits)}–${s.max.toFixed(digits)})`;
const markdownTable = (head, rows) => [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");

/** A measured group's rows: the figure per second, its ratio to the baseline paired round by round, CPU per unit of work. */
function groupTable(group, unit, cpuUnit, cpuScale, cpuDigits) {
  return markdownTable(
    ["server", `${unit} median (min–max)`, "ratio to Fastify (median of rounds)", "per-round ratio", `server CPU ${cpuUnit}`, "ratio by CPU time", "others"],
    group.rows.map((row) => [
      row.label,
      spread(row.rps),
      ratioText(row.ratio),
      row.roundRatios === undefined ? "–" : `${row.roundRatios.min.toFixed(2)}–${row.roundRatios.max.toFixed(2)}`,
      Number.isFinite(row.cpu.median) ? (row.cpu.median / cpuScale).toFixed(cpuDigits) : "–",
      row.cpuRoundRatios === undefined ? "–" : `${ratioText(row.cpuRoundRatios.median)} (${row.cpuRoundRatios.min.toFixed(2)}–${row.cpuRoundRatios.max.toFixed(2)})`,
      `${Math.round(row.other.median * 100)} %`,
    ]),
  );
}

export function filesSection(f, opts) {
  const MiBtext = (bytes) => `${(bytes / MiB).toFixed(1)} MiB`;
  const out = [];
  const [serve, ...uploads] = f.groups;
  out.push(
    "fw's side is `bench/servers/files-fw.mjs`: `Route.api` routes written by hand as an app writes them (the transformer does not write `files` yet), " +
      "`POST /upload` declaring one file field (`files: { file: { maxBytes, accept: [\"application/pdf\"] } }`: fw reads the multipart body with " +
      "@fastify/busboy, spools the file to disk as it arrives with its SHA-256 and size, reads its type from its bytes), whose handler puts it into " +
      "`DiskStorage` under a random key (a rename: spool and storage folder on one disk) and answers 201 with the key; `GET /file` answers a stored " +
      "file through `serveStored` (ETag, Range, nosniff, a sandbox CSP, a PDF as an attachment). The peer is `bench/servers/files-fastify.mjs`: " +
      "@fastify/multipart's `request.file()` piped to a new file on the same disk (the same parser underneath), and @fastify/static's `reply.sendFile`. " +
      "Servers pinned to core 0, the load to core 1, interleaved rounds, ratios paired round by round. The files are random bytes behind a PDF header " +
      `(${MiBtext(f.facts.uploadBytes)} uploaded, ${MiBtext(f.facts.servedBytes)} served, made once under bench/.work/files). The preflight uploaded the file to each side ` +
      "and found its very bytes stored under the key answered (and fw's spool folder empty), and had each side serve the file byte for byte " +
      `(sha256 ${f.facts.servedSha}…), answer \`If-None-Match\` with 304 and \`Range\` with the right 206; headers sent: fw ${f.facts.headers.fw.join(", ")}; ` +
      `@fastify/static ${f.facts.headers.fastify.join(", ")}.`,
  );
  out.push(`\n### ${serve.title}\n`);
  out.push(`wrk -t1 -c${opts.connections} -d${opts.serveSeconds}s, ${opts.serveRounds} rounds after a ${opts.warmup} s warm-up each.\n`);
  out.push(groupTable(serve, "req/s", "µs per request", 1, 0));
  for (const group of uploads) {
    out.push(`\n### ${group.title}\n`);
    out.push(
      `\`bench/files-client.mjs\` (node:http, the file streamed from disk, keep-alive) POSTs it ${group.concurrency === 1 ? "one upload after another" : `with ${group.concurrency} uploads in flight`}; ` +
        `MiB/s over the run's wall time, ${group.rows[0].runs.length} rounds after one untimed upload each; what a run stored is removed after it (untimed).` +
        (group.concurrency === 1 ? " The target reads this table (fw against Fastify streaming to disk)." : "") +
        "\n",
    );
    out.push(groupTable(group, "MiB/s", "ms per upload", 1000, 0));
  }
  out.push(
    "\nThe Fastify + SHA-256 row is not the target's peer: it is Fastify doing the work fw's spool does on the way to the disk (a SHA-256 of every byte, " +
      "for the checksum column, the ETag and the storage's integrity check), to tell that work's cost from the rest.",
  );
  out.push(`\n### Peak RSS growth during one ${RSS_UPLOAD_BYTES / 1024 / MiB} GiB upload\n`);
  out.push(
    "A fresh server process each (pinned to core 0); one small upload first (the parser and file-type load on the first multipart request), " +
      "half a second's rest, its RSS, then the kernel's high-water mark of its RSS (VmHWM, reset before through clear_refs) over one upload the client " +
      "generates as it sends it (nothing of it on disk before). The bare node:http server pipes the whole body to a file (no multipart parsing, no checks).\n",
  );
  out.push(
    markdownTable(
      ["server", "RSS before", "peak during", "growth", "MiB/s (informational)"],
      f.rss.map((x) => [x.label, MiBtext(x.before), MiBtext(x.peak), `**${MiBtext(x.growth)}**`, x.mibPerSecond.toFixed(0)]),
    ),
  );
  const t = f.thumbnail;
  out.push(`\n### A thumbnail\n`);
  out.push(
    `\`bench/thumbnail.mjs\` (fw/files' images module, sharp ${opts.sharp ?? ""}): a ${t.source.width} × ${t.source.height} JPEG (${MiBtext(t.source.bytes)}), normalised once as at upload ` +
      `(upright, no metadata) in ${t.normaliseMs.toFixed(0)} ms, then each variant from path to path, the median of ${t.thumb.n} runs after an untimed one: ` +
      `**thumb** (fit inside 200 × 200, WebP) ${spread(t.thumb)} ms, large (1200 × 1200) ${spread(t.large)} ms; peak RSS growth meanwhile ${MiBtext(t.peakRssGrowthBytes)}. Not pinned (libvips uses both cores, as in a server).`,
  );
  return out.join("\n");
}
