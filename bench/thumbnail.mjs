#!/usr/bin/env node
// A thumbnail's time (issue 40): fw/files' makeVariant making the default `thumb` (fit inside
// 200 × 200, WebP) and `large` (1200 × 1200) variants of a 4000 × 3000 JPEG generated here, from
// path to path as an upload's job does, after one untimed run; the median of a few runs, printed,
// never asserted. Also the one-off normalisation at upload, and the process's peak RSS growth.
//
//   npm run build:fw && node bench/thumbnail.mjs [--runs=7] [--json]
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import sharp from "sharp";
import { fmtMB, fmtMs, ROOT, summary } from "./lib/util.mjs";

const WIDTH = 4000;
const HEIGHT = 3000;

/** A photo-like JPEG: smooth shapes (a small noise image enlarged) with a fine grain over them, as a camera's. */
async function photo(file) {
  const shapes = await sharp({ create: { width: 32, height: 24, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma: 60 } } }).png().toBuffer();
  const grain = await sharp({ create: { width: WIDTH, height: HEIGHT, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma: 12 } } }).png({ compressionLevel: 1 }).toBuffer();
  await sharp(shapes).resize(WIDTH, HEIGHT, { kernel: "cubic" }).composite([{ input: grain, blend: "soft-light" }]).jpeg({ quality: 90 }).toFile(file);
}

// The photo is made in a child process, so the memory making it took is not counted here.
const making = process.argv.find((arg) => arg.startsWith("--make-photo="));
if (making !== undefined) {
  await photo(making.slice("--make-photo=".length));
  process.exit(0);
}

const IMAGES = join(ROOT, "dist", "runtime", "files", "images.js");
if (!existsSync(IMAGES)) {
  console.error(`bench/thumbnail.mjs: ${IMAGES} is missing: build fw first (npm run build:fw).`);
  process.exit(1);
}
const { defaultVariants, makeVariant, normaliseImage } = await import(pathToFileURL(IMAGES).href);

const runsArg = process.argv.find((arg) => arg.startsWith("--runs="));
const RUNS = runsArg === undefined ? 7 : Number(runsArg.slice("--runs=".length));

async function timed(task) {
  const start = performance.now();
  await task();
  return performance.now() - start;
}

const dir = mkdtempSync(join(tmpdir(), "fw-thumbnail-"));
try {
  const upload = join(dir, "upload.jpg");
  const made = spawnSync(process.execPath, [fileURLToPath(import.meta.url), `--make-photo=${upload}`], { stdio: "inherit", timeout: 120_000 });
  if (made.status !== 0) throw new Error("making the 4000 × 3000 photo failed");
  const original = join(dir, "original.jpg");
  const base = process.memoryUsage().rss;
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 2);
  const normalise = await timed(async () => {
    const answer = await normaliseImage(upload, original);
    if (!answer.ok) throw new Error(`the generated photo was refused: ${answer.problem}`);
  });
  const times = {};
  for (const name of ["thumb", "large"]) {
    const output = join(dir, `${name}.webp`);
    await makeVariant(original, output, defaultVariants[name]); // untimed: the first call loads codecs
    times[name] = [];
    for (let run = 0; run < RUNS; run++) times[name].push(await timed(() => makeVariant(original, output, defaultVariants[name])));
  }
  clearInterval(sampler);
  const result = {
    source: { width: WIDTH, height: HEIGHT, format: "jpeg", bytes: statSync(upload).size },
    normaliseMs: normalise,
    thumb: summary(times.thumb),
    large: summary(times.large),
    peakRssGrowthBytes: peak - base,
  };
  if (process.argv.includes("--json")) console.log(JSON.stringify(result));
  else {
    const line = (name, s) =>
      `${name} (fit inside ${defaultVariants[name].width} × ${defaultVariants[name].height}, WebP): median ${fmtMs(s.median)} (${fmtMs(s.min)}–${fmtMs(s.max)}) over ${s.n} runs`;
    console.log(`a ${WIDTH} × ${HEIGHT} JPEG (${fmtMB(result.source.bytes)}), on ${tmpdir()}`);
    console.log(line("thumb", result.thumb));
    console.log(line("large", result.large));
    console.log(`normalised once at upload (upright, no metadata, JPEG again): ${fmtMs(normalise)}`);
    console.log(`peak RSS growth meanwhile: ${fmtMB(result.peakRssGrowthBytes)}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
