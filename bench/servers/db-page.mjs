// The database bench's pages by hand (bench/db.mjs): what fw's derived pages of the bench app
// (bench/servers/db-app) render, written as a hand-written app would, for
// bench/servers/db-fastify.mjs. The bench checks, before it measures, that both servers send the
// very same bytes. The SQL is the very statements fw's SqlStore sends.
//  - Article (the "articles" table, no references): Show (one row by key) and Index (a page of 50).
//  - Post (by an Author, with Comments): Show with the author's name as a link and the post's
//    comments (20 a page), and Index with each post's author as a link: the relations' pages.
import { escapeHtml } from "./page.mjs";

export const PAGE_SIZE = 50;
/** Rows per list of a post's comments on its Show (fw's RELATED_PAGE_SIZE). */
export const RELATED_PAGE_SIZE = 20;
/** The most characters an index cell, a heading and a label show (fw's CELL_LENGTH, HEADING_LENGTH). */
const CELL_LENGTH = 80;
const HEADING_LENGTH = 120;

/** How many pages past the one shown a derived list counts its rows (fw's PAGES_AHEAD, runtime/resource/page-count.ts). */
const PAGES_AHEAD = 20;
/** The `countUpTo` of a list's page at `offset` (fw's countAhead): the rows up to 20 pages past it, and one more. */
export function countAhead(offset, pageSize) {
  return offset + PAGES_AHEAD * pageSize + 1;
}

/** A list's statement as SqlStore.list({ offset, limit, where, countUpTo }) sends it: a page of rows and beside each the total, counted up to the cap (a subquery with a LIMIT). */
function listSql(columns, table, where, capAt) {
  const counted = `(SELECT count(*) FROM (SELECT 1 FROM "${table}"${where} LIMIT $${capAt}) AS fw_counted)`;
  return `SELECT ${columns}, ${counted} AS fw_total FROM "${table}"${where} ORDER BY "id" LIMIT $1 OFFSET $2`;
}

const ARTICLE_COLUMNS = `"id", "title", "author", "body", "rating", "published", "fw_version"`;
/** SqlStore.get(key) */
export const ARTICLE_SQL = `SELECT ${ARTICLE_COLUMNS} FROM "articles" WHERE "id" = $1`;
/** The Index's page: [limit, offset, countUpTo]. */
export const ARTICLES_SQL = listSql(ARTICLE_COLUMNS, "articles", "", 3);
/** The Index's count when its page came back empty (SqlTable.count): [countUpTo]. */
export const ARTICLES_COUNT_SQL = `SELECT count(*) AS n FROM (SELECT 1 FROM "articles" LIMIT $1) AS fw_counted`;

const POST_COLUMNS = `"id", "title", "author_id", "body", "published", "fw_version"`;
export const POST_SQL = `SELECT ${POST_COLUMNS} FROM "posts" WHERE "id" = $1`;
/** [limit, offset, countUpTo] */
export const POSTS_SQL = listSql(POST_COLUMNS, "posts", "", 3);
export const POSTS_COUNT_SQL = `SELECT count(*) AS n FROM (SELECT 1 FROM "posts" LIMIT $1) AS fw_counted`;
/** The labels of a page's references: the authors it names, in one statement (`where: { id: [keys] }`, no countUpTo: counted exactly). */
export const AUTHORS_SQL = `SELECT "id", "name", "email", "fw_version", count(*) OVER () AS fw_total FROM "authors" WHERE "id" = ANY($3::bigint[]) ORDER BY "id" LIMIT $1 OFFSET $2`;
/** A post's comments, a page of them (`where: { post: key }`, counted 20 pages ahead): [limit, offset, post, countUpTo]. */
export const COMMENTS_SQL = listSql(`"id", "post_id", "name", "body", "fw_version"`, "comments", ` WHERE "post_id" = $3`, 4);
/** [post, countUpTo] */
export const COMMENTS_COUNT_SQL = `SELECT count(*) AS n FROM (SELECT 1 FROM "comments" WHERE "post_id" = $1 LIMIT $2) AS fw_counted`;

/** A key as fw's Id decoder reads it: a positive whole number. */
export function keyOf(text) {
  return /^[1-9][0-9]{0,15}$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : undefined;
}

/** `?page=` (or `?comments_page=`) as fw's pages read it (1 when absent); undefined when it is not a page number. */
export function pageOf(text) {
  if (text === undefined) return 1;
  return /^[1-9][0-9]{0,8}$/.test(text) ? Number(text) : undefined;
}

/** A long text on Show keeps its line breaks, as `<br>`s. */
function withLineBreaks(text) {
  return text.split(/\r\n?|\n/).map(escapeHtml).join("<br>");
}

