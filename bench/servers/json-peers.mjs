// The peers of the JSON bench (bench/json.mjs): `GET /api/posts`, the 50 posts of the fw app's
// own module (bench/.work/json-app/dist/posts.js, built by the bench), from
//   JSON_SIDE=raw            node:http, JSON.stringify
//   JSON_SIDE=fastify        Fastify 5 with a response schema: fast-json-stringify writes the answer
//   JSON_SIDE=fastify-plain  Fastify 5 without a schema: JSON.stringify
import { createServer } from "node:http";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import Fastify from "fastify";
import { postsSchema } from "./json-schema.mjs";

const { POSTS } = await import(pathToFileURL(join(import.meta.dirname, "..", ".work", "json-app", "dist", "posts.js")).href);
const port = Number(process.env.PORT);
const side = process.env.JSON_SIDE;

if (side === "raw") {
  const server = createServer((request, response) => {
    if (request.method === "GET" && request.url === "/api/posts") {
      response.writeHead(200, { "content-type": "application/json; charset=utf-8" });
      response.end(JSON.stringify(POSTS));
      return;
    }
    response.writeHead(404, { "content-type": "text/plain; charset=utf-8" });
    response.end("not found");
  });
  server.listen(port, "127.0.0.1", () => console.log(`listening on ${port}`));
  process.on("SIGTERM", () => server.close(() => process.exit(0)));
} else if (side === "fastify" || side === "fastify-plain") {
  const app = Fastify({ logger: false });
  const options = side === "fastify" ? { schema: { response: { 200: postsSchema } } } : {};
  app.get("/api/posts", options, () => POSTS);
  await app.listen({ port, host: "127.0.0.1" });
  console.log(`listening on ${port}`);
  process.on("SIGTERM", () => app.close().then(() => process.exit(0)));
} else {
  throw new Error(`JSON_SIDE=${side}: raw, fastify or fastify-plain`);
}
