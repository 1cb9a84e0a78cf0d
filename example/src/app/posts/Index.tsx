import { BadRequest, countAhead, imageVariant, NotFound, PAGE_SIZE, pagesCounted, raw, type ImageVariant, type Order, type Request, type Store } from "fw";
import { Guarded } from "fw/auth";
import { live } from "fw/live";
import { path } from "../../.fw/paths.js";
import { auth } from "../../auth.js";
import { cache } from "../../cache.js";
import { Post } from "../../models/Post.js";

/** Open to everyone, as the derived Index it replaces. */
export const guarded = Guarded.public;

/** One line of the list: what it links to and what it says. */
interface Listed {
  readonly id: Post["id"];
  readonly title: string;
  readonly draft: boolean;
  readonly mine: boolean;
  /** The cover's thumbnail (200 × 200 at most, made on first request), served by the post's read rule. */
  readonly thumb: ImageVariant | undefined;
  /** A search's passage of the body around its matches (HTML: escaped, the matches in `<mark>`). */
  readonly snippet?: string;
}

/** What the page shows: the viewer's page of posts, and whether they may write one. */
interface Posts {
  readonly rows: readonly Listed[];
  readonly total: number;
  readonly page: number;
  /** The last page as far as the rows were counted (20 pages ahead), and whether more may follow it. */
  readonly last: number;
  readonly more: boolean;
  readonly signedIn: boolean;
  /** The order asked for (`?sort=title`, `?sort=-category`), undefined for the store's own. */
  readonly order: Order | undefined;
  /** The search text (`?q=`), undefined without one: the rows are then its hits, best first. */
  readonly search: string | undefined;
}

/** The longest search the page takes (characters); longer is a 400 saying so. */
const MAX_SEARCH = 200;

/** `?q=`: the search text, trimmed; absent or blank is no search. */
function searchOf(request: Request): string | undefined {
  const text = request.query.get("q")?.trim();
  if (text === undefined || text === "") return undefined;
  if (text.length > MAX_SEARCH) throw new BadRequest(`A search of the posts takes at most ${MAX_SEARCH} characters; this one has ${text.length}.`);
  return text;
}

/** The columns `?sort=` takes, as the derived Index sorts by any field it shows. */
const SORTABLE = ["title", "category", "published"] as const;

/** `?sort=`: a sortable field, `-` before it for descending; anything else is a 400 naming the choices. */
function orderOf(request: Request): Order | undefined {
  const text = request.query.get("sort");
  if (text === undefined) return undefined;
  const descending = text.startsWith("-");
  const field = descending ? text.slice(1) : text;
  if (!(SORTABLE as readonly string[]).includes(field)) {
    throw new BadRequest(`The posts cannot be sorted by ${JSON.stringify(text.slice(0, 40))}: sort by one of ${SORTABLE.join(", ")}, with "-" before it for descending order (?sort=-title).`);
  }
  return { field, descending };
}

/** The index's address for a page, an order and a search (page 1, no order, no search left out), as the derived Index writes it. */
function indexPath(page: number, order: Order | undefined, search?: string): string {
  return path("/posts", {}, { q: search, sort: order === undefined ? undefined : `${order.descending ? "-" : ""}${order.field}`, page: page === 1 ? undefined : page });
}

/** A sort link: ascending, or descending when the list is already sorted so by that field. */
function sortLink(state: Posts, field: (typeof SORTABLE)[number], label: string) {
  const sorted = state.order?.field === field;
  const next: Order = { field, descending: sorted && state.order?.descending !== true };
  return (
    <a href={indexPath(1, next)} aria-current={sorted ? "true" : undefined}>
      {label}
      {sorted ? (state.order?.descending === true ? " ↓" : " ↑") : ""}
    </a>
  );
}

/** `?page=` as the derived Index reads it: absent is 1, anything but a whole number from 1 is a 400. */
function pageOf(request: Request): number {
  const text = request.query.get("page");
  if (text === undefined) return 1;
  if (!/^[1-9][0-9]{0,8}$/.test(text)) throw new BadRequest(`The page number ${JSON.stringify(text.slice(0, 40))} is not a whole number from 1 up.`);
  return Number(text);
}

/**
 * The posts, read as the derived Index reads them: published posts for everyone, plus a signed-in
 * author's own drafts (the model's `publicWhen`, through `Post.readable`). A public page runs with
 * nobody as `currentUser`, so the viewer is whoever the session signs in, asked of the users
 * store as a guard would (`auth.identify`); on the socket, the session read at the handshake.
 */