/** A cell, a heading or a label: the first line, at most `limit` code points, then "…" when there was more (walking no further than that). */
function oneLine(text, limit = CELL_LENGTH) {
  const start = text.trimStart();
  const breakAt = start.search(/[\r\n]/);
  const first = breakAt === -1 ? start : start.slice(0, breakAt);
  const more = breakAt !== -1 && start.slice(breakAt).trim() !== "";
  let end = 0;
  for (let points = 0; end < first.length && points < limit; points++) {
    const unit = first.charCodeAt(end);
    end += unit >= 0xd800 && unit <= 0xdbff && end + 1 < first.length ? 2 : 1;
  }
  return more || end < first.length ? `${first.slice(0, end).trimEnd()}…` : first;
}

/** What a row is called (its Show heading, a link to it): its first non-empty text field (not a long text), else "Post 7". */
function labelOf(texts, fallback) {
  for (const text of texts) if (text.trim() !== "") return oneLine(text, HEADING_LENGTH);
  return fallback;
}

/** The labels of the authors a page names, by key (pg reads bigint keys as strings: so do the posts' author_id). */
export function authorLabels(rows) {
  return new Map(rows.map((row) => [row.id, labelOf([row.name, row.email], `Author ${row.id}`)]));
}

/** A post's author as a page shows it: a link with the author's name, or "Author 7" when there is no such row. */
function authorCell(key, labels, limit) {
  const label = labels.get(key);
  return label === undefined ? `Author ${key}` : `<a href="/authors/${key}">${escapeHtml(oneLine(label, limit))}</a>`;
}

/** The headings of an Index's columns, each a link that sorts by it. */
function sortHeadings(path, columns) {
  let headings = "";
  for (const [label, name] of columns) headings += `<th scope="col"><a href="${path}?sort=${name}">${label}</a></th>`;
  return headings;
}

/** A table as fw's Index and Show's lists write it: a row per item, its cells already HTML, then Show and Edit. */
function rowsTable(headings, path, rows, cells) {
  let body = "";
  for (const row of rows) body += `<tr>${cells(row)}<td><a href="${path}/${row.id}">Show</a> <a href="${path}/${row.id}/edit">Edit</a></td></tr>`;
  return `<table class="fw-index"><thead><tr>${headings}<th scope="col"><span class="fw-hidden">Links</span></th></tr></thead><tbody>${body}</tbody></table>`;
}

/**
 * The pages `total` rows fill, seen from page `page`, counted as fw counts them (its pagesCounted):
 * a total that reached the page's cap says only that at least that many rows exist, and the
 * pager says "of 21 or more".
 */
export function pagesCounted(total, page, pageSize) {
  const countUpTo = countAhead((page - 1) * pageSize, pageSize);
  if (total >= countUpTo) return { last: Math.ceil(countUpTo / pageSize), more: true };
  return { last: Math.max(1, Math.ceil(total / pageSize)), more: false };
}

function pager(page, { last, more }, at, label = "Pages") {
  if (last <= 1) return "";
  return (
    `<nav class="fw-pager" aria-label="${label}">${page > 1 ? `<a href="${at(page - 1)}" rel="prev">Previous</a>` : ""}` +
    `<span>Page ${page} of ${last}${more ? " or more" : ""}</span>${page < last ? `<a href="${at(page + 1)}" rel="next">Next</a>` : ""}</nav>`
  );
}

/** An Index page: its heading, "New …", the table (or "No … yet.") and the pager. */
function indexPage(words, page, rows, total, user, table) {
  const counted = pagesCounted(total, page, PAGE_SIZE);
  const body = rows.length === 0 ? `<p class="fw-empty">No ${words.many.toLowerCase()} yet.</p>` : table();
  const pages = pager(page, counted, (n) => (n === 1 ? words.path : `${words.path}?page=${n}`));
  return layout(words.many, `<h1>${words.many}</h1><p><a href="${words.path}/new" class="fw-new">New ${words.one}</a></p>${body}${pages}`, user);
}

/** A Show page: the heading, the fields, Edit and Delete, what follows (Post's comments), the way back. */
function showPage(words, key, heading, dl, user, after = "") {
  const at = `${words.path}/${key}`;
  const content =
    `<h1>${escapeHtml(heading)}</h1><dl class="fw-show">${dl}</dl>` +
    `<p class="fw-controls"><a href="${at}/edit" class="fw-edit">Edit</a> <a href="${at}/delete" class="fw-destroy">Delete</a></p>` +
    `${after}<p><a href="${words.path}" class="fw-back">Back to ${words.many.toLowerCase()}</a></p>`;
  return layout(heading, content, user);
}

