/**
 * The picker's enhancement script (picker-client.ts) as fw serves it at `GET /fw/picker.js`
 * (script-endpoint.ts: versioned by its content hash).
 */
import type { HttpRoute } from "../routing/route.js";
import { PICKER_SCRIPT } from "./picker-client.js";
import { ScriptEndpoint } from "./script-endpoint.js";

/** Where forms load the script from; `?v=` carries the version. */
export const PICKER_SCRIPT_PATH = "/fw/picker.js";

const endpoint = new ScriptEndpoint(PICKER_SCRIPT_PATH, () => PICKER_SCRIPT, "fw reference picker");

/** The script URL a form with a search picker links: the script at its current version. */
export function pickerScriptUrl(): string {
  return endpoint.url();
}

/** `GET /fw/picker.js`, mounted once by a table whose models have references. */
export function pickerScriptRoute(): HttpRoute {
  return endpoint.route();
}
