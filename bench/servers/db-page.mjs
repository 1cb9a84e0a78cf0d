// The database bench's pages by hand (bench/db.mjs): what fw's derived Show and Index of the
// bench app (bench/servers/db-app) render for the "posts" table, written as a hand-written app
// would, for bench/servers/db-fastify.mjs. The bench checks, before it measures, that both
// servers send the very same bytes. The SQL is the very statements fw's SqlStore sends.
import { escapeHtml } from "./page.mjs";

const COLUMNS = `"id", "title", "author", "body", "rating", "published", "fw_version"`;
/** SqlStore.get(key) */
export const SHOW_SQL = `SELECT ${COLUMNS} FROM "posts" WHERE "id" = $1`;
/** SqlStore.list({ offset, limit, countUpTo }): a page of rows and beside each the total, counted up to $3 (the derived Index's: 20 pages ahead). */
export const INDEX_SQL = `SELECT ${COLUMNS}, (SELECT count(*) FROM (SELECT 1 FROM "posts" LIMIT $3) AS fw_counted) AS fw_total FROM "posts" ORDER BY "id" LIMIT $1 OFFSET $2`;
export const PAGE_SIZE = 50;

/** A key as fw's Id decoder reads it: a positive whole number. */
export function keyOf(text) {
  return /^[1-9][0-9]{0,15}$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : undefined;
}

/** `?page=` as fw's Index reads it (1 when absent); undefined when it is not a page number. */
export function pageOf(text) {
  if (text === undefined) return 1;
  return /^[1-9][0-9]{0,8}$/.test(text) ? Number(text) : undefined;
}

/** Each shown field's text, as fw's derived pages display it (before escaping). */
function fields(row) {
  return [
    ["Title", "title", row.title],
    ["Author", "author", row.author],
    ["Body", "body", row.body],
    ["Rating", "rating", String(row.rating)],
    ["Published", "published", row.published ? "Yes" : "No"],
  ];
}

/** A long text on Show keeps its line breaks, as `<br>`s. */
function withLineBreaks(text) {
  return text.split(/\r\n?|\n/).map(escapeHtml).join("<br>");
}

/** An Index cell: the first line, at most 80 code points, then "…" when there was more (walking no further than that). */
function oneLine(text, limit = 80) {
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

export function renderShow(key, row, user) {
  let dl = "";
  for (const [label, , value] of fields(row)) dl += `<dt>${label}</dt><dd>${withLineBreaks(value)}</dd>`;
  const at = `/posts/${key}`;
  // The heading is the row's first text, as fw's derived Show's.
  const heading = row.title.trim() === "" ? `Post ${key}` : row.title;
  const content =
    `<h1>${escapeHtml(heading)}</h1><dl class="fw-show">${dl}</dl>` +
    `<p class="fw-controls"><a href="${at}/edit" class="fw-edit">Edit</a> <a href="${at}/delete" class="fw-destroy">Delete</a></p>` +
    `<p><a href="/posts" class="fw-back">Back to posts</a></p>`;
  return layout(heading, content, user);
}

export function renderIndex(page, rows, total, user) {
  const last = Math.max(1, Math.ceil(total / PAGE_SIZE));
  let body = "";
  for (const row of rows) {
    let cells = "";
    for (const [, , value] of fields(row)) cells += `<td>${escapeHtml(oneLine(value))}</td>`;
    body += `<tr>${cells}<td><a href="/posts/${row.id}">Show</a> <a href="/posts/${row.id}/edit">Edit</a></td></tr>`;
  }
  let headings = "";
  for (const [label, name] of fields({ title: "", author: "", body: "", rating: 0, published: false })) headings += `<th scope="col"><a href="/posts?sort=${name}">${label}</a></th>`;
  const table =
    rows.length === 0
      ? `<p class="fw-empty">No posts yet.</p>`
      : `<table class="fw-index"><thead><tr>${headings}<th scope="col"><span class="fw-hidden">Links</span></th></tr></thead><tbody>${body}</tbody></table>`;
  const pager =
    last <= 1
      ? ""
      : `<nav class="fw-pager" aria-label="Pages">${page > 1 ? `<a href="/posts?page=${page - 1}" rel="prev">Previous</a>` : ""}` +
        `<span>Page ${page} of ${last}</span>${page < last ? `<a href="/posts?page=${page + 1}" rel="next">Next</a>` : ""}</nav>`;
  return layout("Posts", `<h1>Posts</h1><p><a href="/posts/new" class="fw-new">New post</a></p>${table}${pager}`, user);
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