// ---------- Article: one table, no references ----------

const ARTICLES = { many: "Articles", one: "article", path: "/articles" };

/** Each shown field of an article: its label, its name, its text (before escaping). */
function articleFields(row) {
  return [
    ["Title", "title", row.title],
    ["Author", "author", row.author],
    ["Body", "body", row.body],
    ["Rating", "rating", String(row.rating)],
    ["Published", "published", row.published ? "Yes" : "No"],
  ];
}

export function renderArticle(key, row, user) {
  let dl = "";
  for (const [label, , value] of articleFields(row)) dl += `<dt>${label}</dt><dd>${withLineBreaks(value)}</dd>`;
  return showPage(ARTICLES, key, labelOf([row.title, row.author], `Article ${key}`), dl, user);
}

export function renderArticles(page, rows, total, user) {
  const headings = sortHeadings(ARTICLES.path, articleFields({ title: "", author: "", body: "", rating: 0, published: false }));
  return indexPage(ARTICLES, page, rows, total, user, () =>
    rowsTable(headings, ARTICLES.path, rows, (row) => {
      let cells = "";
      for (const [, , value] of articleFields(row)) cells += `<td>${escapeHtml(oneLine(value))}</td>`;
      return cells;
    }),
  );
}

// ---------- Post: by an author, with comments ----------

const POSTS = { many: "Posts", one: "post", path: "/posts" };
const POST_HEADINGS = sortHeadings(POSTS.path, [["Title", "title"], ["Author", "author"], ["Body", "body"], ["Published", "published"]]);
const COMMENT_HEADINGS = `<th scope="col">Name</th><th scope="col">Body</th>`;

/**
 * A post's Show: its fields (the author as a link with its name), then its comments: a page of
 * 20 in key order in a table like the comments' Index without the post column, a pager past 20,
 * and "Add a comment" pre-filling the post.
 */
export function renderPost(key, row, labels, comments, commentsTotal, commentsPage, user) {
  const dl =
    `<dt>Title</dt><dd>${withLineBreaks(row.title)}</dd>` +
    `<dt>Author</dt><dd>${authorCell(row.author_id, labels, HEADING_LENGTH)}</dd>` +
    `<dt>Body</dt><dd>${withLineBreaks(row.body)}</dd>` +
    `<dt>Published</dt><dd>${row.published ? "Yes" : "No"}</dd>`;
  const counted = pagesCounted(commentsTotal, commentsPage, RELATED_PAGE_SIZE);
  const list =
    comments.length === 0
      ? `<p class="fw-empty">No comments yet.</p>`
      : rowsTable(COMMENT_HEADINGS, "/comments", comments, (c) => `<td>${escapeHtml(oneLine(c.name))}</td><td>${escapeHtml(oneLine(c.body))}</td>`);
  const pages = pager(commentsPage, counted, (n) => `${POSTS.path}/${key}${n === 1 ? "" : `?comments_page=${n}`}#comments`, "Pages of comments");
  const section = `<section class="fw-related" id="comments"><h2>Comments</h2>${list}${pages}<p><a href="/comments/new?post=${key}" class="fw-new">Add a comment</a></p></section>`;
  return showPage(POSTS, key, labelOf([row.title], `Post ${key}`), dl, user, section);
}

/** The posts' Index: a page of 50, each post's author as a link with its name (labels loaded once for the page). */
export function renderPosts(page, rows, labels, total, user) {
  return indexPage(POSTS, page, rows, total, user, () =>
    rowsTable(POST_HEADINGS, POSTS.path, rows, (row) =>
      `<td>${escapeHtml(oneLine(row.title))}</td><td>${authorCell(row.author_id, labels, CELL_LENGTH)}</td><td>${escapeHtml(oneLine(row.body))}</td><td>${row.published ? "Yes" : "No"}</td>`,
    ),
  );
}

function layout(title, content, user) {
  return (
    `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · Bench blog</title><link rel="stylesheet" href="/style.css"></head>` +
    `<body><header><a href="/">Bench blog</a>` +
    (user === undefined ? "" : `<span class="user">Signed in as ${escapeHtml(user)}</span>`) +
    `</header><main>${content}</main><footer><p>© 2025 Bench blog &amp; friends</p></footer></body></html>`
  );
}

/** The headers fw sends with a page (security headers, no caching): the peer sends them too, so both answers weigh the same. */
export const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "content-security-policy": "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
  "referrer-policy": "strict-origin-when-cross-origin",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
};
