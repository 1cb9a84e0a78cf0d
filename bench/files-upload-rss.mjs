#!/usr/bin/env node
// Peak RSS growth of a server while it takes one large multipart upload (issue 40: "a 1 GB upload
// costs the process a small constant"): the files part's own measurement (bench/files.mjs, its
// servers under bench/servers/files-*.mjs), on its own. Needs dist/ (npm run build:fw) and the
// bench's dependencies (npm ci --prefix bench) for the Fastify side.
//
//   node bench/files-upload-rss.mjs                       fw, Fastify and a bare node:http server, 1 GiB each
//   node bench/files-upload-rss.mjs --mb=200 --side=fw    one side, a smaller upload
//
// Each side runs in a fresh process pinned to core 0 (the client on core 1); the peak is the kernel's
// high-water mark of its RSS (VmHWM, reset before the upload), the growth its distance from the RSS
// after one small upload and a rest. MiB/s is printed too (informational: the machine is shared).
import { randomBytes } from "node:crypto";
import { prepareFiles, rssDuringUpload } from "./files.mjs";

const arg = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const mb = Number(arg("mb") ?? 1024);
const sides = arg("side") === undefined ? ["fw", "fastify", "raw"] : [arg("side")];
// A production boot: a secret and the hosts it answers for.
process.env.FW_SECRET ??= randomBytes(32).toString("base64url");
process.env.FW_ALLOWED_HOSTS ??= "127.0.0.1,localhost";

prepareFiles();
for (const side of sides) {
  const r = await rssDuringUpload(side, mb * 1024 * 1024);
  const MiB = (n) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
  console.log(`${r.label}: upload of ${mb} MiB, RSS before ${MiB(r.before)}, peak during ${MiB(r.peak)}, growth ${MiB(r.growth)}; ${r.mibPerSecond.toFixed(0)} MiB/s`);
}
