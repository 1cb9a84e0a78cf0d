import { WebSocketServer } from "ws";

export { LiveConnection } from "./connection.js";

/**
 * The part of the socket server that needs the `ws` package: loaded by `WsServer` on the first
 * handshake it accepts, so an app whose sockets are not in use idles without `ws` in memory.
 */
export function socketUpgrader(maxMessageBytes: number): WebSocketServer {
  return new WebSocketServer({
    noServer: true,
    maxPayload: maxMessageBytes,
    clientTracking: false,
    // Off (ws's server default too): compression costs memory per socket and opens CRIME-style leaks.
    perMessageDeflate: false,
  });
}
