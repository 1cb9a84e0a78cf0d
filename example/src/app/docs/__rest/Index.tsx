import { Ok, type Request, type Response } from "fw";
import { Guarded } from "fw/auth";

/** Open to everyone (with the auth module on, every page says so). */
export const guarded = Guarded.public;

/** A catch-all page: `docs/__rest/Index.tsx` mounts `GET /docs/*rest` (everything after /docs/). */
export function index(request: Request<{ rest: string }>): Response {
  const rest = request.params.rest;
  return Ok(
    <>
      <title>Docs</title>
      <h1>Docs</h1>
      {rest === "" ? (
        <p>You are at the docs' front page.</p>
      ) : (
        <p>
          You asked for the page <code class="docs-path">{rest}</code>.
        </p>
      )}
      <p>
        A catch-all folder (<code>__rest</code>) takes everything left of the path; the text is escaped like any
        other.
      </p>
    </>,
  );
}
