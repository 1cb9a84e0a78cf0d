// The memory baseline for an app on PostgreSQL (issue 30 item 8): the smallest node:http server
// holding what fw/db holds on PostgreSQL, the `pg` driver and a pool configured as fw's
// (runtime/db/postgres-engine.ts: 10 connections at most, checked with SELECT 1 at start), which
// answers each request after one query, so its pool holds an open connection as the app's does.
import { createServer } from "node:http";
import pg from "pg";

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10, connectionTimeoutMillis: 5_000 });
pool.on("error", () => undefined);
await pool.query("SELECT 1");

const server = createServer((req, res) => {
  pool.query("SELECT 1").then(
    () => {
      res.writeHead(200, ["content-type", "text/plain; charset=utf-8"]);
      res.end("Hello, World!");
    },
    () => {
      res.writeHead(503);
      res.end();
    },
  );
});
server.listen(Number(process.env.PORT), "127.0.0.1", () => console.log(`listening on ${server.address().port}`));
process.on("SIGTERM", () => server.close(() => pool.end().then(() => process.exit(0))).closeAllConnections());
