import type { IncomingMessage } from "node:http";

/**
 * How much of a refused body the server still reads, and for how long, before it answers and
 * closes: a client that is still sending when the connection closes meets a reset (EPIPE) and
 * may never show the answer (fetch fails, curl prints "connection reset"). nginx "lingers" after
 * its answer for the same reason; fw reads first, since Node closes the socket itself once an
 * answer that says `connection: close` is out.
 */
export const LINGER_BYTES = 1024 * 1024;
export const LINGER_MS = 1000;

/**
 * Reads and drops the rest of a body the answer refused partway (a multipart form refused at its
 * first part, a field over its limit), so the client has finished sending when the answer comes.
 * Undefined when there is nothing to wait for: the body is whole, the connection is gone, or the
 * request announced more than `LINGER_BYTES` (a large upload refused is answered at once, and a
 * client that sends it regardless meets the close). Otherwise the promise settles at the body's
 * end, past `LINGER_BYTES` more, after `LINGER_MS`, or when the client leaves, whichever is first:
 * a slow or endless sender only delays its own answer, by at most a second.
 */
export function lingerOver(request: IncomingMessage): Promise<void> | undefined {
  if (request.complete || request.destroyed) return undefined;
  const declared = request.headers["content-length"];
  if (declared !== undefined && Number(declared) > LINGER_BYTES) return undefined;
  return new Promise((resolve) => {
    let taken = 0;
    const done = (): void => {
      clearTimeout(timer);
      request.off("data", onData).off("end", done).off("close", done).off("error", done);
      request.pause();
      resolve();
    };
    const onData = (chunk: Buffer): void => {
      taken += chunk.length;
      if (taken > LINGER_BYTES) done();
    };
    const timer = setTimeout(done, LINGER_MS);
    request.on("data", onData).once("end", done).once("close", done).once("error", done);
    request.resume();
  });
}
