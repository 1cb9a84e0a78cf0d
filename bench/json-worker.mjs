// The JSON bench's in-process part (bench/json.mjs runs it pinned to one core): the 50 posts of
// `GET /api/posts` written by the fw app's route as the build wrote it (read off the built route
// table: typia's exact check, then JSON.stringify; runtime/http/json-writer.ts), by typia's checked
// typed stringify alone (what that writer falls back to), by JSON.stringify, and by
// fast-json-stringify with the Fastify peer's schema. Rounds interleave the writers (A B C A B C …); prints one JSON line:
// { writers: { name: [ops/s per round] }, bytes }.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createRequire } from "node:module";

const [roundMs = "300", rounds = "7"] = process.argv.slice(2);
const app = join(import.meta.dirname, ".work", "json-app", "dist");
const { POSTS } = await import(pathToFileURL(join(app, "posts.js")).href);
const { table } = await import(pathToFileURL(join(app, ".fw", "routes.js")).href);
const { typiaAssertStringify } = await import(pathToFileURL(join(app, "writers.js")).href);
const { postsSchema } = await import("./servers/json-schema.mjs");
// fast-json-stringify as Fastify resolves it (a dependency of bench/package.json's fastify).
const fastJson = createRequire(join(import.meta.dirname, "node_modules", "fastify", "package.json"))("fast-json-stringify");

const route = table().routes.find((r) => r.path.text === "/api/posts");
if (typeof route?.stringify !== "function") throw new Error("the json app's GET /api/posts has no typed stringify: was it built with fw's transformer and typia?");
const writers = {
  "fw's route writer (typia's equals, then JSON.stringify)": route.stringify,
  "typia's checked typed stringify (json.createAssertStringify)": typiaAssertStringify,
  "JSON.stringify": (value) => JSON.stringify(value),
  "fast-json-stringify": fastJson(postsSchema),
};
const expected = JSON.stringify(POSTS);
for (const [name, write] of Object.entries(writers)) {
  if (write(POSTS) !== expected) throw new Error(`${name} does not write what JSON.stringify writes`);
}

const results = Object.fromEntries(Object.keys(writers).map((name) => [name, []]));
let sink = 0;
const time = (write, ms) => {
  let n = 0;
  const started = performance.now();
  let now = started;
  while (now - started < ms) {
    for (let i = 0; i < 50; i++) sink += write(POSTS).length;
    n += 50;
    now = performance.now();
  }
  return (n * 1000) / (now - started);
};
for (const write of Object.values(writers)) time(write, Number(roundMs)); // warm-up
for (let round = 0; round < Number(rounds); round++) {
  const order = round % 2 === 0 ? Object.keys(writers) : Object.keys(writers).reverse();
  for (const name of order) results[name].push(time(writers[name], Number(roundMs)));
}
console.log(JSON.stringify({ writers: results, bytes: Buffer.byteLength(expected), sink: sink > 0 }));
