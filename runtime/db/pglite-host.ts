import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PgliteApi, PgliteQueryable } from "./pglite-api-database.js";
import { pgliteCompilerOf } from "./pglite-compiler.js";
import { startPglite } from "./pglite-engine.js";
import { SERVED_FILE } from "./pglite-served.js";
import { frame, FrameReader, isRequest, toWireError, type Reply, type Request, type WireResult } from "./pglite-serve-protocol.js";

/** An embedded database this process holds open and serves to the others of this machine. */
export interface HeldPglite {
  readonly directory: string;
  /** Stops serving, closes PGlite (it flushes to disk) and lets go of the directory. */
  close(): Promise<void>;
}

/**
 * Opens the embedded database in `directory` (its lock taken, as any opener does; `env` read as the
 * app's own, for FW_PGLITE_COMPILER) and serves it
 * on a local socket, named in `<directory>/fw.served`, to the processes that open the directory
 * after it: `fw dev`'s supervisor holds the app's database across the app's restarts, and
 * `db status`, `db migrate` … run beside it reach the same one instead of being refused the
 * lock. The socket is a Unix socket in a folder of its own that only this user may enter (a
 * named pipe on Windows). Statements from every client run on PGlite's one connection, as an
 * app's own concurrent requests do: a transaction holds it until it ends, and a client that goes
 * away mid-transaction has it rolled back.
 */
export async function holdPglite(directory: string, env: Readonly<Record<string, string | undefined>> = process.env): Promise<HeldPglite> {
  // fw dev's database: PGlite's own fsync-off start, as in `dev` (docs/guides/database.md, Durability);
  // V8's compiler for it as FW_PGLITE_COMPILER in `env` says (pglite-compiler.ts): fw dev passes the
  // app's environment (its .env files too), so the engine is the one the app would have started itself.
  const { pglite, unlock } = await startPglite(directory, { durable: false, compiler: pgliteCompilerOf(env) });
  const folder = process.platform === "win32" ? undefined : mkdtempSync(join(tmpdir(), "fw-db-"));
  const address = folder === undefined ? `\\\\.\\pipe\\fw-db-${randomBytes(12).toString("hex")}` : join(folder, "s");
  const host = new Host(pglite);
  const server = createServer((socket) => host.serve(socket));
  try {
    await listening(server, address);
    writeFileSync(join(directory, SERVED_FILE), JSON.stringify({ pid: process.pid, address }));
  } catch (error) {
    server.close();
    if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
    await pglite.close().finally(unlock);
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    directory,
    close: () =>
      (closing ??= (async () => {
        rmSync(join(directory, SERVED_FILE), { force: true });
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        await host.end();
        await closed;
        if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
        try {
          await pglite.close();
        } finally {
          unlock();
        }
      })()),
  };
}

