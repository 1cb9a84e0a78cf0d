import { createConnection, createServer, type Server, type Socket } from "node:net";

/**
 * A TCP proxy in front of a PostgreSQL server that writes down every statement a client runs:
 * the real queries an app sends, counted on the wire (PostgreSQL's frontend protocol v3). A
 * simple query (`Q`) is one statement; in the extended protocol each `Bind` of a parsed
 * statement (named or not: a prepared statement run again is counted again) is one. Bytes are
 * passed on unchanged both ways.
 */
export interface QueryLog {
  /** `postgres://…` naming the proxy instead of the server, same user and database. */
  readonly url: string;
  /** Every statement run through the proxy so far, in order (the SQL text). */
  readonly statements: string[];
  close(): Promise<void>;
}

/** Protocol codes of the untyped first messages (startup, SSL and GSSAPI requests, cancel). */
const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;

export async function queryLog(serverUrl: string): Promise<QueryLog> {
  const target = new URL(serverUrl);
  const statements: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
    sockets.add(client).add(upstream);
    const reader = new ClientReader((sql) => statements.push(sql));
    client.on("data", (chunk: Buffer) => {
      reader.push(chunk);
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("the query log's proxy has no port");
  const url = new URL(serverUrl);
  url.hostname = "127.0.0.1";
  url.port = String(address.port);
  return {
    url: url.toString(),
    statements,
    close: () =>
      new Promise<void>((done) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => done());
      }),
  };
}

/** Reads the client's side of one connection, message by message, and reports each statement run. */
class ClientReader {
  #buffer = Buffer.alloc(0);
  #startup = true;
  /** Parsed statements by name ("" is the unnamed one). */
  readonly #parsed = new Map<string, string>();

  constructor(private readonly ran: (sql: string) => void) {}

  push(chunk: Buffer): void {
    this.#buffer = Buffer.concat([this.#buffer, chunk]);
    for (;;) {
      if (this.#startup) {
        if (this.#buffer.length < 8) return;
        const length = this.#buffer.readInt32BE(0);
        if (this.#buffer.length < length) return;
        const code = this.#buffer.readInt32BE(4);
        this.#buffer = this.#buffer.subarray(length);
        // After an SSL or GSSAPI request the client sends its startup message (the server said no).
        if (code !== SSL_REQUEST && code !== GSS_REQUEST) this.#startup = false;
        continue;
      }
      if (this.#buffer.length < 5) return;
      const type = String.fromCharCode(this.#buffer[0] as number);
      const length = this.#buffer.readInt32BE(1);
      if (this.#buffer.length < 1 + length) return;
      this.message(type, this.#buffer.subarray(5, 1 + length));
      this.#buffer = this.#buffer.subarray(1 + length);
    }
  }

  private message(type: string, body: Buffer): void {
    if (type === "Q") this.ran(cString(body, 0).text);
    else if (type === "P") {
      const name = cString(body, 0);
      this.#parsed.set(name.text, cString(body, name.next).text);
    } else if (type === "B") {
      const portal = cString(body, 0);
      const statement = cString(body, portal.next).text;
      this.ran(this.#parsed.get(statement) ?? `(unknown statement ${JSON.stringify(statement)})`);
    }
  }
}

function cString(body: Buffer, from: number): { text: string; next: number } {
  const end = body.indexOf(0, from);
  return { text: body.toString("utf8", from, end), next: end + 1 };
}
