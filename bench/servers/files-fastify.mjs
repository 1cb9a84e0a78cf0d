// The Fastify peer of the files part (bench/files.mjs), written as the plugins' own READMEs show:
//   POST /upload  @fastify/multipart: `request.file()`, its stream piped to a new file in
//                 FILES_DIR/fastify-store under a random key (the same disk as fw's spool and
//                 storage); past `limits.fileSize` the partial file is removed and the answer is a 413;
//                 201 {"key": …}
//   GET /file     @fastify/static serving FILES_SERVE's folder (its defaults: ETag, Last-Modified,
//                 Cache-Control, Range)
// With FASTIFY_SHA256=1 the upload is also hashed (SHA-256) on its way to the disk, by a Transform
// in the pipeline as an app keeping a checksum column would write it: the work fw's spool does.
import { createHash, randomBytes } from "node:crypto";
import { createWriteStream, mkdirSync } from "node:fs";
import { rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import multipart from "@fastify/multipart";
import fastifyStatic from "@fastify/static";
import Fastify from "fastify";
import { UPLOAD_FIELD } from "./files-common.mjs";

const dir = process.env.FILES_DIR;
const served = process.env.FILES_SERVE;
const maxBytes = Number(process.env.FILES_MAX_BYTES);
if (dir === undefined || served === undefined || !(maxBytes > 0)) throw new Error("files-fastify.mjs needs FILES_DIR, FILES_SERVE and FILES_MAX_BYTES");
const store = join(dir, "fastify-store");
mkdirSync(store, { recursive: true });
const port = Number(process.env.PORT);
const hashed = process.env.FASTIFY_SHA256 === "1";

/** The stages between the upload and its file: nothing, or a SHA-256 of the bytes on the way. */
function through() {
  if (!hashed) return [];
  const hash = createHash("sha256");
  return [
    new Transform({
      transform(chunk, _encoding, done) {
        hash.update(chunk);
        done(null, chunk);
      },
      flush(done) {
        this.checksum = hash.digest("hex");
        done();
      },
    }),
  ];
}

const app = Fastify({ logger: false, requestTimeout: 600_000 });
await app.register(multipart, { limits: { fileSize: maxBytes, files: 1 } });
await app.register(fastifyStatic, { root: dirname(served), serve: false });

app.post("/upload", async (request, reply) => {
  const data = await request.file();
  if (data === undefined || data.fieldname !== UPLOAD_FIELD) return reply.code(422).send({ error: `no file in "${UPLOAD_FIELD}"` });
  const key = randomBytes(16).toString("hex");
  const path = join(store, key);
  try {
    await pipeline(data.file, ...through(), createWriteStream(path));
  } catch (error) {
    await rm(path, { force: true }); // past limits.fileSize the plugin fails the stream: a 413
    throw error;
  }
  if (data.file.truncated) {
    await rm(path, { force: true });
    return reply.code(413).send({ error: `larger than ${maxBytes} bytes` });
  }
  return reply.code(201).send({ key });
});
app.get("/file", (_request, reply) => reply.sendFile(basename(served)));

await app.listen({ port, host: "127.0.0.1" });
console.log(`listening on ${port}`);
process.on("SIGTERM", () => app.close().then(() => process.exit(0)));
