import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { Server as NetServer, type Socket } from "node:net";
import type { Duplex, Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { StreamBody } from "../http/response.js";
import { NotImplemented } from "../http/failure.js";
import { isMethod } from "../http/method.js";
import { splitAbsoluteForm } from "../http/path.js";
import type { WsServer } from "../ws/server.js";
import type { AccessEntry } from "../log/logger.js";
import { REQUEST_ID_HEADER, requestIdOf } from "../log/request-id.js";
import type { RequestSpan, Tracer } from "../observe/tracing.js";
import type { Answer } from "./answer.js";
import type { Dispatcher } from "./dispatch.js";
import { MAX_HEADERS, overLimits } from "./limits.js";
import { lingerOver } from "./linger.js";
import { plainAnswer } from "./problem.js";
import { writeRaw } from "./raw-answer.js";
import { answerUpgrade } from "./upgrade.js";

export interface ServerOptions {
  readonly port: number;
  readonly host: string;
  /**
   * Told of every answered request (its id, method, path without the query, route, status,
   * milliseconds): the access log, metrics. Undefined: nothing is told, and the clock is not read.
   */
  readonly observe: ((entry: AccessEntry) => void) | undefined;
  /** Traces (runtime/trace, when the OTEL_* variables configure it): a server span around each request's dispatch. */
  readonly tracer?: Tracer | undefined;
  /** How long in-flight requests may run on after SIGTERM before their connections are cut. */
  readonly graceMs: number;
  /**
   * Read when the server closes: `keepIdle` leaves idle keep-alive connections open (each gets
   * `Connection: close` on its next answer, or ends at its keep-alive timeout) instead of cutting
   * them at once, which a client may be sending on right then: a reload's drain.
   */
  readonly drain?: { readonly keepIdle: boolean };
  /** Node's slow-client guards, checked positive (and headers within request) by `HttpApp`. */
  readonly timeouts: Timeouts;
  /** Logs, once, an answer Node refused to write (it is replaced by a plain 500). */
  readonly logError: (what: string, cause: unknown) => void;
}

export interface Timeouts {
  /** The request line and headers must arrive within this; else 408 and the connection closes. */
  readonly headersMs: number;
  /** The whole request, body included, must arrive within this; else 408. */
  readonly requestMs: number;
  /** An idle keep-alive connection is closed after this. */
  readonly keepAliveMs: number;
  /** An answer the client has taken nothing of for this long (part of it still unsent) closes its connection. */
  readonly sendMs: number;
}

/**
 * A listening server. `close` stops accepting, lets in-flight requests finish, closes open
 * WebSockets with 1001 (going away), then resolves.
 */
export interface RunningServer {
  readonly url: string;
  readonly port: number;
  readonly server: Server;
  close(): Promise<void>;
}

/**
 * How often Node looks for connections past their header or request deadline. Node checks every
 * 30 s by default, so a 2 s header timeout could take 32 s to bite: a quarter of the shortest
 * deadline, between 10 ms and 1 s, keeps the error under a second at a negligible cost (one walk
 * over the open connections).
 */
export function checkingIntervalMs(timeouts: Timeouts): number {
  return Math.max(10, Math.min(1000, Math.floor(Math.min(timeouts.headersMs, timeouts.requestMs) / 4)));
}

/**
 * Serves a dispatcher over node:http, and WebSocket upgrades through `sockets`. The application
 * never calls this itself: `HttpApp` does.
 */
export function startServer(dispatcher: Dispatcher, sockets: WsServer | undefined, options: ServerOptions): Promise<RunningServer> {
  let closing = false;
  const running = new RunningHandlers();
  const { observe, timeouts, tracer } = options;
  // The clock is read only when something observes requests (the access log, metrics, a sampled trace).
  const now = (): number => (observe !== undefined ? performance.now() : 0);
  const log = (request: IncomingMessage, id: string, status: number, route: string | undefined, started: number, span?: RequestSpan): void => {
    if (observe !== undefined || span !== undefined) {
      const entry = { requestId: id, method: request.method ?? "?", path: pathOf(request.url), route, status, ms: performance.now() - started };
      observe?.(entry);
      span?.end(entry);
    }
  };
  const refused = (request: IncomingMessage, cause: unknown): void =>
    options.logError(`500 ${request.method} ${pathOf(request.url)}: Node refused the answer's status line or headers`, cause);
  const unopened = (request: IncomingMessage, cause: unknown): void =>
    options.logError(`500 ${request.method} ${pathOf(request.url)}: the answer's stream (a stored file) could not be opened`, cause);
  const respond = (request: IncomingMessage, response: ServerResponse, answer: Answer | undefined, id: string, started: number, span: RequestSpan | undefined): void => {
    if (answer === undefined) {
      response.destroy();
      span?.end({ requestId: id, method: request.method ?? "?", path: "", route: undefined, status: 0, ms: 0 });
      return;
    }
    // A refused body still arriving: read the rest (briefly, boundedly) so the client sees the answer.
    const lingering = answer.close === true ? lingerOver(request) : undefined;
    if (lingering !== undefined) {
      void lingering.then(() => answerNow(request, response, answer, id, started, span));
      return;
    }
    answerNow(request, response, answer, id, started, span);
  };
  const answerNow = (request: IncomingMessage, response: ServerResponse, answer: Answer, id: string, started: number, span: RequestSpan | undefined): void => {
    if (typeof answer.body === "object" && !(answer.body instanceof Uint8Array)) {
      void sendStream(request, response, answer, answer.body, { closing, refused, unopened, sendMs: timeouts.sendMs, id }).then((status) => log(request, id, status, answer.route, started, span));
      return;
    }
    log(request, id, send(request, response, answer, closing, refused, timeouts.sendMs, id), answer.route, started, span);
  };
  const serverOptions = {
    requestTimeout: timeouts.requestMs,
    headersTimeout: timeouts.headersMs,
    connectionsCheckingInterval: checkingIntervalMs(timeouts),
    keepAliveTimeout: timeouts.keepAliveMs,
  };
  makeStdio();
  // `respond` is made once here, not per request: a synchronous answer allocates no closure.
  const server = createServer(serverOptions, (request, response) => {
    const id = requestIdOf(request.headers[REQUEST_ID_HEADER]);
    // A request the sampler left out has no span: it is served as if untraced.
    const span = tracer?.startRequest(request, id);
    const started = observe !== undefined || span !== undefined ? performance.now() : 0;
    const answer = overLimits(request) ?? (span === undefined ? dispatcher.dispatch(request, id) : span.run(() => dispatcher.dispatch(request, id)));
    if (answer instanceof Promise) {
      running.started();
      void answer.then((done) => {
        running.finished();
        respond(request, response, done, id, started, span);
      });
    } else respond(request, response, answer, id, started, span);
  });
  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const started = now();
    const id = requestIdOf(request.headers[REQUEST_ID_HEADER]);
    const refused = overLimits(request);
    if (refused !== undefined) {
      writeRaw(socket, refused);
      log(request, id, refused.status, undefined, started);
      return;
    }
    void answerUpgrade(request, socket, head, dispatcher, sockets).then((status) => {
      if (status !== undefined) log(request, id, status, undefined, started);
    });
  });
  // Without a listener Node drops CONNECT sockets silently; fw answers 501 like any unmodelled method.
  server.on("connect", (request: IncomingMessage, socket: Duplex) => {
    const answer = dispatcher.refuse(new NotImplemented("fw does not serve CONNECT requests."), "CONNECT", "/");
    writeRaw(socket, answer);
  });
  server.on("connection", rememberPeer);
  server.maxHeadersCount = MAX_HEADERS + 1; // one more, so a request over the limit is seen
  server.on("clientError", (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex) => refuseMalformed(error, socket, dispatcher));
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
        close: async () => {
          closing = true;
          // Upgraded sockets still count as the server's connections: until they close,
          // `server.close` would never call back.
          // A handler whose client has gone away holds no connection, yet still runs (and may still
          // need the database, which an app closes after this): waited for too, within the grace.
          await Promise.all([sockets?.close(options.graceMs), shutdown(server, options.graceMs, options.drain?.keepIdle === true), running.settled(options.graceMs)]);
        },
      });
    });
  });
}

