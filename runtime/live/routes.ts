import { noneMatchHits } from "../http/etag.js";
import { BadRequest } from "../http/failure.js";
import type { Request } from "../http/request.js";
import { Ok, Response, status } from "../http/response.js";
import { EVENT_FIELD } from "../resource/form.js";
import type { ModelSpec } from "../resource/model.js";
import type { ParamDecoders } from "../routing/from-path.js";
import { asFwEndpoint } from "../routing/fw-endpoint.js";
import { Route, type HttpRoute, type WsRoute } from "../routing/route.js";
import { socketsPerAddress } from "./address-bound.js";
import { CLIENT_PATH, clientFile } from "./client-file.js";
import { contextOf, handlerOf, payloadOf } from "./events.js";
import { capabilitiesFor, type LiveMount } from "./mount.js";
import type { LivePage } from "./page.js";
import { liveListener } from "./socket.js";
import { livePage, liveView, pathAndQuery, socketPath } from "./view.js";

const PAGE_ID = /^[A-Za-z0-9_$.-]+$/;

function checkedMount<C>(mount: LiveMount<C>): LiveMount<C> {
  if (!PAGE_ID.test(mount.id)) throw new Error(`fw/live: the page id ${JSON.stringify(mount.id)} of ${mount.source} is not one path segment of letters, digits, _ $ . or -.`);
  return mount;
}

/** The query text of a request, as sent (for `view.path`); a malformed one is left out. */
function queryText(request: Request<unknown>): string {
  try {
    return new URLSearchParams([...request.query.entries()]).toString();
  } catch {
    return "";
  }
}

/** The page's own rows, at its place in the table: GET (full HTML through the layout) and POST (a live form without JavaScript). */
// biome-ignore lint/suspicious/noExplicitAny: a table holds pages of any state
export function livePageRoutes<C>(page: LivePage<any, C, any, any>, mount: LiveMount<C>): readonly HttpRoute[] {
  checkedMount(mount);
  const spec = page.spec;
  const options = { ...(mount.params === undefined ? {} : { params: mount.params }), ...(mount.query === undefined ? {} : { query: mount.query }), source: mount.source };
  const render = (state: unknown, request: Request<unknown>): ReturnType<typeof livePage> => {
    const view = liveView(mount as LiveMount<unknown>, request, pathAndQuery(request.path, queryText(request)));
    return livePage(mount as LiveMount<unknown>, request, spec.render(state, view));
  };
  const show = async (request: Request): Promise<Response> => Ok(render(await spec.mount(request, await capabilitiesFor(mount, request)), request));
  // The no-JavaScript form: mount, run the form's event with its fields, answer the page as it then is.
  const submit = async (request: Request): Promise<Response> => {
    const event = request.form.get(EVENT_FIELD);
    if (event === undefined) throw new BadRequest(`This live page's form did not say which event it sends (the ${EVENT_FIELD} field is missing): reload the page and try again.`);
    const handler = handlerOf(page, event);
    if (handler === undefined) throw new BadRequest(`This page has no event named ${JSON.stringify(event.slice(0, 80))}: reload the page and try again.`);
    const { payload, refused } = payloadOf(mount as LiveMount<unknown>, event, [...request.form.entries()]);
    const capabilities = await capabilitiesFor(mount, request);
    const state = await handler(await spec.mount(request, capabilities), payload, contextOf(mount, request, capabilities));
    return status(refused ? 422 : 200, render(state, request));
  };
  // A page without events has no form to post: no POST row, so a live page replacing a derived
  // Index (`posts/Index.tsx`) leaves `POST /posts` to the derived Create.
  const events = Object.keys(spec.events ?? {}).length > 0;
  return events ? [Route.get(mount.path, show, options), Route.post(mount.path, submit, options)] : [Route.get(mount.path, show, options)];
}

/**
 * The page's socket `WS /fw/live/<id>`, appended after the table (spec 4.6). Each client address
 * holds at most `FW_LIVE_SOCKETS_PER_ADDRESS` live sockets (default 256), read here, at boot.
 */
// biome-ignore lint/suspicious/noExplicitAny: as above
export function liveSocketRoute<C>(page: LivePage<any, C, any, any>, mount: LiveMount<C>): WsRoute {
  checkedMount(mount);
  return asFwEndpoint(Route.ws(socketPath(mount.id), liveListener(page, mount as LiveMount<unknown>, socketsPerAddress()), { source: mount.source }));
}

/** A year: the versioned URL (`?v=<hash>`) names one content forever. */
const IMMUTABLE = "public, max-age=31536000, immutable";

/**
 * `GET /fw/live.js`, the live client, appended after the table once (spec 4.6). An API route:
 * dispatch reads no session cookie for it and writes none, as for the public folder's files.
 * Cached for a year when asked for at its current version (`?v=<hash>`), else revalidated (ETag).
 */
export function liveClientRoute(): HttpRoute {
  const route = Route.api({
    method: "GET",
    path: CLIENT_PATH,
    source: "fw/live client",
    handler: (request) => {
      const client = clientFile();
      const cache = request.query.get("v") === client.hash ? IMMUTABLE : "no-cache";
      const validators: [string, string][] = [["etag", client.etag], ["cache-control", cache]];
      if (noneMatchHits(request.headers.get("if-none-match"), client.etag)) return new Response(304, validators);
      return new Response(200, [["content-type", "text/javascript; charset=utf-8"], ...validators], { type: "text", text: client.text });
    },
  });
  return asFwEndpoint(route);
}
