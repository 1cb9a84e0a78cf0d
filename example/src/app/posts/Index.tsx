import { BadRequest, countAhead, imageVariant, NotFound, PAGE_SIZE, pagesCounted, raw, type ImageVariant, type Order, type Request, type Store } from "fw";
import { live } from "fw/live";
import { Guarded } from "fw/auth";
import { path } from "../../.fw/paths.js";
import { auth } from "../../auth.js";
import { cache } from "../../cache.js";
import { Post } from "../../models/Post.js";
import type { Tag } from "../../models/Tag.js";
import { CATEGORIES, cursorOf, type Boundary, type SortField } from "./list-cursor.js";
import { filtered, MAX_SEARCH, NEWEST_FIRST, readListQuery, whereOf, type ListQuery } from "./list-query.js";

/** Open to everyone, as the derived Index it replaces. */
export const guarded = Guarded.public;

/** A tag as the page shows it: its key (the filter's value, the link) and its name. */
interface Named {
  readonly id: number;
  readonly name: string;
}

/** One line of the list: what it links to and what it says. */
interface Listed {
  readonly id: Post["id"];
  readonly title: string;
  readonly draft: boolean;
  readonly author: string | undefined;
  readonly category: Post["category"];
  /** The day it was written, `YYYY-MM-DD` (UTC). */
  readonly day: string;
  readonly tags: readonly Named[];
  /** The cover's thumbnail (200 × 200 at most, made on first request), served by the post's read rule. */
  readonly thumb: ImageVariant | undefined;
  /** A search's passage of the body around its matches (HTML: escaped, the matches in `<mark>`). */
  readonly snippet?: string;
}

/** A page of the list as it is read (and, for a signed-out visitor's first page, cached): plain values only. */
interface Listing {
  readonly rows: readonly Listed[];
  /** How many posts the list holds, counted 10 pages ahead at most, and whether more may follow. */
  readonly total: number;
  readonly more: boolean;
  /** The Previous and Next links (keyset cursors of this page's first and last rows; a search's by page number). */
  readonly previous?: string;
  readonly next?: string;
  /** The tags the filter offers, by name. */
  readonly choices: readonly Named[];
}

/** What the page shows: the viewer's page of posts, the URL's query it was read for, and whether they may write one. */
interface Posts extends Listing {
  readonly query: ListQuery;
  readonly signedIn: boolean;
  readonly viewer: string | undefined;
}

/** The most tags the filter's select offers (a tag past them is still filtered by from its own page's link). */
const TAG_CHOICES = 100;

/** The sort as `?sort=` spells it, undefined for the list's own. */
function sortText(order: Order | undefined): string | undefined {
  return order === undefined ? undefined : `${order.descending ? "-" : ""}${order.field}`;
}

/** The list's address with the filters and search of `query`, and what a link changes: the sort, a cursor, a page (none of them: the first page). */
function listPath(query: ListQuery, change: { sort?: Order | undefined; after?: string; before?: string; page?: number } = {}): string {
  const sort = "sort" in change ? change.sort : query.sort;
  return path("/posts", {}, {
    q: query.search,
    category: query.category,
    tags: query.tag,
    "createdAt.from": query.from,
    "createdAt.to": query.to,
    sort: sortText(sort),
    after: change.after,
    before: change.before,
    page: change.page === undefined || change.page === 1 ? undefined : change.page,
  });
}

/** The rows' tags by name, in one query for the whole page; and the filter's choices (with the tag filtered by, past the first 100). */
async function tagNames(rows: readonly Post[], tags: Store<Tag>, filteredBy: Tag | undefined): Promise<{ names: Map<number, string>; choices: Named[] }> {
  const keys = [...new Set(rows.flatMap((post) => post.tags))];
  const [named, offered] = await Promise.all([
    keys.length === 0 ? { rows: [] } : tags.list({ where: { id: keys }, limit: keys.length }),
    tags.list({ limit: TAG_CHOICES, order: { field: "name", descending: false } }),
  ]);
  const choices = offered.rows.map((tag) => ({ id: tag.id as number, name: tag.name }));
  if (filteredBy !== undefined && !choices.some((tag) => tag.id === filteredBy.id)) choices.push({ id: filteredBy.id, name: filteredBy.name });
  return { names: new Map(named.rows.map((tag) => [tag.id as number, tag.name])), choices };
}

/**
 * One page of the list: a search's hits (ranked, paged by number) or the sorted list a keyset
 * page at a time (by `?after=`/`?before=`, `?page=` only for links written before), the filters
 * applied to either; counted 10 pages ahead, as the derived Index counts.
 */
