/**
 * The picker's enhancement script (picker-client.ts) as fw serves it at `GET /fw/picker.js`:
 * its content hash names the version forms link (`/fw/picker.js?v=<hash>`), so a browser keeps
 * it for a year and fetches the next one when it changes.
 */
import { createHash } from "node:crypto";
import { noneMatchHits } from "../http/etag.js";
import { Response } from "../http/response.js";
import { Route, type HttpRoute } from "../routing/route.js";
import { PICKER_SCRIPT } from "./picker-client.js";
import { asFwEndpoint } from "../routing/fw-endpoint.js";

/** Where forms load the script from; `?v=` carries the version. */
export const PICKER_SCRIPT_PATH = "/fw/picker.js";

interface ScriptFile {
  readonly text: string;
  readonly hash: string;
  readonly etag: string;
}

let loaded: ScriptFile | undefined;

function scriptFile(): ScriptFile {
  if (loaded !== undefined) return loaded;
  const text = PICKER_SCRIPT;
  const hash = createHash("sha256").update(text).digest("hex").slice(0, 10);
  loaded = { text, hash, etag: `"${hash}"` };
  return loaded;
}

/** The script URL a form with a search picker links: the script at its current version. */
export function pickerScriptUrl(): string {
  return `${PICKER_SCRIPT_PATH}?v=${scriptFile().hash}`;
}

/** A year: the versioned URL names one content forever. */
const IMMUTABLE = "public, max-age=31536000, immutable";

/**
 * `GET /fw/picker.js`, mounted once by a table whose models have references. An API route: no
 * session is read or written. Cached for a year at its current version, else revalidated.
 */
export function pickerScriptRoute(): HttpRoute {
  const route = Route.api({
    method: "GET",
    path: PICKER_SCRIPT_PATH,
    source: "fw reference picker",
    handler: (request) => {
      const script = scriptFile();
      const cache = request.query.get("v") === script.hash ? IMMUTABLE : "no-cache";
      const validators: [string, string][] = [["etag", script.etag], ["cache-control", cache]];
      if (noneMatchHits(request.headers.get("if-none-match"), script.etag)) return new Response(304, validators);
      return new Response(200, [["content-type", "text/javascript; charset=utf-8"], ...validators], { type: "text", text: script.text });
    },
  });
  return asFwEndpoint(route);
}
