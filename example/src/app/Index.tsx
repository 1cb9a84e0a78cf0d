import { Ok, type Request, type Response } from "fw";

export function index(request: Request): Response {
  return Ok(
    <>
      <title>Home</title>
      <h1>Hello from fw</h1>
      <p>
        Every page here comes from a file under <code>example/src/app/</code>, mounted by the build.
        The <a href="/guestbook">guestbook</a> posts a form back with its CSRF token and answers with a flash.
      </p>
      <p>
        You asked for <code>{request.path}</code>.
      </p>
    </>,
  );
}