async function readListing(query: ListQuery, readable: Store<Post>, tags: Store<Tag>, filteredBy: Tag | undefined): Promise<Listing> {
  const keyset = query.after !== undefined || query.before !== undefined;
  const offset = keyset ? 0 : (query.page - 1) * PAGE_SIZE;
  const countUpTo = countAhead(offset, PAGE_SIZE);
  const where = whereOf(query);
  const sort = query.sort ?? NEWEST_FIRST;
  const boundary = (post: Post): string => cursorOf(post, sort.field);
  const page: { rows: readonly Post[]; total: number; more?: boolean | undefined; snippets?: readonly (string | undefined)[] } =
    query.search === undefined
      ? await readable.list({
          offset,
          limit: PAGE_SIZE,
          countUpTo,
          where,
          // Ties by the key in the same direction: a descending list is the exact reverse of the ascending one.
          order: [sort, { field: "id", descending: sort.descending }],
          ...(query.after === undefined ? {} : { after: query.after satisfies Boundary }),
          ...(query.before === undefined ? {} : { before: query.before satisfies Boundary }),
        })
      : await readable.search(query.search, { offset, limit: PAGE_SIZE, countUpTo, where }).then(({ hits, total }) => ({ rows: hits.map((hit) => hit.row), total, more: undefined, snippets: hits.map((hit) => hit.snippets.body) }));
  const { rows, total } = page;
  const counted = pagesCounted(total, countUpTo, PAGE_SIZE);
  if (!keyset && query.page > counted.last) throw new NotFound(`There is no page ${query.page} of posts: there ${counted.last === 1 ? "is 1 page" : `are ${counted.last} pages`}.`);
  const { names, choices } = await tagNames(rows, tags, filteredBy);
  const snippets = page.snippets;
  const first = rows[0];
  const last = rows[rows.length - 1];
  const more = page.more === true;
  // A search pages by number (its hits are ranked); a list by its sort key.
  const previous =
    first === undefined ? undefined
    : query.search !== undefined ? (query.page > 1 ? listPath(query, { page: query.page - 1 }) : undefined)
    : (!keyset && query.page > 1) || query.after !== undefined || (query.before !== undefined && more) ? listPath(query, { before: boundary(first) })
    : undefined;
  const next =
    last === undefined ? undefined
    : query.search !== undefined ? (total > offset + rows.length ? listPath(query, { page: query.page + 1 }) : undefined)
    : (!keyset && total > offset + rows.length) || query.before !== undefined || (query.after !== undefined && more) ? listPath(query, { after: boundary(last) })
    : undefined;
  const listed = rows.map((post, i): Listed => ({
    id: post.id,
    title: post.title,
    draft: !post.published,
    author: post.author === undefined ? undefined : String(post.author),
    category: post.category,
    day: post.createdAt.toISOString().slice(0, 10),
    tags: post.tags.flatMap((key) => (names.has(key) ? [{ id: key as number, name: names.get(key) as string }] : [])),
    thumb: post.cover === undefined ? undefined : imageVariant(post.cover, "thumb"),
    ...(snippets?.[i] === undefined ? {} : { snippet: snippets[i] }),
  }));
  return {
    rows: listed,
    total: counted.more ? countUpTo - 1 : total,
    more: counted.more,
    choices,
    ...(previous === undefined ? {} : { previous }),
    ...(next === undefined ? {} : { next }),
  };
}

/**
 * The posts, read as the derived Index reads them: published posts for everyone, plus a signed-in
 * author's own drafts (the model's `publicWhen`, through `Post.readable`). A public page runs with
 * nobody as `currentUser`, so the viewer is whoever the session signs in, asked of the users
 * store as a guard would (`auth.identify`); on the socket, the session read at the handshake.
 * A tag the URL names that does not exist is a 400 naming `?tags=` (tags are everyone's to read,
 * so saying so reveals nothing).
 */
async function load(request: Request, posts: Store<Post>, tags: Store<Tag>): Promise<Posts> {
  const query = readListQuery(request.query);
  const viewer = (await auth.identify(request)).currentUser;
  const filteredBy = query.tag === undefined ? undefined : await tags.get(query.tag);
  if (query.tag !== undefined && filteredBy === undefined) throw new BadRequest(`There is no tag ${query.tag} to filter the posts by (?tags=${query.tag}): choose one of the tags the list offers.`);
  const read = () => readListing(query, Post.readable(posts, viewer), tags, filteredBy);
  // Every signed-out visitor sees the same first page of published posts: kept in the cache
  // (tagged `posts`, so a write of a post or a tag drops it) for five minutes at most. A signed-in
  // viewer also sees their drafts: read. A filter, a search or a later page is read each time
  // (their addresses are as many as visitors can write, and the cache is the database's).
  const cached = viewer === undefined && !filtered(query) && query.after === undefined && query.before === undefined && query.page === 1;
  const listing = cached ? await cache.wrap(`posts:index:${sortText(query.sort) ?? ""}`, { tags: ["posts"], ttlMs: 5 * 60_000 }, read) : await read();
  return { ...listing, query, signedIn: viewer !== undefined, viewer };
}

