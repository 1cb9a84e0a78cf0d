import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { asFailure, BadRequest, NotFound } from "../http/failure.js";
import { instanceOf, type Admitted } from "../ws/handshake.js";
import type { WsServer } from "../ws/server.js";
import type { Dispatcher } from "./dispatch.js";
import { writeRaw } from "./raw-answer.js";

/**
 * Answers node:http's `upgrade` event and resolves with the status for the access log (101
 * once upgraded; undefined when the client left). With an `upgrade` listener, Node hands every
 * request carrying `Connection: upgrade` here, whatever protocol it asks for: a WebSocket
 * handshake goes to the socket server, refused with a problem page when it may not connect;
 * any other upgrade (h2c) is ignored, as RFC 9110 section 7.8 allows, and served as plain HTTP.
 */
export async function answerUpgrade(
  incoming: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  dispatcher: Dispatcher,
  sockets: WsServer | undefined,
): Promise<number | undefined> {
  if (incoming.headers.upgrade?.toLowerCase() !== "websocket") return answerPlainly(incoming, socket, dispatcher);
  let admitted: Admitted;
  // Admitting may wait (an identify asking a users store): a reset meanwhile must not crash.
  const dropOnError = (): void => void socket.destroy();
  socket.on("error", dropOnError);
  try {
    // An app without WebSocket routes has no socket server: every handshake finds nothing.
    // Refused before the handshake's Origin check, which DNS rebinding would pass (the page's
    // origin and the Host it sends name the same attacker's host).
    dispatcher.refuseTwoHosts(incoming);
    dispatcher.refuseUnknownHost(incoming);
    if (sockets === undefined) throw new NotFound("No WebSocket route answers this address.");
    admitted = await sockets.admit(incoming);
  } catch (thrown) {
    socket.off("error", dropOnError);
    if (socket.destroyed) return undefined;
    const answer = await dispatcher.refuse(asFailure(thrown), incoming.method ?? "GET", instanceOf(incoming.url));
    writeRaw(socket, answer);
    return answer.status;
  }
  socket.off("error", dropOnError);
  if (socket.destroyed) return undefined;
  sockets.accept(incoming, socket, head, admitted);
  return 101;
}

/**
 * A request that asked for another protocol, served as if it had not. Node has detached the
 * socket from its parser, so the body (if any) is not readable through the request: one is
 * refused rather than read as empty.
 */
async function answerPlainly(incoming: IncomingMessage, socket: Duplex, dispatcher: Dispatcher): Promise<number | undefined> {
  // Node leaves a detached socket without an error listener: a reset would crash the process.
  socket.on("error", () => socket.destroy());
  const answer = declaresBody(incoming)
    ? await dispatcher.refuse(
        new BadRequest("fw upgrades to WebSocket only; send this request without the Upgrade header."),
        incoming.method ?? "GET",
        instanceOf(incoming.url),
      )
    : await dispatcher.dispatch(incoming);
  if (answer === undefined) {
    socket.destroy();
    return undefined;
  }
  writeRaw(socket, answer, incoming.method === "HEAD");
  return answer.status;
}

function declaresBody(incoming: IncomingMessage): boolean {
  const length = incoming.headers["content-length"];
  return incoming.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}
