import type { IncomingMessage } from "node:http";
import { WebSocket, type ClientOptions } from "ws";

/** A test client: its messages in arrival order, and how it closed. */
export interface Client {
  readonly socket: WebSocket;
  /** The next text message, waiting for it if none is queued. */
  next(): Promise<string>;
  /** The close code and reason, once the connection is closed. */
  readonly closed: Promise<{ readonly code: number; readonly reason: string }>;
}

/** Options for `connect`/`refusal`: `origin` defaults to the server's own; `null` sends none. */
export type ConnectOptions = Omit<ClientOptions, "origin"> & { readonly origin?: string | null };

function open(base: string, path: string, options: ConnectOptions): WebSocket {
  const { origin = base, ...rest } = options;
  return new WebSocket(base.replace(/^http/, "ws") + path, { ...rest, ...(origin === null ? {} : { origin }) });
}

/** Opens a socket and resolves once it is open; rejects with the status when refused. */
export function connect(base: string, path: string, options: ConnectOptions = {}): Promise<Client> {
  const socket = open(base, path, options);
  const queued: string[] = [];
  const waiting: ((text: string) => void)[] = [];
  socket.on("message", (data, isBinary) => {
    const text = isBinary ? "(binary)" : String(data);
    const waiter = waiting.shift();
    if (waiter === undefined) queued.push(text);
    else waiter(text);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.on("close", (code, reason) => resolve({ code, reason: reason.toString() }));
  });
  const client: Client = {
    socket,
    closed,
    next: () => {
      const text = queued.shift();
      return text !== undefined ? Promise.resolve(text) : new Promise((resolve) => waiting.push(resolve));
    },
  };
  return new Promise((resolve, reject) => {
    socket.once("open", () => resolve(client));
    socket.once("unexpected-response", (_request, response: IncomingMessage) => {
      reject(new Error(`refused with ${response.statusCode}`));
      response.resume();
    });
    socket.once("error", reject);
  });
}

/** What the server answered to a handshake it refused. */
export interface Refusal {
  readonly status: number;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
}

/** Attempts a handshake that should be refused; rejects if the socket opens instead. */
export function refusal(base: string, path: string, options: ConnectOptions = {}): Promise<Refusal> {
  const socket = open(base, path, options);
  return new Promise((resolve, reject) => {
    socket.once("open", () => {
      socket.terminate();
      reject(new Error(`the handshake to ${path} was accepted`));
    });
    socket.once("unexpected-response", (_request, response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString("utf8") });
      });
    });
    socket.once("error", reject);
  });
}

/** A promise with its resolve function, for listeners that report to the test. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
