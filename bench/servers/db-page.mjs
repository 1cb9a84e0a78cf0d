// The database bench's pages by hand (bench/db.mjs): what fw's derived pages of the bench app
// (bench/servers/db-app) render, written as a hand-written app would, for
// bench/servers/db-fastify.mjs. The bench checks, before it measures, that both servers send the
// very same bytes. The SQL is the very statements fw's SqlStore sends.
//  - Article (the "articles" table, no references): Show (one row by key) and Index (a page of 50).
//  - Post (by an Author, in a category, with Tags and Comments): Show with the author's name and
//    the tags' names as links and the post's comments (20 a page), and Index with each post's
//    author and tags as links (the tags read from the join table posts_tags, one statement for
//    the page, their names in one more), a search box: the relations' pages.
//  - An Index (issue 43) pages by key: its first page by OFFSET 0, the next ones after (or
//    before) a row's key, a cursor in the URL (`?after=WzUwXQ`: base64url JSON `[50]`, as fw
//    writes it for key order), one row more than the page read to know whether more follow; its
//    rows counted 10 pages ahead beside them; a filter form of its yes/no and reference fields
//    (the authors to choose from read in parallel with the page) and a page-size choice; a pager
//    saying how many rows there are, with Previous and Next.
import { escapeHtml } from "./page.mjs";

export const PAGE_SIZE = 50;
/** Rows per list of a post's comments on its Show (fw's RELATED_PAGE_SIZE). */
export const RELATED_PAGE_SIZE = 20;
/** The most characters an index cell, a heading and a label show (fw's CELL_LENGTH, HEADING_LENGTH). */
const CELL_LENGTH = 80;
const HEADING_LENGTH = 120;

/** How many pages past the one shown a derived list counts its rows (fw's PAGES_AHEAD, runtime/resource/page-count.ts). */
const PAGES_AHEAD = 10;
/** The `countUpTo` of a list's page at `offset` (fw's countAhead): the rows up to 10 pages past it, and one more. */
export function countAhead(offset, pageSize) {
  return offset + PAGES_AHEAD * pageSize + 1;
}

/** A list's statement as SqlStore.list({ offset, limit, where, countUpTo }) sends it: a page of rows and beside each the total, counted up to the cap (a subquery with a LIMIT). */
function listSql(columns, table, where, capAt, order = `"id"`) {
  const counted = `(SELECT count(*) FROM (SELECT 1 FROM "${table}"${where} LIMIT $${capAt}) AS fw_counted)`;
  return `SELECT ${columns}, ${counted} AS fw_total FROM "${table}"${where} ORDER BY ${order} LIMIT $1 OFFSET $2`;
}

/**
 * A keyset page of a list in key order as SqlStore sends it: the rows after (or before) the
 * cursor's key (`"id" >= $3 AND "id" > $4`: a bound on the sort's first column, then past the
 * cursor on it), read backwards for "before"; the whole list counted beside them up to the cap.
 * [limit + 1, 0, key, key, countUpTo]
 */
function keysetSql(columns, table, direction) {
  const [bound, past, order] = direction === "after" ? [">=", ">", `"id"`] : ["<=", "<", `"id" DESC`];
  const counted = `(SELECT count(*) FROM (SELECT 1 FROM "${table}" LIMIT $5) AS fw_counted)`;
  return `SELECT ${columns}, ${counted} AS fw_total FROM "${table}" WHERE "id" ${bound} $3 AND "id" ${past} $4 ORDER BY ${order} LIMIT $1 OFFSET $2`;
}

const ARTICLE_COLUMNS = `"id", "title", "author", "body", "rating", "published", "fw_version"`;
/** SqlStore.get(key) */
export const ARTICLE_SQL = `SELECT ${ARTICLE_COLUMNS} FROM "articles" WHERE "id" = $1`;
/** The Index's first page (and a `?page=` one): [limit, offset, countUpTo]. */
export const ARTICLES_SQL = listSql(ARTICLE_COLUMNS, "articles", "", 3);
/** The Index's pages after and before a cursor: [limit + 1, 0, key, key, countUpTo]. */
export const ARTICLES_AFTER_SQL = keysetSql(ARTICLE_COLUMNS, "articles", "after");
export const ARTICLES_BEFORE_SQL = keysetSql(ARTICLE_COLUMNS, "articles", "before");
/** The Index's count when its page came back empty (SqlTable.count): [countUpTo]. */
export const ARTICLES_COUNT_SQL = `SELECT count(*) AS n FROM (SELECT 1 FROM "articles" LIMIT $1) AS fw_counted`;