/** A sort link: ascending (for the date, newest first), or the other way when the list is already sorted so by that field. */
function sortLink(state: Posts, field: SortField, label: string) {
  const current = state.query.sort ?? NEWEST_FIRST;
  const sorted = current.field === field;
  const next: Order = { field, descending: sorted ? !current.descending : field === "createdAt" };
  return (
    <a href={listPath(state.query, { sort: next })} aria-current={sorted ? "true" : undefined}>
      {label}
      {sorted ? (current.descending ? " ↓" : " ↑") : ""}
    </a>
  );
}

/** The GET form of the filters and the search: everything in the URL, so it works without JavaScript and the back button. */
function filters(state: Posts) {
  const { query } = state;
  return (
    <form method="get" action="/posts" role="search" class="fw-filters">
      <label class="fw-search">
        Search posts <input type="search" name="q" value={query.search ?? ""} maxlength={String(MAX_SEARCH)} />
      </label>
      <label class="fw-filter">
        Category{" "}
        <select name="category">
          <option value="" selected={query.category === undefined}>Any</option>
          {CATEGORIES.map((category) => <option value={category} selected={query.category === category}>{category}</option>)}
        </select>
      </label>
      <label class="fw-filter">
        Tag{" "}
        <select name="tags">
          <option value="" selected={query.tag === undefined}>Any</option>
          {state.choices.map((tag) => <option value={String(tag.id)} selected={query.tag === tag.id}>{tag.name}</option>)}
        </select>
      </label>
      <label class="fw-filter">
        From <input type="date" name="createdAt.from" value={query.from ?? ""} />
      </label>
      <label class="fw-filter">
        To <input type="date" name="createdAt.to" value={query.to ?? ""} />
      </label>
      {query.sort === undefined ? null : <input type="hidden" name="sort" value={sortText(query.sort)} />}
      <button type="submit">Filter</button>
      {filtered(query) ? <a href={listPath({ page: 1, ...(query.sort === undefined ? {} : { sort: query.sort }) })} class="fw-clear">Clear</a> : null}
    </form>
  );
}

/** One post of the list. */
function line(post: Listed, viewer: string | undefined) {
  return (
    <li>
      {post.thumb === undefined ? null : (
        // alt empty: the title beside it says what the post is.
        <img src={post.thumb.src} alt="" class="fw-thumb" width={String(post.thumb.width)} height={String(post.thumb.height)} loading="lazy" />
      )}
      <a href={path("/posts/:id", { id: post.id })}>{post.title}</a>
      {post.draft ? <span class="draft"> (draft)</span> : null}{" "}
      <time datetime={post.day}>{post.day}</time> <span class="category">{post.category}</span>
      {post.tags.length === 0 ? null : (
        <span class="tags">
          {post.tags.map((tag) => (
            <>
              {" "}
              <a href={path("/posts", {}, { tags: tag.id })} class="tag">{tag.name}</a>
            </>
          ))}
        </span>
      )}
      {post.snippet === undefined ? null : <p class="fw-snippet">{raw(post.snippet)}</p>}
      {viewer !== undefined && post.author === viewer ? (
        <>
          {" "}
          <a href={path("/posts/:id/edit", { id: post.id })} class="fw-edit">Edit</a>
        </>
      ) : null}
    </li>
  );
}

/**
 * `GET /posts`, replacing the derived Index alone (New, Show, Create… stay derived), as a live
 * page: it listens to the topic `posts`, which every write through the Post store publishes
 * (the build wraps each model's store in an app with live pages; a tag's write publishes it too),
 * so a post created, edited or deleted anywhere shows here without a reload. A refresh mounts the
 * page again: it reads the rows afresh from the same cursor, as the viewer the page was opened by,
 * so a post written meanwhile never shifts the page. No events: without JavaScript it is an
 * ordinary page of links and a GET form.
 */
export const index = live({
  mount: (request: Request, { posts, tags }: { posts: Store<Post>; tags: Store<Tag> }) => load(request, posts, tags),
  render: (state) => (
    <>
      <title>Posts</title>
      <h1>Posts</h1>
      {state.signedIn ? (
        <p>
          <a href="/posts/new" class="fw-new">New post</a>
        </p>
      ) : null}
      {filters(state)}
      {state.rows.length < 2 || state.query.search !== undefined ? null : (
        <p class="fw-sort">
          Sort by {sortLink(state, "createdAt", "date")}, {sortLink(state, "title", "title")}, {sortLink(state, "category", "category")}, {sortLink(state, "published", "published")}
        </p>
      )}
      {state.rows.length === 0 ? (
        <p class="fw-empty">{filtered(state.query) ? "No posts match." : "No posts yet."}</p>
      ) : (
        <ul class="posts">{state.rows.map((post) => line(post, state.viewer))}</ul>
      )}
      {state.previous === undefined && state.next === undefined ? null : (
        <nav class="fw-pager" aria-label="Pages">
          {state.previous === undefined ? null : <a href={state.previous} rel="prev">Previous</a>}
          <span>
            {state.total.toLocaleString("en")}
            {state.more ? " or more" : ""} posts
          </span>
          {state.next === undefined ? null : <a href={state.next} rel="next">Next</a>}
        </nav>
      )}
    </>
  ),
  topics: ["posts"],
});
