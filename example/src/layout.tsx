import { raw, type Html, type Layout, type LayoutProps } from "fw";
import { auth } from "./auth.js";

const css = `
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 44rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
  header { display: flex; gap: 1rem; align-items: baseline; border-bottom: 1px solid #ddd; margin-bottom: 1.5rem; }
  header a { color: inherit; }
  .flash { background: #e8f5e9; border: 1px solid #a5d6a7; padding: .5rem .75rem; border-radius: 4px; }
  .error { color: #b00020; }
  label { display: block; margin-top: .75rem; }
  input, textarea { font: inherit; width: 100%; box-sizing: border-box; }
  .fw-problem h1 { color: #b00020; }
  .fw-field { margin-top: .75rem; }
  .fw-field label { display: block; font-weight: 600; }
  .fw-field-checkbox label { display: inline; margin-right: .5rem; }
  .fw-field-checkbox input { width: auto; }
  .fw-field-error { color: #b00020; margin: .25rem 0 0; }
  .fw-form button, .fw-destroy button { margin-top: 1rem; }
  .fw-index { border-collapse: collapse; width: 100%; }
  .fw-index th, .fw-index td { border-bottom: 1px solid #eee; padding: .25rem .5rem; text-align: left; }
  .fw-show dt { font-weight: 600; }
  .fw-controls { display: flex; gap: 1rem; align-items: baseline; }
  .fw-destroy { display: inline; }
  .account { margin-left: auto; display: flex; gap: .5rem; align-items: baseline; }
  .account form { display: inline; }
  .fw-auth-error { color: #b00020; }
`;

/**
 * Who is signed in, read from the session (a public page's `currentUser` is nobody), with a
 * sign-out button when the page carries a CSRF token (error pages and first visits do not).
 */
function account(request: LayoutProps["request"]): Html {
  const user = auth.userOf(request);
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
      </span>
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
export const layout: Layout = ({ title, content, request }) => {
  const notice = request.session.flashed("notice");
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{title === undefined ? "fw example" : `${title} · fw example`}</title>
        <style>{raw(css)}</style>
      </head>
      <body>
        <header>
          <strong>
            <a href="/">fw example</a>
          </strong>
          <nav>
            <a href="/posts">Posts</a> <a href="/notes">Notes</a> <a href="/guestbook">Guestbook</a> <a href="/chat">Chat</a> <a href="/about">About</a>
          </nav>
          {account(request)}
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
