// The bare baseline of the files part's RSS row (bench/files.mjs): node:http piping the whole
// request body to a new file under FILES_DIR/raw-store, no multipart parsing, no checks; 201
// {"key": …}. What any Node server taking a large body to disk costs at least.
import { randomBytes } from "node:crypto";
import { createWriteStream, mkdirSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";

const dir = process.env.FILES_DIR;
if (dir === undefined) throw new Error("files-raw.mjs needs FILES_DIR");
const store = join(dir, "raw-store");
mkdirSync(store, { recursive: true });
const port = Number(process.env.PORT);

const server = createServer((request, response) => {
  if (request.method !== "POST" || request.url !== "/upload") {
    response.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found");
    return;
  }
  const key = randomBytes(16).toString("hex");
  pipeline(request, createWriteStream(join(store, key))).then(
    () => response.writeHead(201, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify({ key })),
    (error) => response.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end(String(error)),
  );
});
server.requestTimeout = 600_000;
server.listen(port, "127.0.0.1", () => console.log(`listening on ${port}`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
