/**
 * A small enhancement script fw serves under `/fw/` (the reference picker's, the upload
 * progress'): its content hash names the version pages link (`/fw/picker.js?v=<hash>`), so a
 * browser keeps it for a year and fetches the next one when it changes. Pages work without it.
 */
import { createHash } from "node:crypto";
import { noneMatchHits } from "../http/etag.js";
import { Response } from "../http/response.js";
import { asFwEndpoint } from "../routing/fw-endpoint.js";
import { Route, type HttpRoute } from "../routing/route.js";

/** A year: the versioned URL names one content forever. */
const IMMUTABLE = "public, max-age=31536000, immutable";

export class ScriptEndpoint {
  #hash: string | undefined;

  /**
   * @param path where it is served (`/fw/picker.js`)
   * @param text the script (read once, when first asked for)
   * @param source what `routes` names as its source
   */
  constructor(
    readonly path: string,
    private readonly text: () => string,
    private readonly source: string,
  ) {}

  private get hash(): string {
    this.#hash ??= createHash("sha256").update(this.text()).digest("hex").slice(0, 10);
    return this.#hash;
  }

  /** The URL a page links: the script at its current version. */
  url(): string {
    return `${this.path}?v=${this.hash}`;
  }

  /**
   * `GET <path>`, an API route (no session is read or written), mounted once by a table that
   * needs it. Cached for a year at its current version, else revalidated.
   */
  route(): HttpRoute {
    const route = Route.api({
      method: "GET",
      path: this.path,
      source: this.source,
      handler: (request) => {
        const etag = `"${this.hash}"`;
        const cache = request.query.get("v") === this.hash ? IMMUTABLE : "no-cache";
        const validators: [string, string][] = [["etag", etag], ["cache-control", cache]];
        if (noneMatchHits(request.headers.get("if-none-match"), etag)) return new Response(304, validators);
        return new Response(200, [["content-type", "text/javascript; charset=utf-8"], ...validators], { type: "text", text: this.text() });
      },
    });
    return asFwEndpoint(route);
  }
}
