import type { IncomingMessage } from "node:http";
import { PayloadTooLarge } from "../http/failure.js";

/** The client went away before its body arrived: nobody is left to answer. */
export class ClientGone extends Error {
  override readonly name = "ClientGone";
}

const NONE = Buffer.alloc(0);

/**
 * Reads a request body whole, up to `limit` bytes (spec 8). A Content-Length over the limit is
 * refused at once, before any byte is read; a chunked body is refused as soon as it passes the
 * limit, and buffering stops there. The caller closes the connection after answering 413.
 */
export function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = request.headers["content-length"];
  if (declared === undefined && request.headers["transfer-encoding"] === undefined) {
    return Promise.resolve(NONE);
  }
  if (declared !== undefined && Number(declared) > limit) {
    return Promise.reject(new PayloadTooLarge(limit));
  }
  if (request.complete && request.readableLength === 0) return Promise.resolve(NONE);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (error: Error): void => {
      request.off("data", onData).off("end", onEnd).off("aborted", onAborted).off("error", onAborted);
      reject(error);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        request.pause();
        stop(new PayloadTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      request.off("aborted", onAborted).off("error", onAborted);
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    const onAborted = (): void => stop(new ClientGone("The client closed the connection mid-body."));
    request.on("data", onData).on("end", onEnd).on("aborted", onAborted).on("error", onAborted);
  });
}
