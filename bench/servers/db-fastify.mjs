// Fastify 5 + pg (the driver fw/db uses on PostgreSQL, a pool of 10 as fw's) answering the
// database bench's Show and Index pages by hand: fw's session cookie checked, the same SQL,
// the same HTML (bench/servers/db-page.mjs). DATABASE_URL names the database.
import Fastify from "fastify";
import pg from "pg";
import { readSession } from "./page.mjs";
import { INDEX_SQL, keyOf, PAGE_HEADERS, PAGE_SIZE, pageOf, renderIndex, renderShow, SHOW_SQL } from "./db-page.mjs";

const key = Buffer.from(process.env.FW_SECRET ?? "", "utf8");
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });

function session(request, reply) {
  const entries = readSession(request.headers.cookie, key);
  if (typeof entries?._csrf !== "string") {
    reply.code(403).type("text/plain; charset=utf-8").send("no session");
    return undefined;
  }
  return { user: typeof entries.user === "string" ? entries.user : undefined, csrf: entries._csrf };
}

const app = Fastify({ logger: false });
app.get("/posts/:id", async (request, reply) => {
  const id = keyOf(request.params.id);
  if (id === undefined) return reply.code(404).type("text/plain; charset=utf-8").send("not found");
  const s = session(request, reply);
  if (s === undefined) return reply;
  const { rows } = await pool.query(SHOW_SQL, [id]);
  if (rows[0] === undefined) return reply.code(404).type("text/plain; charset=utf-8").send("not found");
  return reply.headers(PAGE_HEADERS).send(renderShow(id, rows[0], s.user, s.csrf));
});
app.get("/posts", async (request, reply) => {
  const page = pageOf(request.query.page);
  if (page === undefined) return reply.code(400).type("text/plain; charset=utf-8").send("bad page");
  const s = session(request, reply);
  if (s === undefined) return reply;
  const offset = (page - 1) * PAGE_SIZE;
  const cap = offset + 20 * PAGE_SIZE + 1;
  const { rows } = await pool.query(INDEX_SQL, [PAGE_SIZE, offset, cap]);
  const total = rows[0] === undefined ? Number((await pool.query(`SELECT count(*) AS n FROM (SELECT 1 FROM "posts" LIMIT $1) AS fw_counted`, [cap])).rows[0].n) : Number(rows[0].fw_total);
  return reply.headers(PAGE_HEADERS).send(renderIndex(page, rows, total, s.user));
});
await app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" });
console.log(`listening on ${process.env.PORT}`);
process.on("SIGTERM", () => app.close().then(() => pool.end()).then(() => process.exit(0)));
