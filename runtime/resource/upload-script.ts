/**
 * The upload progress script (upload-client.ts) as fw serves it at `GET /fw/upload.js`
 * (script-endpoint.ts: versioned by its content hash). A form with a file field works without it.
 */
import type { HttpRoute } from "../routing/route.js";
import { ScriptEndpoint } from "./script-endpoint.js";
import { UPLOAD_SCRIPT } from "./upload-client.js";

/** Where forms with a file field load the script from; `?v=` carries the version. */
export const UPLOAD_SCRIPT_PATH = "/fw/upload.js";

const endpoint = new ScriptEndpoint(UPLOAD_SCRIPT_PATH, () => UPLOAD_SCRIPT, "fw upload progress");

/** The script URL a form with a file field links. */
export function uploadScriptUrl(): string {
  return endpoint.url();
}

/** `GET /fw/upload.js`, mounted once by a table whose models have file fields. */
export function uploadScriptRoute(): HttpRoute {
  return endpoint.route();
}
