import { FromPath, NotFound, Ok, Redirect, Request, status, type Response } from "fw";
import type { Guestbook } from "./guestbook.js";

export function home(): Response {
  return Ok(
    <>
      <title>Home</title>
      <h1>Hello from fw</h1>
      <p>
        This page is framed by the layout; the <a href="/guestbook">guestbook</a> posts a form back
        with its CSRF token and answers with a flash.
      </p>
    </>,
  );
}

interface Draft {
  readonly name: string;
  readonly message: string;
  readonly errors: Readonly<Record<string, string>>;
}

const blank: Draft = { name: "", message: "", errors: {} };

function guestbookPage(book: Guestbook, request: Request, draft: Draft) {
  return (
    <>
      <title>Guestbook</title>
      <h1>Guestbook</h1>
      <ul>
        {book.list().map((entry) => (
          <li>
            <a href={`/guestbook/${entry.id}`}>{entry.name}</a>: {entry.message}
          </li>
        ))}
      </ul>
      <form method="post" action="/guestbook">
        <input type="hidden" name="_csrf" value={request.csrf} />
        <label>
          Name <input name="name" value={draft.name} />
        </label>
        {draft.errors["name"] === undefined ? null : <p class="error">{draft.errors["name"]}</p>}
        <label>
          Message <textarea name="message">{draft.message}</textarea>
        </label>
        {draft.errors["message"] === undefined ? null : <p class="error">{draft.errors["message"]}</p>}
        <button type="submit">Sign the guestbook</button>
      </form>
    </>
  );
}

export function guestbook(book: Guestbook) {
  return {
    index: (request: Request): Response => Ok(guestbookPage(book, request, blank)),

    /** 303 back to the list with a flash; 422 with the form re-rendered when a field is empty. */
    create: (request: Request): Response => {
      const name = (request.form.get("name") ?? "").trim();
      const message = (request.form.get("message") ?? "").trim();
      const errors: Record<string, string> = {};
      if (name === "") errors["name"] = "Name is required.";
      if (message === "") errors["message"] = "Message is required.";
      if (Object.keys(errors).length > 0) {
        return status(422, guestbookPage(book, request, { name, message, errors }));
      }
      book.add(name, message);
      return Redirect("/guestbook").withSession(request.session.flash("notice", `Thanks for signing, ${name}!`));
    },

    show: (request: Request<{ id: number }>): Response => {
      const entry = book.find(request.params.id);
      if (entry === undefined) throw new NotFound(`There is no guestbook entry ${request.params.id}.`);
      return Ok(
        <>
          <title>{`Entry by ${entry.name}`}</title>
          <h1>{entry.name} wrote</h1>
          <blockquote>{entry.message}</blockquote>
          <a href="/guestbook">Back</a>
        </>,
      );
    },

    api: (): Response =>
      Ok(JSON.stringify(book.list()), { contentType: "application/json; charset=utf-8" }),

    idDecoder: { id: FromPath.int },
  };
}
