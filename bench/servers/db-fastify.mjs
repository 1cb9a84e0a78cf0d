// Fastify 5 + pg (the driver fw/db uses on PostgreSQL, a pool of 10 as fw's) answering the
// database bench's pages by hand: fw's session cookie checked, the same SQL (the statements fw's
// SqlStore sends, as many, in the same order, the independent ones in parallel as fw sends them),
// the same HTML (bench/servers/db-page.mjs). DATABASE_URL names the database.
import Fastify from "fastify";
import pg from "pg";
import { readSession } from "./page.mjs";
import {
  ARTICLE_SQL,
  ARTICLES_AFTER_SQL,
  ARTICLES_BEFORE_SQL,
  ARTICLES_COUNT_SQL,
  ARTICLES_SQL,
  AUTHOR_CHOICES_SQL,
  AUTHORS_COUNT_SQL,
  AUTHORS_SQL,
  authorLabels,
  CHOICES_LIMIT,
  COMMENTS_COUNT_SQL,
  COMMENTS_SQL,
  countAhead,
  indexPageOf,
  indexQueryOf,
  keyOf,
  PAGE_HEADERS,
  PAGE_SIZE,
  pageOf,
  pagesCounted,
  POST_SQL,
  POST_TAGS_SQL,
  POSTS_AFTER_SQL,
  POSTS_BEFORE_SQL,
  POSTS_COUNT_SQL,
  POSTS_SQL,
  RELATED_PAGE_SIZE,
  renderArticle,
  renderArticles,
  renderPost,
  renderPosts,
  TAG_CHOICES_SQL,
  tagLabels,
  TAGS_COUNT_SQL,
  TAGS_SQL,
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

/**
 * An Index's rows in key order as its URL asks (indexQueryOf): the first page by offset, else a
 * keyset page after or before the cursor's key (one row more, to know whether more follow); the
 * whole list counted 10 pages ahead. The statements per table: [by offset, after, before, count].
 */
async function indexRows(query, [byOffset, after, before, count]) {
  const key = query.after ?? query.before;
  const offset = key === undefined ? (query.page - 1) * PAGE_SIZE : 0;
  const cap = countAhead(offset, PAGE_SIZE);
  const { rows, total } =
    key === undefined ? await listed(byOffset, [PAGE_SIZE, offset, cap], count, [cap]) : await listed(query.after === undefined ? before : after, [PAGE_SIZE + 1, 0, key, key, cap], count, [cap]);
  return { rows, total, cap };
}

/** The authors the posts' filter offers, by name: their labels by key (a select of at most 100: the bench's 25). */
async function authorChoices() {
  const { rows, total } = await listed(AUTHOR_CHOICES_SQL, [CHOICES_LIMIT, 0, CHOICES_LIMIT + 1], AUTHORS_COUNT_SQL, [CHOICES_LIMIT + 1]);
  // Past 100 fw's filter is a search input with its picker's script: not written by hand here.
  if (total > CHOICES_LIMIT) throw new Error(`the peer's posts filter lists at most ${CHOICES_LIMIT} authors, and there are more`);
  return authorLabels(rows);
}

/** The tags the posts' filter offers, by name: their labels by key (a select of at most 100: the bench's 20). */
async function tagChoices() {
  const { rows, total } = await listed(TAG_CHOICES_SQL, [CHOICES_LIMIT, 0, CHOICES_LIMIT + 1], TAGS_COUNT_SQL, [CHOICES_LIMIT + 1]);
  if (total > CHOICES_LIMIT) throw new Error(`the peer's posts filter lists at most ${CHOICES_LIMIT} tags, and there are more`);
  return tagLabels(rows);
}

/** The labels of the authors `keys` name: one statement, none when there are none. */
async function labelsOf(keys) {
  if (keys.length === 0) return new Map();
  const { rows } = await pool.query(AUTHORS_SQL, [keys.length, 0, keys]);
  return authorLabels(rows);
}

/** The labels of the tags `keys` name: one statement, none when there are none. */
async function tagLabelsOf(keys) {
  if (keys.length === 0) return new Map();
  const { rows } = await pool.query(TAGS_SQL, [keys.length, 0, keys]);
  return tagLabels(rows);
}

/** The tags of the posts `rows` (their keys, in key order, by post key): one statement from the join table, none for no post. */
async function tagsOf(rows) {
  const tags = new Map(rows.map((row) => [row.id, []]));
  if (rows.length === 0) return tags;
  const links = await pool.query(POST_TAGS_SQL, [`{${rows.map((row) => row.id).join(",")}}`]);
  for (const link of links.rows) tags.get(link.f)?.push(link.t);
  return tags;
}

/** Every tag key of `tags` (by post), once. */
const tagKeys = (tags) => [...new Set([...tags.values()].flat())];

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

const ARTICLES_STATEMENTS = [ARTICLES_SQL, ARTICLES_AFTER_SQL, ARTICLES_BEFORE_SQL, ARTICLES_COUNT_SQL];
const POSTS_STATEMENTS = [POSTS_SQL, POSTS_AFTER_SQL, POSTS_BEFORE_SQL, POSTS_COUNT_SQL];

/** A numbered page past the last has nothing to show (a cursor's page past the end shows "No … yet."). */
const pastTheEnd = (query, total) => query.page !== undefined && query.page > pagesCounted(total, query.page, PAGE_SIZE).last;

app.get("/articles", async (request, reply) => {
  const query = indexQueryOf(request.query);
  if (query === undefined) return badPage(reply);
  const s = session(request, reply);
  if (s === undefined) return reply;
  const { rows, total, cap } = await indexRows(query, ARTICLES_STATEMENTS);
  if (pastTheEnd(query, total)) return notFound(reply);
  return reply.headers(PAGE_HEADERS).send(renderArticles(indexPageOf(query, rows, total, cap), s.user));
});

// A post's Show: the post, its tags (the join table), then (in parallel) its author's label, its tags' labels and a page of its comments.
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
  const tags = (await tagsOf([post])).get(post.id);
  const offset = (page - 1) * RELATED_PAGE_SIZE;
  const cap = countAhead(offset, RELATED_PAGE_SIZE);
  const [labels, tagNames, comments] = await Promise.all([
    labelsOf([post.author_id]),
    tagLabelsOf(tags),
    listed(COMMENTS_SQL, [RELATED_PAGE_SIZE, offset, id, cap], COMMENTS_COUNT_SQL, [id, cap]),
  ]);
  if (page > pagesCounted(comments.total, page, RELATED_PAGE_SIZE).last) return notFound(reply);
  return reply.headers(PAGE_HEADERS).send(renderPost(id, post, tags, labels, tagNames, comments.rows, comments.total, page, s.user));
});