/**
 * Makes `process.stdout` and `process.stderr` now, before the first request. Node creates each
 * on first use, and its socket code reads `process.stderr` whenever a connection closes: left
 * alone, stderr (a stream like any other) is made mid-service, after Node's stream code was
 * optimized for request sockets alone, and it turns polymorphic, slower for every later request
 * (bench/FINDINGS.md 15).
 */
function makeStdio(): void {
  void process.stdout;
  void process.stderr;
}

/**
 * Reads the connection's peer address as it opens. Node asks the socket for it on first read and
 * keeps it, but cannot ask once the socket has closed; a `Request` reads `clientAddress` only when
 * a handler asks (dispatch's Exchange), which may be after its connection closed (a request kept
 * for later). One `getpeername` per connection, not per request.
 */
function rememberPeer(socket: Socket): void {
  void socket.remoteAddress;
}

/**
 * Writes an answer and returns the status sent. Node checks the status line and headers as it
 * writes them and throws on what HTTP cannot carry (a header value beyond Latin-1, a control
 * character): that is answered with a plain 500 instead of an exception that would end the
 * process.
 */
function send(
  request: IncomingMessage,
  response: ServerResponse,
  answer: Answer,
  closing: boolean,
  refused: (request: IncomingMessage, cause: unknown) => void,
  sendMs: number,
  /** The request's id, sent back as `X-Request-Id`. */
  id: string,
): number {
  const text = answer.body as string | Uint8Array;
  const body = typeof text === "string" && text.length >= ENCODED_FROM && request.method !== "HEAD" ? Buffer.from(text) : text;
  const length = typeof body === "string" ? Buffer.byteLength(body) : body.byteLength;
  const given = answer.headers;
  // A new list in one literal for the usual answer (a content type and nosniff): pushing onto the
  // answer's own list grew its backing store on every request.
  // A 304 has no content and says nothing of its length (RFC 9110 8.6): its validators only.
  const headers =
    answer.status === 304
      ? [...given, REQUEST_ID_HEADER, id]
      : given.length === 4
      ? [given[0] as string, given[1] as string, given[2] as string, given[3] as string, "content-length", String(length), REQUEST_ID_HEADER, id]
      : [...given, "content-length", String(length), REQUEST_ID_HEADER, id];
  if (answer.close === true || closing) headers.push("connection", "close");
  try {
    response.writeHead(answer.status, headers);
  } catch (cause) {
    refused(request, cause);
    return send(request, response, plainAnswer(500, answer.close === true), closing, refused, sendMs, id);
  }
  response.end(request.method === "HEAD" || length === 0 ? undefined : body);
  answer.body = "";
  watchSlowReader(response.socket, sendMs);
  return answer.status;
}