async function load(request: Request, posts: Store<Post>): Promise<Posts> {
  const page = pageOf(request);
  const order = orderOf(request);
  const viewer = (await auth.identify(request)).currentUser;
  const offset = (page - 1) * PAGE_SIZE;
  // Counted 20 pages ahead only, as the derived Index counts: a page reads its rows, not the whole table.
  const countUpTo = countAhead(offset, PAGE_SIZE);
  const search = searchOf(request);
  const readable = Post.readable(posts, viewer);
  const read = () => readable.list({ offset, limit: PAGE_SIZE, countUpTo, ...(order === undefined ? {} : { order }) });
  // Every signed-out visitor sees the same published posts: kept in the cache (tagged `posts`, so
  // a write drops it) for five minutes at most. A signed-in viewer also sees their drafts: read.
  // A search is read each time.
  const key = `posts:index:${page}:${order === undefined ? "" : `${order.descending ? "-" : ""}${order.field}`}`;
  const plain = async () => ({ ...(viewer === undefined ? await cache.wrap(key, { tags: ["posts"], ttlMs: 5 * 60_000 }, read) : await read()), snippets: undefined });
  // A search's hits come best first (its rank), so `?sort=` orders the plain list only.
  const { rows, total, snippets } =
    search === undefined
      ? await plain()
      : await readable.search(search, { offset, limit: PAGE_SIZE, countUpTo }).then(({ hits, total }) => ({ rows: hits.map((hit) => hit.row), total, snippets: hits.map((hit) => hit.snippets.body) }));
  const { last, more } = pagesCounted(total, countUpTo, PAGE_SIZE);
  if (page > last) throw new NotFound(`There is no page ${page} of posts: there ${last === 1 ? "is 1 page" : `are ${last} pages`}.`);
  const listed = rows.map((post, i) => ({
    id: post.id,
    title: post.title,
    draft: !post.published,
    mine: viewer !== undefined && String(post.author) === viewer,
    thumb: post.cover === undefined ? undefined : imageVariant(post.cover, "thumb"),
    ...(snippets?.[i] === undefined ? {} : { snippet: snippets[i] }),
  }));
  return { rows: listed, total, page, last, more, signedIn: viewer !== undefined, order, search };
}

/**
 * `GET /posts`, replacing the derived Index alone (New, Show, Create… stay derived), as a live
 * page: it listens to the topic `posts`, which every write through the Post store publishes
 * (the build wraps each model's store in an app with live pages), so a post created, edited or
 * deleted anywhere shows here without a reload. A refresh mounts the page again: it reads the
 * rows afresh, as the viewer the page was opened by. No events: without JavaScript it is an
 * ordinary page of links.
 */
export const index = live({
  mount: (request: Request, { posts }: { posts: Store<Post> }) => load(request, posts),
  render: (state) => (
    <>
      <title>Posts</title>
      <h1>Posts</h1>
      {state.signedIn ? (
        <p>
          <a href="/posts/new" class="fw-new">New post</a>
        </p>
      ) : null}
      <form method="get" action="/posts" role="search" class="fw-filters">
        <label class="fw-search">
          Search posts <input type="search" name="q" value={state.search ?? ""} maxlength={String(MAX_SEARCH)} />
        </label>
        <button type="submit">Search</button>
        {state.search === undefined ? null : <a href="/posts" class="fw-clear">Clear</a>}
      </form>
      {state.rows.length < 2 || state.search !== undefined ? null : (
        <p class="fw-sort">
          Sort by {sortLink(state, "title", "title")}, {sortLink(state, "category", "category")}, {sortLink(state, "published", "published")}
        </p>
      )}
      {state.rows.length === 0 ? (
        <p class="fw-empty">{state.search === undefined ? "No posts yet." : "No posts match."}</p>
      ) : (
        <ul class="posts">
          {state.rows.map((post) => (
            <li>
              {post.thumb === undefined ? null : (
                // alt empty: the title beside it says what the post is.
                <img src={post.thumb.src} alt="" class="fw-thumb" width={String(post.thumb.width)} height={String(post.thumb.height)} loading="lazy" />
              )}
              <a href={path("/posts/:id", { id: post.id })}>{post.title}</a>
              {post.draft ? <span class="draft"> (draft)</span> : null}
              {post.snippet === undefined ? null : <p class="fw-snippet">{raw(post.snippet)}</p>}
              {post.mine ? (
                <>
                  {" "}
                  <a href={path("/posts/:id/edit", { id: post.id })} class="fw-edit">Edit</a>
                </>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      {state.last > 1 ? (
        <nav class="fw-pager" aria-label="Pages">
          {state.page > 1 ? <a href={indexPath(state.page - 1, state.order, state.search)} rel="prev">Previous</a> : null}
          <span>
            Page {state.page} of {state.last}
            {state.more ? " or more" : ""}
          </span>
          {state.page < state.last ? <a href={indexPath(state.page + 1, state.order, state.search)} rel="next">Next</a> : null}
        </nav>
      ) : null}
    </>
  ),
  topics: ["posts"],
});
