import type { IncomingMessage } from "node:http";

/**
 * Whether the browser reached the application over HTTPS: a TLS socket, or (only when the
 * proxy in front is the application's own) `X-Forwarded-Proto: https`.
 */
export function isSecure(incoming: IncomingMessage, trustProxy: boolean): boolean {
  if ("encrypted" in incoming.socket && incoming.socket.encrypted === true) return true;
  return trustProxy && incoming.headers["x-forwarded-proto"] === "https";
}

/**
 * The address of the client: the socket's peer, or (only when the proxy in front is the
 * application's own) the first address of `X-Forwarded-For`. What per-address limits count by.
 */
export function clientAddress(incoming: IncomingMessage, trustProxy: boolean): string | undefined {
  if (trustProxy) {
    const forwarded = incoming.headers["x-forwarded-for"];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",")[0]?.trim();
    if (first !== undefined && first !== "") return first;
  }
  return incoming.socket.remoteAddress;
}