/**
 * A text body from this many UTF-16 units on is encoded to bytes once, in `send`: Node writes a
 * text body by joining it to the status line and headers and encoding that (a flat copy of the
 * whole page first, two bytes a character when one is beyond Latin-1, as a cut cell's "…" is),
 * after `Buffer.byteLength` has read it for its length. Bytes go out beside the headers as they
 * are: ~38 KB less garbage a request on the db bench's Index of 50 rows (bench/FINDINGS.md 40).
 * Shorter bodies stay text, written in one piece with the headers. Node does not pool a Buffer
 * this long either (`Buffer.poolSize` / 2).
 */
const ENCODED_FROM = 4096;

interface StreamSending {
  readonly closing: boolean;
  readonly refused: (request: IncomingMessage, cause: unknown) => void;
  readonly unopened: (request: IncomingMessage, cause: unknown) => void;
  readonly sendMs: number;
  /** The request's id, sent back as `X-Request-Id`. */
  readonly id: string;
}

/**
 * Writes an answer whose body is a stream (a stored file): opened only when bytes go out (not for
 * HEAD, a 304 or an empty body), before the status line, so a file that cannot be opened is a
 * plain 500 rather than a cut answer. Once the headers are out, a stream that fails (or a client
 * that leaves) ends the connection: the client sees a short body, never a wrong one. The
 * stream's own backpressure paces it to the client; `sendMs` cuts a client that stops reading.
 */
async function sendStream(request: IncomingMessage, response: ServerResponse, answer: Answer, body: StreamBody, how: StreamSending): Promise<number> {
  const { closing, refused } = how;
  const headers = answer.status === 304 ? [...answer.headers, REQUEST_ID_HEADER, how.id] : [...answer.headers, "content-length", String(body.length), REQUEST_ID_HEADER, how.id];
  if (answer.close === true || closing) headers.push("connection", "close");
  const silent = request.method === "HEAD" || answer.status === 304 || body.length === 0;
  let stream: Readable | undefined;
  if (!silent) {
    try {
      stream = await body.open();
    } catch (cause) {
      how.unopened(request, cause);
      return send(request, response, plainAnswer(500), closing, refused, how.sendMs, how.id);
    }
  }
  try {
    response.writeHead(answer.status, headers);
  } catch (cause) {
    stream?.destroy();
    refused(request, cause);
    return send(request, response, plainAnswer(500, answer.close === true), closing, refused, how.sendMs, how.id);
  }
  if (stream === undefined) {
    response.end();
    return answer.status;
  }
  response.socket?.setTimeout(how.sendMs);
  pipeline(stream, response).catch(() => response.destroy());
  return answer.status;
}

