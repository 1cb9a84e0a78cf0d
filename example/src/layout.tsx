import { type Html, type Layout, type LayoutProps } from "fw";
import { auth } from "./auth.js";

/**
 * Who is signed in, asked of the users store as the guard asks it (a public page's
 * `currentUser` is nobody, and a session that no longer counts shows as signed out), with a
 * sign-out button when the page carries a CSRF token (error pages and first visits do not).
 */
async function account(request: LayoutProps["request"]): Promise<Html> {
  const user = await auth.userOf(request);
  if (user === undefined) {
    return (
      <div class="account">
        <a href="/login">Sign in</a> <a href="/signup">Sign up</a>
      </div>
    );
  }
  return (
    <div class="account">
      <span>
        Signed in as <strong class="signed-in">{user.email}</strong>
      </span>{" "}
      <a href="/account">Account</a>
      {/* For display only: the back office's own guard answers everyone else with a 404. */}
      {user.roles.includes("admin") ? <> <a href="/admin">Back office</a></> : null}
      {request.hasCsrf ? (
        <form method="post" action="/logout">
          <input type="hidden" name="_csrf" value={request.csrf} />
          <button type="submit">Sign out</button>
        </form>
      ) : null}
    </div>
  );
}

/** The one frame of every page: title, navigation, who is signed in, and the flash the last request left. */
export const layout: Layout = async ({ title, content, request }) => {
  const notice = request.session.flashed("notice");
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{title === undefined ? "fw example" : `${title} · fw example`}</title>
        <link rel="stylesheet" href="/app.css" />
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
      </head>
      <body>
        <header>
          <strong>
            <a href="/">fw example</a>
          </strong>
          <nav>
            <a href="/posts">Posts</a> <a href="/notes">Notes</a> <a href="/guestbook">Guestbook</a> <a href="/chat">Chat</a> <a href="/about">About</a>
          </nav>
          {await account(request)}
        </header>
        {notice === undefined ? null : (
          <p class="flash" role="status">
            {notice}
          </p>
        )}
        <main>{content}</main>
      </body>
    </html>
  );
};