// The posts' Index: a page of posts and their tags (the join table), in parallel with the authors
// and the tags its filter offers; then the labels of every author and every tag the page names,
// one statement each, in parallel.
app.get("/posts", async (request, reply) => {
  const query = indexQueryOf(request.query);
  if (query === undefined) return badPage(reply);
  const s = session(request, reply);
  if (s === undefined) return reply;
  const [[{ rows, total, cap }, tags], choices, tagsOffered] = await Promise.all([
    indexRows(query, POSTS_STATEMENTS).then(async (listed) => [listed, await tagsOf(listed.rows.slice(0, PAGE_SIZE))]),
    authorChoices(),
    tagChoices(),
  ]);
  if (pastTheEnd(query, total)) return notFound(reply);
  const page = indexPageOf(query, rows, total, cap);
  const [labels, tagNames] = await Promise.all([labelsOf([...new Set(page.rows.map((row) => row.author_id))]), tagLabelsOf(tagKeys(tags))]);
  return reply.headers(PAGE_HEADERS).send(renderPosts(page, tags, labels, tagNames, choices, tagsOffered, s.user));
});

await app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" });
console.log(`listening on ${process.env.PORT}`);
process.on("SIGTERM", () => app.close().then(() => pool.end()).then(() => process.exit(0)));
