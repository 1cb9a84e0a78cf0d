import type { IncomingMessage } from "node:http";

/**
 * Whether the browser reached the application over HTTPS: a TLS socket, or (only when the
 * proxy in front is the application's own) `X-Forwarded-Proto: https`.
 */
export function isSecure(incoming: IncomingMessage, trustProxy: boolean): boolean {
  if ("encrypted" in incoming.socket && incoming.socket.encrypted === true) return true;
  return trustProxy && incoming.headers["x-forwarded-proto"] === "https";
}
