import { Ok, type Request, type Response } from "fw";
import { Guarded } from "fw/auth";

/** Open to everyone (with the auth module on, every page says so). */
export const guarded = Guarded.public;

/** A custom-name page: `About.tsx` exporting `about` mounts `GET /about`. */
export function about(_request: Request): Response {
  return Ok(
    <>
      <title>About</title>
      <h1>About this example</h1>
      <p>
        A small multi-user blog built only through fw's public API and its transformer: every route
        comes from a file under <code>example/src/app/</code> or a model under <code>example/src/models/</code>.
      </p>
      <p>
        Read the <a href="/docs/getting-started">docs</a>, or go back <a href="/">home</a>.
      </p>
    </>,
  );
}