const POST_COLUMNS = `"id", "title", "author_id", "body", "published", "category", "fw_version"`;
export const POST_SQL = `SELECT ${POST_COLUMNS} FROM "posts" WHERE "id" = $1`;
/** [limit, offset, countUpTo] */
export const POSTS_SQL = listSql(POST_COLUMNS, "posts", "", 3);
/** [limit + 1, 0, key, key, countUpTo] */
export const POSTS_AFTER_SQL = keysetSql(POST_COLUMNS, "posts", "after");
export const POSTS_BEFORE_SQL = keysetSql(POST_COLUMNS, "posts", "before");
export const POSTS_COUNT_SQL = `SELECT count(*) AS n FROM (SELECT 1 FROM "posts" LIMIT $1) AS fw_counted`;
/** The most authors the posts' filter lists in a select (fw's PICKER_LIMIT); the bench seeds 25. */
export const CHOICES_LIMIT = 100;
/** The authors the posts' filter offers, by name (by code point, as fw sorts text), counted one past the limit: [limit, 0, limit + 1]. */
export const AUTHOR_CHOICES_SQL = listSql(`"id", "name", "email", "fw_version"`, "authors", "", 3, `"name" COLLATE "C" ASC, "id"`);
/** [limit + 1] */
export const AUTHORS_COUNT_SQL = `SELECT count(*) AS n FROM (SELECT 1 FROM "authors" LIMIT $1) AS fw_counted`;
/** The tags the posts' filter offers, by name, counted one past the limit: [limit, 0, limit + 1]. */
export const TAG_CHOICES_SQL = listSql(`"id", "name", "fw_version"`, "tags", "", 3, `"name" COLLATE "C" ASC, "id"`);
/** [limit + 1] */
export const TAGS_COUNT_SQL = `SELECT count(*) AS n FROM (SELECT 1 FROM "tags" LIMIT $1) AS fw_counted`;
/** The tags a page names, by key: [count, 0, keys] (as the authors' labels). */
export const TAGS_SQL = `SELECT "id", "name", "fw_version", count(*) OVER () AS fw_total FROM "tags" WHERE "id" = ANY($3::bigint[]) ORDER BY "id" LIMIT $1 OFFSET $2`;
/** The tags of a page's posts, from the join table, one statement for all of them: [keys as an array literal, `{1,2,3}`]. */
export const POST_TAGS_SQL = `SELECT "post_id" AS f, "tag_id" AS t FROM "posts_tags" WHERE "post_id" = ANY($1::bigint[]) ORDER BY "post_id", "tag_id"`;
/** The labels of a page's references: the authors it names, in one statement (`where: { id: [keys] }`, no countUpTo: counted exactly). */
export const AUTHORS_SQL = `SELECT "id", "name", "email", "fw_version", count(*) OVER () AS fw_total FROM "authors" WHERE "id" = ANY($3::bigint[]) ORDER BY "id" LIMIT $1 OFFSET $2`;
/** A post's comments, a page of them (`where: { post: key }`, counted 10 pages ahead): [limit, offset, post, countUpTo]. */
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

/** The largest key fw's Id holds (its cursor reader's bound). */
const MAX_KEY = 4_294_967_295;
/** The longest cursor fw reads. */
const MAX_CURSOR = 16_384;

/** A row's cursor in a list in key order: its key in a JSON array, base64url (pg reads a bigint as a string: a number here, as fw writes it). */
export function cursorOf(key) {
  return Buffer.from(JSON.stringify([Number(key)]), "utf8").toString("base64url");
}

