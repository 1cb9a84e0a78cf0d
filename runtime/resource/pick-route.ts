import type { Request } from "../http/request.js";
import { Ok, type Response } from "../http/response.js";
import { Origin, Route, type HttpRoute } from "../routing/route.js";
import { labelField } from "./labels.js";
import type { ModelSpec } from "./model.js";
import { choiceOf, keyText, pickPath, Picker } from "./picker.js";
import type { Choice } from "./reference-input.js";
import type { Relations } from "./relations.js";
import { asFwEndpoint } from "../routing/fw-endpoint.js";

/** The most rows one answer of a pick endpoint suggests. */
export const PICK_RESULTS = 20;

/** The most characters of `?q=` read: a label's start, or a key. */
const MAX_QUERY = 200;

/**
 * `GET /fw/pick/<path>?q=…`: the rows of a model another model's form may point at, for a
 * reference's search-as-you-type (`/fw/picker.js`): JSON `[{ "key": 7, "label": "…" }]`, at most
 * `PICK_RESULTS`, only rows the viewer may read (the model's Show read rules), the row whose key
 * is `q` first, then those whose label starts with it, sorted by label. Role Index: the model's
 * guard covers it as it covers its Index.
 */
export function pickRoute(model: ModelSpec<unknown>, relations: Relations, source: string): HttpRoute {
  const picker = new Picker(relations);
  const handler = async (request: Request): Promise<Response> => {
    const target = relations.model(model.name);
    if (target === undefined) throw new Error(`The pick endpoint of ${model.name} was mounted without its model registered in the app's Relations.`);
    const typed = (request.query.get("q") ?? "").trim().slice(0, MAX_QUERY);
    const readable = await picker.readable(request, target);
    const found: Choice[] = [];
    const key = keyText(typed);
    const byKey = key === undefined ? undefined : await readable.get(key);
    if (byKey !== undefined) found.push(choiceOf(target, byKey));
    const label = labelField(model);
    if (label !== undefined) {
      const search = typed === "" ? {} : { search: { field: label.name, prefix: typed } };
      const { rows } = await readable.list({ offset: 0, limit: PICK_RESULTS, order: { field: label.name, descending: false }, ...search });
      for (const row of rows) if (found.length < PICK_RESULTS && !found.some((c) => c.key === choiceOf(target, row).key)) found.push(choiceOf(target, row));
    }
    return Ok(JSON.stringify(found), { contentType: "application/json; charset=utf-8" }).withHeader("cache-control", "private, no-store");
  };
  return asFwEndpoint({ ...Route.http({ method: "GET", path: pickPath(model.path), handler, origin: Origin.Resource, source }), role: "Index" as const });
}
