import type { IncomingMessage } from "node:http";
import { BadRequest, Forbidden, MethodNotAllowed, NotFound } from "../http/failure.js";
import { RequestHeaders } from "../http/headers.js";
import { originForm, splitPath, splitTarget } from "../http/path.js";
import { Request } from "../http/request.js";
import { arrivedSession, type SessionCodec } from "../http/session-codec.js";
import type { Matcher } from "../routing/matcher.js";
import type { WsRoute } from "../routing/route.js";
import type { Identify } from "../routing/route-table.js";
import { clientAddress, isSecure } from "../http/secure.js";
import type { OriginPolicy } from "./origin.js";

/** What a handshake is checked against. */
export interface HandshakeRules {
  /** The reserved `/fw` sockets, asked before the table (spec 4.6). */
  readonly reserved: Matcher;
  /** The application's table. */
  readonly table: Matcher;
  readonly codec: SessionCodec;
  readonly identify: Identify;
  readonly origins: OriginPolicy;
  readonly trustProxy: boolean;
}

/** A handshake fw accepts: the route it reached and the request its listener will see. */
export interface Admitted {
  readonly route: WsRoute;
  readonly request: Request;
}

/**
 * Decides whether a WebSocket upgrade may become a connection, before anything is upgraded.
 * Throws the failure to answer otherwise: 400 (malformed path), 404 (no socket here), 405 (not
 * a GET), 403 (foreign or missing Origin, or a route that needs a user and `identify` named
 * nobody). The upgrade is never matched on method: a socket route answers every method, and
 * only then is anything but GET refused.
 */
export async function admit(incoming: IncomingMessage, rules: HandshakeRules): Promise<Admitted> {
  const { path, query } = splitTarget(originForm(incoming.url ?? "/", incoming.headers.host));
  const segments = splitPath(path);
  const found = rules.reserved.lookupWs(segments) ?? rules.table.lookupWs(segments);
  if (found === undefined) throw new NotFound();
  if (incoming.method !== "GET") throw new MethodNotAllowed(["GET"]);
  const headers = RequestHeaders.fromNode(incoming.headers);
  const secure = isSecure(incoming, rules.trustProxy);
  checkOrigin(headers, secure, rules.origins);
  // Read like a browser route's cookie (one session cookie, else empty); nothing is written back.
  const { session } = arrivedSession(headers.get("cookie"), rules.codec, Date.now(), secure);
  const address = clientAddress(incoming, rules.trustProxy);
  const sent = new Request({
    method: "GET",
    path,
    params: found.params,
    query,
    headers,
    session,
    secure,
    ...(address === undefined ? {} : { clientAddress: address }),
    ...(found.route.mount === undefined ? {} : { mount: found.route.mount }),
  });
  const request = await rules.identify(sent);
  if (found.route.requiresUser === true && request.currentUser === undefined) {
    throw new Forbidden("This socket needs a signed-in user: sign in, then connect again.");
  }
  return { route: found.route, request };
}

function checkOrigin(headers: RequestHeaders, secure: boolean, origins: OriginPolicy): void {
  const origin = headers.get("origin");
  if (origin === undefined) {
    throw new Forbidden("A WebSocket handshake must carry an Origin header.");
  }
  if (!origins.allows(origin, headers.get("host"), secure)) {
    throw new Forbidden("This WebSocket does not accept connections from that Origin.");
  }
}

/** The path a refused handshake's problem page names; "/" when the target was not a path. */
export function instanceOf(target: string | undefined): string {
  return target !== undefined && target.charCodeAt(0) === 47 ? splitTarget(target).path : "/";
}
