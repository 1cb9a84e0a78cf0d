// fw/cache across processes (spec/ops/cache-processes.test.ts): two of these on one PostgreSQL
// (DATABASE_URL), each with its quick layer in front of the shared table. `GET /cached` answers a
// value kept under the tag "notes" with the pid that made it; `POST /api/write` publishes "notes"
// as a write through a live model's store does.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const dist = join(dirname(fileURLToPath(import.meta.url)), "../../../dist/runtime");
const { Ok, Route, RouteTable } = await import(join(dist, "index.js"));
const { DbApp } = await import(join(dist, "db/index.js"));
const { Cache } = await import(join(dist, "cache/index.js"));
const { publish } = await import(join(dist, "live/index.js"));

const cache = new Cache();
let made = 0;
const routes = RouteTable.of(
  Route.api({ method: "GET", path: "/cached", handler: async () => Ok(await cache.wrap("notes:index", { tags: ["notes"] }, () => `made by ${process.pid} (#${++made})`)) }),
  Route.api({
    method: "POST",
    path: "/api/write",
    handler: () => {
      publish("notes");
      return Ok("written");
    },
  }),
  Route.api({
    method: "POST",
    path: "/api/forget",
    handler: async () => {
      await cache.delete("notes:index");
      return Ok("forgotten");
    },
  }),
);
process.exitCode = await new DbApp({ routes }).main();
