import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { NotImplemented } from "../http/failure.js";
import type { Answer, Dispatcher } from "./dispatch.js";
import { phrase } from "./problem.js";

export interface ServerOptions {
  readonly port: number;
  readonly host: string;
  /** One line per request on stdout: method, path (no query), status, milliseconds. */
  readonly accessLog: boolean;
  /** How long in-flight requests may run on after SIGTERM before their connections are cut. */
  readonly graceMs: number;
  readonly out: (line: string) => void;
}

/** A listening server. `close` stops accepting, lets in-flight requests finish, then resolves. */
export interface RunningServer {
  readonly url: string;
  readonly port: number;
  readonly server: Server;
  close(): Promise<void>;
}

/** Node's slow-client guards: headers within 20 s, a whole request within 60 s. */
const HEADERS_TIMEOUT_MS = 20_000;
const REQUEST_TIMEOUT_MS = 60_000;
const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/** Serves a dispatcher over node:http. The application never calls this itself: `HttpApp` does. */
export function startServer(dispatcher: Dispatcher, options: ServerOptions): Promise<RunningServer> {
  let closing = false;
  const server = createServer({ requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: HEADERS_TIMEOUT_MS }, (request, response) => {
    const started = performance.now();
    void dispatcher.dispatch(request).then((answer) => {
      if (answer === undefined) {
        response.destroy();
        return;
      }
      send(response, answer, request.method === "HEAD", closing);
      if (options.accessLog) {
        options.out(`${request.method} ${pathOf(request.url)} ${answer.status} ${(performance.now() - started).toFixed(1)}ms`);
      }
    });
  });
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  // Without a listener Node drops CONNECT sockets silently; fw answers 501 like any unmodelled method.
  server.on("connect", (request: IncomingMessage, socket: Duplex) => {
    const answer = dispatcher.refuse(new NotImplemented("fw does not serve CONNECT requests."), "CONNECT", "/");
    writeRaw(socket, answer);
  });
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => refuseMalformed(error, socket));
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : options.port;
      const host = options.host.includes(":") ? `[${options.host}]` : options.host;
      resolve({
        url: `http://${host}:${port}`,
        port,
        server,
        close: () => {
          closing = true;
          return shutdown(server, options.graceMs);
        },
      });
    });
  });
}

function send(response: ServerResponse, answer: Answer, head: boolean, closing: boolean): void {
  const body = answer.body;
  const length = typeof body === "string" ? Buffer.byteLength(body) : body.byteLength;
  const headers = answer.headers;
  headers.push("content-length", String(length));
  if (answer.close === true || closing) headers.push("connection", "close");
  response.writeHead(answer.status, headers);
  response.end(head || length === 0 ? undefined : body);
}

function pathOf(url: string | undefined): string {
  if (url === undefined) return "/";
  const q = url.indexOf("?");
  return q === -1 ? url : url.slice(0, q);
}

/** Writes an answer straight onto a socket that never became a request (CONNECT). */
function writeRaw(socket: Duplex, answer: Answer): void {
  const body = typeof answer.body === "string" ? Buffer.from(answer.body) : Buffer.from(answer.body);
  const lines = [`HTTP/1.1 ${answer.status} ${phrase(answer.status)}`];
  for (let i = 0; i < answer.headers.length; i += 2) lines.push(`${answer.headers[i]}: ${answer.headers[i + 1]}`);
  lines.push(`content-length: ${body.length}`, "connection: close", "", "");
  socket.end(Buffer.concat([Buffer.from(lines.join("\r\n")), body]));
}

/** Requests Node's parser refused: answered with a clear status in plain text, then closed. */
function refuseMalformed(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const status =
    error.code === "HPE_HEADER_OVERFLOW"
      ? 431
      : error.code === "HPE_INVALID_METHOD"
        ? 501
        : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
          ? 408
          : 400;
  const body = `${status} ${phrase(status)}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${phrase(status)}\r\ncontent-type: text/plain; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** Stops accepting, closes idle keep-alive connections, and waits for in-flight requests. */
function shutdown(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    timer.unref();
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}
