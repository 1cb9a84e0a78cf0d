// The session page and the layout of bench/servers/fw.mjs, written as fw users write them: JSX,
// compiled by `tspc -p bench/servers` with fw's JSX pre-renderer (tsconfig.json here), as an
// app's pages are. The hand-written peers produce the very same bytes (bench/servers/page.mjs).
import { NotFound, Ok, type Layout, type Request, type Response } from "fw";

export interface Post {
  readonly id: number;
  readonly title: string;
  readonly author: string;
  readonly date: string;
  readonly paragraphs: readonly string[];
  readonly tags: readonly string[];
  readonly comments: readonly { readonly author: string; readonly text: string }[];
}

export function postPage(posts: ReadonlyMap<number, Post>, request: Request<{ id: number }>): Response {
  const post = posts.get(request.params.id);
  if (post === undefined) throw new NotFound();
  return Ok(
    <>
      <title>{post.title}</title>
      <article>
        <h1>{post.title}</h1>
        <p class="meta">By {post.author} · {post.date}</p>
        {post.paragraphs.map((p) => <p>{p}</p>)}
        <ul class="tags">
          {post.tags.map((t) => <li><a href={`/tags/${t}`}>{t}</a></li>)}
        </ul>
      </article>
      <section class="comments">
        <h2>Comments</h2>
        {post.comments.map((c) => <div class="comment"><b>{c.author}</b><p>{c.text}</p></div>)}
        <form method="post" action={`/posts/${post.id}/comments`}>
          <input type="hidden" name="_csrf" value={request.csrf} />
          <textarea name="text"></textarea>
          <button type="submit">Comment</button>
        </form>
      </section>
    </>,
  );
}

export const layout: Layout = ({ title, content, request }) => {
  const user = request.session.get("user");
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{title} · Bench blog</title>
        <link rel="stylesheet" href="/style.css" />
      </head>
      <body>
        <header>
          <a href="/">Bench blog</a>
          <nav><a href="/posts">Posts</a><a href="/about">About</a></nav>
          {user === undefined ? null : <span class="user">Signed in as {user}</span>}
        </header>
        <main>{content}</main>
        <footer><p>© 2025 Bench blog &amp; friends</p></footer>
      </body>
    </html>
  );
};
