import { timingSafeEqual } from "node:crypto";
import { createServer, type Server } from "node:http";
import { NotFound } from "../http/failure.js";
import type { RequestHeaders } from "../http/headers.js";
import { Ok } from "../http/response.js";
import { asFwEndpoint } from "../routing/fw-endpoint.js";
import { Route, type HttpRoute } from "../routing/route.js";
import { METRICS_PATH } from "../observe/metrics-settings.js";

/** Whether `authorization` is `Bearer <token>`, compared in constant time. */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  if (authorization === undefined || !authorization.startsWith("Bearer ")) return false;
  const given = Buffer.from(authorization.slice("Bearer ".length).trim());
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/**
 * `GET /fw/metrics` on the app's port, for a request with `Authorization: Bearer <token>`; any
 * other gets the 404 an unknown path gets (its existence is not told). An API route (no session,
 * no cookie), marked as fw's own. The text is the whole app's: with `--workers`, added up over
 * every worker by the primary.
 */
export function metricsRoute(token: string, text: () => Promise<string>, contentType: string): HttpRoute {
  const handler = async (request: { headers: RequestHeaders }) => {
    if (!bearerMatches(request.headers.get("authorization"), token)) throw new NotFound();
    return Ok(await text(), { contentType }).withHeader("cache-control", "no-store");
  };
  return asFwEndpoint(Route.api({ method: "GET", path: METRICS_PATH, handler }));
}

export interface MetricsListener {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The metrics on a port of their own (`FW_METRICS_PORT`): `GET /metrics` (and `/fw/metrics`)
 * answer the text, with the token required when one is set; anything else is a 404. Nothing of
 * the app is reachable there.
 */
export function listenForMetrics(port: number, host: string, token: string | undefined, text: () => Promise<string>, contentType: string): Promise<MetricsListener> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0];
    const allowed = token === undefined || bearerMatches(request.headers.authorization, token);
    if ((path !== "/metrics" && path !== METRICS_PATH) || (request.method !== "GET" && request.method !== "HEAD") || !allowed) {
      response.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("404 Not Found\n");
      return;
    }
    text().then(
      (body) => response.writeHead(200, { "content-type": contentType, "cache-control": "no-store" }).end(request.method === "HEAD" ? undefined : body),
      () => response.writeHead(503, { "content-type": "text/plain; charset=utf-8" }).end("503 Service Unavailable: the metrics could not be gathered\n"),
    );
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      const address = server.address();
      const bound = typeof address === "object" && address !== null ? address.port : port;
      resolve({
        url: `http://${host.includes(":") ? `[${host}]` : host}:${bound}`,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