function listening(server: Server, address: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(address, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/** Thrown into a client's transaction to roll it back. */
const ROLL_BACK = Symbol("roll back");

interface OpenTransaction {
  readonly tx: PgliteQueryable;
  readonly decide: (commit: boolean) => void;
  /** PGlite's `transaction`: settles once it committed or rolled back. */
  readonly done: Promise<void>;
}

/** One connected process. */
class Client {
  readonly transactions = new Map<number, OpenTransaction>();
  closed = false;

  constructor(readonly socket: Socket) {}

  reply(message: Reply): void {
    if (!this.closed) this.socket.write(frame(message));
  }
}

interface Lease {
  readonly owner: Client;
  readonly released: Promise<void>;
  readonly release: () => void;
}

/** Runs the clients' requests on the one PGlite. */
class Host {
  readonly #clients = new Set<Client>();
  #lease: Lease | undefined;
  #transactions = 0;

  constructor(private readonly pglite: PgliteApi) {}

  serve(socket: Socket): void {
    const client = new Client(socket);
    this.#clients.add(client);
    const reader = new FrameReader();
    socket.on("data", (chunk: Buffer) => {
      let messages: unknown[];
      try {
        messages = reader.push(chunk);
      } catch {
        socket.destroy(); // not our protocol
        return;
      }
      for (const message of messages) {
        if (isRequest(message)) void this.#answer(client, message);
        else socket.destroy();
      }
    });
    socket.on("error", () => {}); // a client killed mid-write: its close follows
    socket.on("close", () => void this.#gone(client));
  }

  /** Ends every client: their transactions roll back. */
  async end(): Promise<void> {
    const clients = [...this.#clients];
    for (const client of clients) client.socket.destroy();
    await Promise.all(clients.map((client) => this.#gone(client)));
  }

  async #answer(client: Client, request: Request): Promise<void> {
    try {
      client.reply({ id: request.id, ok: await this.#run(client, request) });
    } catch (error) {
      client.reply({ id: request.id, error: toWireError(error) });
    }
  }

  async #run(client: Client, request: Request): Promise<unknown> {
    if ((request.op === "query" || request.op === "exec") && request.tx !== undefined) {
      // Inside a transaction that began: never held back (PGlite holds the others back until it ends).
      const open = client.transactions.get(request.tx);
      if (open === undefined) throw new Error(`fw/db: transaction ${request.tx} is not open (it ended, or never began)`);
      return request.op === "query" ? result(await open.tx.query(request.sql, [...request.params])) : void (await open.tx.exec(request.sql));
    }
    switch (request.op) {
      case "query":
        await this.#turn(client);
        return result(await this.pglite.query(request.sql, [...request.params]));
      case "exec":
        await this.#turn(client);
        await this.pglite.exec(request.sql);
        return null;
      case "begin":
        await this.#turn(client);
        return this.#begin(client);
      case "end":
        return this.#end(client, request.tx, request.commit);
      case "lease":
        return this.#take(client);
      case "release":
        this.#release(client);
        return null;
    }
  }

  /** Waits while another client holds the lease. */
  async #turn(client: Client): Promise<void> {
    while (this.#lease !== undefined && this.#lease.owner !== client) await this.#lease.released;
  }

  async #take(client: Client): Promise<null> {
    await this.#turn(client);
    if (this.#lease?.owner === client) throw new Error("fw/db: this client already holds the lease");
    let release = (): void => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    this.#lease = { owner: client, released, release };
    return null;
  }

  #release(client: Client): void {
    const lease = this.#lease;
    if (lease?.owner !== client) return;
    this.#lease = undefined;
    lease.release();
  }

  /** Starts a transaction for `client` once PGlite ends the one running; resolves with its number. */
  async #begin(client: Client): Promise<number> {
    const id = ++this.#transactions;
    let decide = (_commit: boolean): void => {};
    const decided = new Promise<boolean>((resolve) => (decide = resolve));
    let began = (_tx: PgliteQueryable): void => {};
    const begun = new Promise<PgliteQueryable>((resolve) => (began = resolve));
    const done = this.pglite.transaction(async (tx) => {
      began(tx);
      if (!(await decided)) throw ROLL_BACK;
    });
    done.catch(() => {}); // awaited by `end`; a roll-back is not an unhandled rejection meanwhile
    // BEGIN failing rejects `done` before `begun` resolves.
    const tx = await Promise.race([begun, done.then(() => Promise.reject(new Error("fw/db: the transaction ended before it began")))]);
    if (client.closed) {
      decide(false);
      await done.catch(() => {});
      throw new Error("fw/db: the client went away");
    }
    client.transactions.set(id, { tx, decide, done });
    return id;
  }

  async #end(client: Client, id: number, commit: boolean): Promise<null> {
    const open = client.transactions.get(id);
    if (open === undefined) throw new Error(`fw/db: transaction ${id} is not open (it ended, or never began)`);
    client.transactions.delete(id);
    open.decide(commit);
    try {
      await open.done;
    } catch (error) {
      if (error !== ROLL_BACK) throw error;
    }
    return null;
  }

  /** A client disconnected (or was killed): its transactions roll back, its lease ends. */
  async #gone(client: Client): Promise<void> {
    if (client.closed) return;
    client.closed = true;
    this.#clients.delete(client);
    this.#release(client);
    const open = [...client.transactions.values()];
    client.transactions.clear();
    for (const transaction of open) transaction.decide(false);
    await Promise.all(open.map((transaction) => transaction.done.catch(() => {})));
  }
}

function result(value: { rows: unknown[]; affectedRows?: number }): WireResult {
  return value.affectedRows === undefined ? { rows: value.rows } : { rows: value.rows, affectedRows: value.affectedRows };
}
