// The database bench's pages by hand (bench/db.mjs): what fw's derived Show and Index of the
// bench app (bench/servers/db-app) render for the "posts" table, written as a hand-written app
// would, for bench/servers/db-fastify.mjs. The bench checks, before it measures, that both
// servers send the very same bytes. The SQL is the very statements fw's SqlStore sends.
import { escapeHtml } from "./page.mjs";

const COLUMNS = `"id", "title", "author", "body", "rating", "published", "fw_version"`;
/** SqlStore.get(key) */
export const SHOW_SQL = `SELECT ${COLUMNS} FROM "posts" WHERE "id" = $1`;
/** SqlStore.list({ offset, limit }): a page of rows and the total beside each. */
export const INDEX_SQL = `SELECT ${COLUMNS}, count(*) OVER () AS fw_total FROM "posts" ORDER BY "id" LIMIT $1 OFFSET $2`;
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

function fields(row) {
  return [
    ["Title", escapeHtml(row.title)],
    ["Author", escapeHtml(row.author)],
    ["Body", escapeHtml(row.body)],
    ["Rating", escapeHtml(String(row.rating))],
    ["Published", row.published ? "Yes" : "No"],
  ];
}

export function renderShow(key, row, user, csrf) {
  let dl = "";
  for (const [label, value] of fields(row)) dl += `<dt>${label}</dt><dd>${value}</dd>`;
  const at = `/posts/${key}`;
  const content =
    `<h1>Post ${key}</h1><dl class="fw-show">${dl}</dl>` +
    `<p class="fw-controls"><a href="${at}/edit" class="fw-edit">Edit</a>` +
    `<form method="post" action="${at}" class="fw-destroy"><input type="hidden" name="_method" value="DELETE">` +
    `<input type="hidden" name="_csrf" value="${escapeHtml(csrf)}"><button type="submit">Delete</button></form></p>` +
    `<p><a href="/posts" class="fw-back">Back to posts</a></p>`;
  return layout(`Post ${key}`, content, user);
}

export function renderIndex(page, rows, total, user) {
  const last = Math.max(1, Math.ceil(total / PAGE_SIZE));
  let body = "";
  for (const row of rows) {
    let cells = "";
    for (const [, value] of fields(row)) cells += `<td>${value}</td>`;
    body += `<tr>${cells}<td><a href="/posts/${row.id}">Show</a> <a href="/posts/${row.id}/edit">Edit</a></td></tr>`;
  }
  const table =
    rows.length === 0
      ? `<p class="fw-empty">No posts yet.</p>`
      : `<table class="fw-index"><thead><tr><th scope="col">Title</th><th scope="col">Author</th><th scope="col">Body</th><th scope="col">Rating</th>` +
        `<th scope="col">Published</th><th scope="col"><span class="fw-hidden">Links</span></th></tr></thead><tbody>${body}</tbody></table>`;
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
  "content-security-policy": "frame-ancestors 'none'",
  "referrer-policy": "strict-origin-when-cross-origin",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
};
