// The "realistic page" every server renders: one blog post (~2 KB of text that needs escaping)
// framed by a layout, with the signed-in user and the CSRF token read from fw's signed session
// cookie. fw builds it as a JSX tree (servers/fw.mjs); the peers use `renderPost` below, written
// by hand to produce the very same bytes, after `readSession` did fw's cookie check by hand.
import { createHmac, timingSafeEqual } from "node:crypto";

const LOREM = [
  `Benchmarks are "easy" to write & hard to read: a <b>number</b> without its spread, its machine and its baseline says little. Here every server does the same work, and the ratios are taken against a baseline measured in the same run, minutes apart at most.`,
  `fw renders pages from a tree, escaping text & attributes by default; the hand-written peers escape each value with a small function. Both produce the same bytes, so the comparison is fair <i>only</i> if both do the same work — the bench checks that before it measures.`,
  `A signed-cookie session costs an HMAC-SHA256 over the payload, a constant-time compare, a base64url decode and a JSON parse. It's the price of "stateless" sessions, paid on every request that reads one; a token for CSRF rides along in it.`,
  `Routing is a lookup in a segment trie: literal children by name, one parameter child, and a catch-all slot; ranks keep the table's order as the contract. The matcher never scans the table, so 10 routes or 10,000 cost about the same.`,
  `Layouts frame every HTML answer: the title is lifted from the page's first <title> and placed in the head, and the rest goes in <main>. Error pages are framed too, so a 404 looks like the site & not like a stack trace.`,
  `That's all: a page of about two kilobytes, a handful of tags, a form with a hidden token, and a few comments. Real pages are bigger, but this is the shape of most of them.`,
];

const COMMENTS = [
  { author: "Grace <grace@example.com>", text: `Nice write-up — "ratios in the same run" is the key.` },
  { author: "Linus & co", text: `What about 'keep-alive' off? <script>alert(1)</script>` },
  { author: "Barbara", text: `Escaping by default saves lives: & < > " ' all covered.` },
];

/** The posts every server knows, by id (1..20). */
export const POSTS = new Map();
for (let id = 1; id <= 20; id++) {
  POSTS.set(id, {
    id,
    title: `Post #${id}: "Fair" benchmarks & <other> stories`,
    author: "Ada Lovelace <ada@example.com>",
    date: "2025-06-01",
    paragraphs: LOREM,
    tags: ["bench", "http", "fw&co"],
    comments: COMMENTS,
  });
}

/** The id the load generator asks for. */
export const PAGE_PATH = "/posts/7";

export const SESSION_COOKIE = "fw_session";
export const MAX_AGE_MS = 14 * 24 * 60 * 60 * 1000;

const ESCAPE = /[&<>"']/g;
const ENTITIES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** What a hand-written server would use: one regex replace per value. */
export function escapeHtml(text) {
  return text.replace(ESCAPE, (c) => ENTITIES[c]);
}

/**
 * fw's session cookie, checked by hand: exactly one `fw_session` cookie, `payload.signature`
 * where the signature is base64url(HMAC-SHA256(secret, payload)), compared in constant time,
 * then base64url-decode and JSON.parse the payload and check its issue time.
 * Returns the entries ({ user, _csrf }) or undefined.
 */
export function readSession(cookieHeader, key, now = Date.now()) {
  if (cookieHeader === undefined) return undefined;
  let value;
  for (const part of cookieHeader.split(";")) {
    const eq = part.indexOf("=");
    if (eq === -1 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    if (value !== undefined) return undefined; // two session cookies: believe neither
    value = part.slice(eq + 1).trim();
  }
  if (value === undefined) return undefined;
  const dot = value.indexOf(".");
  if (dot <= 0 || dot !== value.lastIndexOf(".")) return undefined;
  const payload = value.slice(0, dot);
  const given = Buffer.from(value.slice(dot + 1), "base64url");
  const expected = createHmac("sha256", key).update(payload).digest();
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  let data;
  try {
    data = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  if (typeof data !== "object" || data === null || typeof data.i !== "number") return undefined;
  if (now - data.i * 1000 > MAX_AGE_MS) return undefined;
  const e = data.e;
  if (typeof e !== "object" || e === null) return undefined;
  return e;
}

/** `/posts/:id` with an integer id, as fw's FromPath.int reads it; undefined otherwise. */
export function postIdOf(path) {
  const m = /^\/posts\/(-?(?:0|[1-9][0-9]*))\/?$/.exec(path);
  return m === null ? undefined : Number(m[1]);
}

/** The whole document, by hand: the same bytes fw renders from its tree and layout. */
export function renderPost(post, user, csrf) {
  let paragraphs = "";
  for (const p of post.paragraphs) paragraphs += `<p>${escapeHtml(p)}</p>`;
  let tags = "";
  for (const t of post.tags) tags += `<li><a href="/tags/${escapeHtml(t)}">${escapeHtml(t)}</a></li>`;
  let comments = "";
  for (const c of post.comments) comments += `<div class="comment"><b>${escapeHtml(c.author)}</b><p>${escapeHtml(c.text)}</p></div>`;
  const content =
    `<article><h1>${escapeHtml(post.title)}</h1><p class="meta">By ${escapeHtml(post.author)} · ${escapeHtml(post.date)}</p>` +
    paragraphs +
    `<ul class="tags">${tags}</ul></article>` +
    `<section class="comments"><h2>Comments</h2>${comments}` +
    `<form method="post" action="/posts/${post.id}/comments"><input type="hidden" name="_csrf" value="${escapeHtml(csrf)}">` +
    `<textarea name="text"></textarea><button type="submit">Comment</button></form></section>`;
  return layout(post.title, content, user);
}

function layout(title, content, user) {
  return (
    `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(title)} · Bench blog</title><link rel="stylesheet" href="/style.css"></head>` +
    `<body><header><a href="/">Bench blog</a><nav><a href="/posts">Posts</a><a href="/about">About</a></nav>` +
    (user === undefined ? "" : `<span class="user">Signed in as ${escapeHtml(user)}</span>`) +
    `</header><main>${content}</main><footer><p>© 2025 Bench blog &amp; friends</p></footer></body></html>`
  );
}

export const HELLO = "Hello, World!";
