// fw's side of the files part (bench/files.mjs), through fw's public API (dist/ after `npm run
// build`) as an app writes its routes by hand (the transformer does not write `files` yet):
//   POST /upload  a route declaring one file field (`files: { file: … }`): fw reads the multipart
//                 body, spools the file to FILES_DIR/fw-spool (SHA-256 and size on the way, its
//                 type read from its bytes), and the handler puts it into DiskStorage under a
//                 random key (a rename: spool and storage are on the same disk); 201 {"key": …}
//   GET /file     the stored copy of FILES_SERVE through `serveStored` (ETag, Range, nosniff, a
//                 sandbox CSP, a PDF as an attachment), as a read rule's handler would answer it;
//                 stored at boot in a DiskStorage of its own (FILES_DIR/fw-served), so that what
//                 the uploads stored (FILES_DIR/fw-store) can be removed between runs
// Both are `Route.api` (no session, no CSRF token), like the Fastify peer. Production boot
// (`main([])`), access log off; FW_SECRET from the environment.
import { mkdirSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { HttpApp, Json, Route, RouteTable, UnprocessableContent } from "../../dist/runtime/index.js";
import { DiskStorage, newStorageKey, serveStored, sniffFile } from "../../dist/runtime/files/index.js";
import { fileChecksum, UPLOAD_FIELD } from "./files-common.mjs";

const dir = process.env.FILES_DIR;
const served = process.env.FILES_SERVE;
const maxBytes = Number(process.env.FILES_MAX_BYTES);
if (dir === undefined || served === undefined || !(maxBytes > 0)) throw new Error("files-fw.mjs needs FILES_DIR, FILES_SERVE and FILES_MAX_BYTES");
const spoolDir = join(dir, "fw-spool");
mkdirSync(spoolDir, { recursive: true });
const storage = new DiskStorage(join(dir, "fw-store"));
const servedStorage = new DiskStorage(join(dir, "fw-served"));

// The file GET /file serves, stored once at boot as an upload's would be: what a row keeps of it.
const stored = {
  key: newStorageKey(),
  size: statSync(served).size,
  type: await sniffFile(served),
  name: basename(served),
  checksum: await fileChecksum(served),
};
await servedStorage.put(stored.key, { path: served }, stored);

const upload = Route.api({
  method: "POST",
  path: "/upload",
  files: { [UPLOAD_FIELD]: { maxBytes, accept: ["application/pdf"] } },
  handler: async (request) => {
    const file = request.files.get(UPLOAD_FIELD);
    if (file === undefined) throw new UnprocessableContent(`no file in "${UPLOAD_FIELD}": ${request.files.problems.map((p) => p.message).join("; ")}`);
    const key = newStorageKey();
    await storage.put(key, { path: file.take(), move: true }, file);
    return Json({ key }, 201);
  },
});
const file = Route.api({ method: "GET", path: "/file", handler: (request) => serveStored(servedStorage, stored, request) });

process.exitCode = await new HttpApp({
  routes: RouteTable.of(upload, file),
  accessLog: false,
  // A 1 GiB upload (the RSS row) passes the default cap on one request's files (1 GiB) by its framing.
  uploads: { spoolDir, maxRequestBytes: maxBytes },
  // A loaded shared machine may take longer than the default 60 s over the 1 GiB upload.
  requestTimeoutMs: 600_000,
}).main([]);
