// Fastify 5 + pg (the driver fw/db uses on PostgreSQL, a pool of 10 as fw's) answering the
// database bench's pages by hand: fw's session cookie checked, the same SQL (the statements fw's
// SqlStore sends, as many, in the same order, the independent ones in parallel as fw sends them),
// the same HTML (bench/servers/db-page.mjs). DATABASE_URL names the database.
import Fastify from "fastify";
import pg from "pg";
import { readSession } from "./page.mjs";
import {
  ARTICLE_SQL,
  ARTICLES_COUNT_SQL,
  ARTICLES_SQL,
  AUTHORS_SQL,
  authorLabels,
  COMMENTS_COUNT_SQL,
  COMMENTS_SQL,
  countAhead,
  keyOf,
  PAGE_HEADERS,
  PAGE_SIZE,
  pageOf,
  pagesCounted,
  POST_SQL,
  POSTS_COUNT_SQL,
  POSTS_SQL,
  RELATED_PAGE_SIZE,
  renderArticle,
  renderArticles,
  renderPost,
  renderPosts,
} from "./db-page.mjs";

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

const notFound = (reply) => reply.code(404).type("text/plain; charset=utf-8").send("not found");
const badPage = (reply) => reply.code(400).type("text/plain; charset=utf-8").send("bad page");

/** A page of a list statement's rows and their total, counted up to the cap (counted apart only when the page came back empty, as SqlStore does). */
async function listed(sql, params, countSql, countParams) {
  const { rows } = await pool.query(sql, params);
  const total = rows[0] === undefined ? Number((await pool.query(countSql, countParams)).rows[0].n) : Number(rows[0].fw_total);
  return { rows, total };
}

/** The labels of the authors `keys` name: one statement, none when there are none. */
async function labelsOf(keys) {
  if (keys.length === 0) return new Map();
  const { rows } = await pool.query(AUTHORS_SQL, [keys.length, 0, keys]);
  return authorLabels(rows);
}

const app = Fastify({ logger: false });

app.get("/articles/:id", async (request, reply) => {
  const id = keyOf(request.params.id);
  if (id === undefined) return notFound(reply);
  const s = session(request, reply);
  if (s === undefined) return reply;
  const { rows } = await pool.query(ARTICLE_SQL, [id]);
  if (rows[0] === undefined) return notFound(reply);
  return reply.headers(PAGE_HEADERS).send(renderArticle(id, rows[0], s.user));
});

app.get("/articles", async (request, reply) => {
  const page = pageOf(request.query.page);
  if (page === undefined) return badPage(reply);
  const s = session(request, reply);
  if (s === undefined) return reply;
  const offset = (page - 1) * PAGE_SIZE;
  const cap = countAhead(offset, PAGE_SIZE);
  const { rows, total } = await listed(ARTICLES_SQL, [PAGE_SIZE, offset, cap], ARTICLES_COUNT_SQL, [cap]);
  if (page > pagesCounted(total, page, PAGE_SIZE).last) return notFound(reply);
  return reply.headers(PAGE_HEADERS).send(renderArticles(page, rows, total, s.user));
});

// A post's Show: the post, then (in parallel) its author's label and a page of its comments.
app.get("/posts/:id", async (request, reply) => {
  const id = keyOf(request.params.id);
  if (id === undefined) return notFound(reply);
  const page = pageOf(request.query.comments_page);
  if (page === undefined) return badPage(reply);
  const s = session(request, reply);
  if (s === undefined) return reply;
  const { rows } = await pool.query(POST_SQL, [id]);
  const post = rows[0];
  if (post === undefined) return notFound(reply);
  const offset = (page - 1) * RELATED_PAGE_SIZE;
  const cap = countAhead(offset, RELATED_PAGE_SIZE);
  const [labels, comments] = await Promise.all([
    labelsOf([post.author_id]),
    listed(COMMENTS_SQL, [RELATED_PAGE_SIZE, offset, id, cap], COMMENTS_COUNT_SQL, [id, cap]),
  ]);
  if (page > pagesCounted(comments.total, page, RELATED_PAGE_SIZE).last) return notFound(reply);
  return reply.headers(PAGE_HEADERS).send(renderPost(id, post, labels, comments.rows, comments.total, page, s.user));
});

// The posts' Index: a page of posts, then the labels of every author it names in one statement.
app.get("/posts", async (request, reply) => {
  const page = pageOf(request.query.page);
  if (page === undefined) return badPage(reply);
  const s = session(request, reply);
  if (s === undefined) return reply;
  const offset = (page - 1) * PAGE_SIZE;
  const cap = countAhead(offset, PAGE_SIZE);
  const { rows, total } = await listed(POSTS_SQL, [PAGE_SIZE, offset, cap], POSTS_COUNT_SQL, [cap]);
  if (page > pagesCounted(total, page, PAGE_SIZE).last) return notFound(reply);
  const labels = await labelsOf([...new Set(rows.map((row) => row.author_id))]);
  return reply.headers(PAGE_HEADERS).send(renderPosts(page, rows, labels, total, s.user));
});

await app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" });
console.log(`listening on ${process.env.PORT}`);
process.on("SIGTERM", () => app.close().then(() => pool.end()).then(() => process.exit(0)));