/**
 * When the kernel did not take the whole answer at once (the client reads slowly, or not at
 * all), the connection gets an inactivity timeout until the answer is out: with no listener of
 * fw's, Node closes a socket whose timeout fires. Once the answer is sent, Node replaces the
 * timeout with the keep-alive one. An answer that went out at once costs one property read.
 */
function watchSlowReader(socket: Socket | null, sendMs: number): void {
  if (socket !== null && socket.writableLength > 0) socket.setTimeout(sendMs);
}

/** The longest path a log line shows: a 414's 8 KiB path would drown the log. */
const LOGGED_PATH_LENGTH = 200;

/**
 * A request's path as log lines show it: no query (it may hold secrets), an absolute-form
 * target's path only (as dispatch serves it), cut past 200 characters.
 */
function pathOf(url: string | undefined): string {
  if (url === undefined) return "/";
  // `http://host/a?q` is logged as `/a`; a target in no form fw serves (`*`, garbage) as sent.
  const target = url.charCodeAt(0) === 47 /* "/" */ ? url : (splitAbsoluteForm(url)?.origin ?? url);
  const q = target.indexOf("?");
  const path = q === -1 ? target : target.slice(0, q) || "/";
  return path.length > LOGGED_PATH_LENGTH ? `${path.slice(0, LOGGED_PATH_LENGTH)}… (${path.length} characters)` : path;
}

/**
 * Requests Node's parser refused: answered with a clear status, then closed. A method Node cannot
 * parse (`FROB`, a lower-case `get`) gets the framed 501 problem page any other unserved method
 * gets (TRACE, PROPFIND): its request line is readable even though Node refused it. The rest
 * (malformed, headers too large, too slow) are answered in plain text: there is no request line
 * fw could trust to frame a page for.
 */
function refuseMalformed(error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex, dispatcher: Dispatcher): void {
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  if (error.code === "HPE_INVALID_METHOD") {
    const { method, path } = refusedLine(error.rawPacket);
    writeRaw(socket, dispatcher.refuse(new NotImplemented(unservedMethod(method)), method, path));
    return;
  }
  const status = error.code === "HPE_HEADER_OVERFLOW" ? 431 : error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
  writeRaw(socket, plainAnswer(status));
}

/** A method token (RFC 9110) and an origin-form path of plain characters, as a request line starts. */
const REQUEST_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]{1,32}) (\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/]{0,2048})[ ?]/;

/**
 * The method and path of the request line Node refused, read from the bytes it was parsing; a
 * line that does not read as one (or a pipelined earlier request's, whose method was fine) gives
 * "?" and "/".
 */
function refusedLine(packet: Buffer | undefined): { method: string; path: string } {
  const match = REQUEST_LINE.exec(packet === undefined ? "" : packet.subarray(0, 4096).toString("latin1"));
  if (match === null || isMethod(match[1] as string)) return { method: "?", path: "/" };
  return { method: match[1] as string, path: match[2] as string };
}

function unservedMethod(method: string): string {
  if (method === "?") return "fw could not read this request's method; it serves GET, POST, PUT, PATCH, DELETE, HEAD and OPTIONS.";
  const upper = method.toUpperCase();
  const hint = isMethod(upper) ? ` Methods are case-sensitive: send ${upper}.` : "";
  return `fw does not serve ${method} requests.${hint}`;
}

/**
 * The handlers whose answers are still promises: a count, and whoever waits for it to reach
 * zero. A request costs an increment and a decrement (no promise, no closure of its own).
 */
class RunningHandlers {
  #count = 0;
  readonly #waiting: (() => void)[] = [];

  started(): void {
    this.#count++;
  }

  finished(): void {
    if (--this.#count === 0 && this.#waiting.length > 0) for (const done of this.#waiting.splice(0)) done();
  }

  /** Resolves once no handler runs, or after `graceMs` (a handler past the grace is not waited for). */
  settled(graceMs: number): Promise<void> {
    if (this.#count === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.splice(this.#waiting.indexOf(done), 1);
        resolve();
      }, graceMs);
      timer.unref();
      const done = (): void => {
        clearTimeout(timer);
        resolve();
      };
      this.#waiting.push(done);
    });
  }
}

/**
 * Stops accepting, closes idle keep-alive connections (unless `keepIdle`: then they end on their
 * next answer or their keep-alive timeout), and waits for in-flight requests.
 */
function shutdown(server: Server, graceMs: number, keepIdle: boolean): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    timer.unref();
    const closed = (): void => {
      clearTimeout(timer);
      resolve();
    };
    // node:http's close also cuts the idle connections; net's stops accepting only.
    if (keepIdle) NetServer.prototype.close.call(server, closed);
    else {
      server.close(closed);
      server.closeIdleConnections();
    }
  });
}
