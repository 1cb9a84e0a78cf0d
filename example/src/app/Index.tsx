import { Ok, type Request, type Response } from "fw";
import { Guarded } from "fw/auth";

/** Open to everyone (with the auth module on, every page says so). */
export const guarded = Guarded.public;

export function index(request: Request): Response {
  return Ok(
    <>
      <title>Home</title>
      <h1>Hello from fw</h1>
      <p>
        Every page here comes from a file under <code>example/src/app/</code>, mounted by the build.{" "}
        <a href="/posts">Posts</a> and <a href="/notes">notes</a> are models: their pages are derived
        from their types. The <a href="/guestbook">guestbook</a> is written by hand.
      </p>
      <p>
        Three pages are live (fw/live): <a href="/posts">the posts</a> update when a post is written
        anywhere, <a href="/chat">the chat</a> shows lines as they are said, and{" "}
        <a href="/notes/quick">a quick note</a> is checked as you type. They work without JavaScript too.
      </p>
      <p>
        <a href="/about">About</a> is a custom-name page and <a href="/docs/getting-started">the docs</a> a
        catch-all one.
      </p>
      <p>
        You asked for <code>{request.path}</code>.
      </p>
    </>,
  );
}