/** The key a cursor holds; undefined for anything a list in key order did not write. */
function cursorKey(text) {
  if (text.length === 0 || text.length > MAX_CURSOR || !/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  let values;
  try {
    values = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  const key = Array.isArray(values) && values.length === 1 ? values[0] : undefined;
  return Number.isSafeInteger(key) && key >= 1 && key <= MAX_KEY ? key : undefined;
}

/**
 * What an Index's URL asks for: `{ page }` (1 when absent), `{ after: key }` or `{ before: key }`;
 * undefined (a 400) for a bad value, a parameter given twice or both cursors. The peer's Index
 * lists in key order, 50 a page, unfiltered: `?sort=`, `?size=` and the filters its form offers
 * are not written by hand here (the bench never sends them), and are a 400 too.
 */
export function indexQueryOf(query) {
  const names = Object.keys(query);
  if (names.some((name) => !["page", "after", "before"].includes(name) || typeof query[name] !== "string")) return undefined;
  if (query.after !== undefined && query.before !== undefined) return undefined;
  for (const direction of ["after", "before"]) {
    if (query[direction] === undefined) continue;
    const key = cursorKey(query[direction]);
    return key === undefined ? undefined : { [direction]: key };
  }
  const page = pageOf(query.page);
  return page === undefined ? undefined : { page };
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

/** The labels of the tags a page names, by key. */
export function tagLabels(rows) {
  return new Map(rows.map((row) => [row.id, labelOf([row.name], `Tag ${row.id}`)]));
}

/** A post's tags as a page shows them: each a link with the tag's name ("Tag 7" when there is no such row), in key order, comma-separated. */
function tagsCell(keys, labels, limit) {
  return keys.map((key) => (labels.has(key) ? `<a href="/tags/${key}">${escapeHtml(oneLine(labels.get(key), limit))}</a>` : `Tag ${key}`)).join(", ");
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
 * pager says "of 11 or more".
 */
export function pagesCounted(total, page, pageSize) {
  const countUpTo = countAhead((page - 1) * pageSize, pageSize);
  if (total >= countUpTo) return { last: Math.ceil(countUpTo / pageSize), more: true };
  return { last: Math.max(1, Math.ceil(total / pageSize)), more: false };
}

/** The pager of a post's comments (numbered pages). */
function pager(page, { last, more }, at, label = "Pages") {
  if (last <= 1) return "";
  return (
    `<nav class="fw-pager" aria-label="${label}">${page > 1 ? `<a href="${at(page - 1)}" rel="prev">Previous</a>` : ""}` +
    `<span>Page ${page} of ${last}${more ? " or more" : ""}</span>${page < last ? `<a href="${at(page + 1)}" rel="next">Next</a>` : ""}</nav>`
  );
}

/**
 * An Index's page in key order, 50 a page: the first (or a `?page=` one) by offset, else the 50
 * rows after or before a cursor. `rows` as the statement gave them (for a cursor: up to 51, read
 * backwards before it), `total` counted up to `cap`. Returns the rows to show, what the pager says
 * and where its links go (undefined: no such page).
 */
export function indexPageOf(query, rows, total, cap) {
  const keyset = query.page === undefined;
  const more = keyset && rows.length > PAGE_SIZE;
  const kept = rows.slice(0, PAGE_SIZE);
  if (query.before !== undefined) kept.reverse();
  const offset = keyset ? 0 : (query.page - 1) * PAGE_SIZE;
  const first = kept[0];
  const last = kept[kept.length - 1];
  let previous;
  let next;
  if (first !== undefined) {
    if (keyset ? query.after !== undefined || more : query.page > 1) previous = first.id;
    if (keyset ? query.before !== undefined || more : total > offset + kept.length) next = last.id;
  }
  const counted = total >= cap;
  return { rows: kept, previous, next, total: counted ? cap - 1 : total, more: counted, shown: previous !== undefined || next !== undefined || total > kept.length };
}

/** The Index's filter form: the search box (a searchable model's), a control per filterable field (each already HTML), the page size (50), Filter (Search with a search box). */
function filterForm(path, controls, search) {
  return (
    `<form method="get" action="${path}" class="fw-filters" role="search">` +
    (search === undefined ? "" : `<label class="fw-search">${search} <input type="search" name="q" value="" maxlength="200"></label>`) +
    `${controls}<label class="fw-size">Per page <select name="size"><option value="10">10</option><option value="25">25</option><option value="50" selected>50</option><option value="100">100</option></select></label>` +
    `<button type="submit">${search === undefined ? "Filter" : "Search"}</button></form>`
  );
}

/** A select filter of `choices` (key → label, in the order offered), Any chosen. */
function selectFilter(name, label, choices) {
  let options = `<option value="" selected>Any</option>`;
  for (const [key, text] of choices) options += `<option value="${key}">${escapeHtml(text)}</option>`;
  return `<label class="fw-filter">${label} <select name="${name}">${options}</select></label>`;
}

/** A yes/no field's filter: a checkbox, unticked. */
function checkboxFilter(name, label) {
  return `<label class="fw-filter"><input type="checkbox" name="${name}" value="true"> ${label}</label>`;
}

/** The keyset pager: Previous (before the first row shown), how many rows there are, Next (after the last). */
function keysetPager(words, page) {
  if (!page.shown) return "";
  const count = `${page.total.toLocaleString("en")}${page.more ? " or more" : ""} ${words.many.toLowerCase()}`;
  return (
    `<nav class="fw-pager" aria-label="Pages">${page.previous === undefined ? "" : `<a href="${words.path}?before=${cursorOf(page.previous)}" rel="prev">Previous</a>`}` +
    `<span>${count}</span>${page.next === undefined ? "" : `<a href="${words.path}?after=${cursorOf(page.next)}" rel="next">Next</a>`}</nav>`
  );
}

/** An Index page: its heading, "New …", the filter form (with `search`'s box), the table (or "No … yet.") and the pager. */
function indexPage(words, page, filters, user, table, search) {
  const body = page.rows.length === 0 ? `<p class="fw-empty">No ${words.many.toLowerCase()} yet.</p>` : table();
  return layout(words.many, `<h1>${words.many}</h1><p><a href="${words.path}/new" class="fw-new">New ${words.one}</a></p>${filterForm(words.path, filters, search)}${body}${keysetPager(words, page)}`, user);
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

/** The articles' Index: `page` from indexPageOf; the form filters by Published (the one yes/no field). */
export function renderArticles(page, user) {
  const headings = sortHeadings(ARTICLES.path, articleFields({ title: "", author: "", body: "", rating: 0, published: false }));
  return indexPage(ARTICLES, page, checkboxFilter("published", "Published"), user, () =>
    rowsTable(headings, ARTICLES.path, page.rows, (row) => {
      let cells = "";
      for (const [, , value] of articleFields(row)) cells += `<td>${escapeHtml(oneLine(value))}</td>`;
      return cells;
    }),
  );
}

// ---------- Post: by an author, with comments ----------

const POSTS = { many: "Posts", one: "post", path: "/posts" };
/** A list is not a sort key: the Tags heading does not sort. */
const POST_HEADINGS = sortHeadings(POSTS.path, [["Title", "title"], ["Author", "author"], ["Body", "body"], ["Published", "published"], ["Category", "category"]]) + `<th scope="col">Tags</th>`;
/** The posts' categories, in the order the model's union names them. */
const CATEGORIES = ["news", "howto", "misc"];
const COMMENT_HEADINGS = `<th scope="col">Name</th><th scope="col">Body</th>`;

/**
 * A post's Show: its fields (the author as a link with its name), then its comments: a page of
 * 20 in key order in a table like the comments' Index without the post column, a pager past 20,
 * and "Add a comment" pre-filling the post.
 */
export function renderPost(key, row, tags, labels, tagNames, comments, commentsTotal, commentsPage, user) {
  const dl =
    `<dt>Title</dt><dd>${withLineBreaks(row.title)}</dd>` +
    `<dt>Author</dt><dd>${authorCell(row.author_id, labels, HEADING_LENGTH)}</dd>` +
    `<dt>Body</dt><dd>${withLineBreaks(row.body)}</dd>` +
    `<dt>Published</dt><dd>${row.published ? "Yes" : "No"}</dd>` +
    `<dt>Category</dt><dd>${withLineBreaks(row.category)}</dd>` +
    `<dt>Tags</dt><dd>${tagsCell(tags, tagNames, HEADING_LENGTH)}</dd>`;
  const counted = pagesCounted(commentsTotal, commentsPage, RELATED_PAGE_SIZE);
  const list =
    comments.length === 0
      ? `<p class="fw-empty">No comments yet.</p>`
      : rowsTable(COMMENT_HEADINGS, "/comments", comments, (c) => `<td>${escapeHtml(oneLine(c.name))}</td><td>${escapeHtml(oneLine(c.body))}</td>`);
  const pages = pager(commentsPage, counted, (n) => `${POSTS.path}/${key}${n === 1 ? "" : `?comments_page=${n}`}#comments`, "Pages of comments");
  const section = `<section class="fw-related" id="comments"><h2>Comments</h2>${list}${pages}<p><a href="/comments/new?post=${key}" class="fw-new">Add a comment</a></p></section>`;
  return showPage(POSTS, key, labelOf([row.title], `Post ${key}`), dl, user, section);
}

/**
 * The posts' Index: a page of 50 (`page` from indexPageOf), each post's author and tags as links
 * with their names (labels loaded once for the page; `tags`: each post's tag keys by its key);
 * the form searches the posts and filters by author and by tag (selects of `choices` and
 * `tagChoices`, labels by key in name order), by Published and by category.
 */
export function renderPosts(page, tags, labels, tagNames, choices, tagChoices, user) {
  const filters =
    selectFilter("author", "Author", choices) +
    checkboxFilter("published", "Published") +
    selectFilter("category", "Category", CATEGORIES.map((c) => [c, c])) +
    selectFilter("tags", "Tags", tagChoices);
  return indexPage(
    POSTS,
    page,
    filters,
    user,
    () =>
      rowsTable(POST_HEADINGS, POSTS.path, page.rows, (row) =>
        `<td>${escapeHtml(oneLine(row.title))}</td><td>${authorCell(row.author_id, labels, CELL_LENGTH)}</td><td>${escapeHtml(oneLine(row.body))}</td><td>${row.published ? "Yes" : "No"}</td>` +
        `<td>${escapeHtml(oneLine(row.category))}</td><td>${tagsCell(tags.get(row.id) ?? [], tagNames, CELL_LENGTH)}</td>`,
      ),
    "Search posts",
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
