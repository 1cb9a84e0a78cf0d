import type { Duplex } from "node:stream";
import type { Answer } from "./answer.js";
import { phrase } from "./problem.js";

/**
 * Writes an answer straight onto a socket that never became a `ServerResponse` (CONNECT, and
 * upgrade requests fw refuses or serves as plain HTTP), then ends it: such a socket has left
 * Node's HTTP parser, so it cannot carry another request. `head` drops the body (HEAD). An
 * answer still on its way is written once it is there.
 */
export function writeRaw(socket: Duplex, answer: Answer | Promise<Answer>, head = false): void {
  // Node leaves such a socket without an error listener: a reset would crash the process.
  if (socket.listenerCount("error") === 0) socket.on("error", () => socket.destroy());
  if (answer instanceof Promise) {
    // A page whose layout answers later (the socket may be gone by then: checked below).
    void answer.then(
      (done) => writeRaw(socket, done, head),
      () => socket.destroy(),
    );
    return;
  }
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  // Refusals and problem pages only come here: a stored file's stream never does.
  const body = typeof answer.body === "string" ? Buffer.from(answer.body) : answer.body instanceof Uint8Array ? Buffer.from(answer.body) : Buffer.alloc(0);
  const lines = [`HTTP/1.1 ${answer.status} ${phrase(answer.status)}`];
  for (let i = 0; i < answer.headers.length; i += 2) lines.push(`${answer.headers[i]}: ${answer.headers[i + 1]}`);
  lines.push(`content-length: ${body.length}`, "connection: close", "", "");
  const bytes = Buffer.from(lines.join("\r\n"));
  socket.end(head ? bytes : Buffer.concat([bytes, body]));
}
