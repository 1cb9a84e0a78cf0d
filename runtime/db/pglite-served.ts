import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import type { Database } from "./database.js";
import { PgliteApiDatabase, type PgliteApi, type PgliteQueryable } from "./pglite-api-database.js";
import { frame, FrameReader, fromWireError, isReply, type Request, type WireResult } from "./pglite-serve-protocol.js";

/**
 * The file in an embedded database's directory that names the process serving it and where
 * (pglite-host.ts): `{ "pid": …, "address": … }`, there while that process holds it.
 */
export const SERVED_FILE = "fw.served";

/**
 * The embedded database in `directory` as the process holding it serves it (`fw dev`'s
 * supervisor), or undefined when no process serves it: no `fw.served` there, or one left by a
 * process that is gone (its socket refuses), and the directory is opened as usual.
 */
export async function servedPglite(directory: string): Promise<Database | undefined> {
  let served: unknown;
  try {
    served = JSON.parse(readFileSync(join(directory, SERVED_FILE), "utf8"));
  } catch {
    return undefined;
  }
  const { pid, address } = (served ?? {}) as { pid?: unknown; address?: unknown };
  if (typeof pid !== "number" || typeof address !== "string") return undefined;
  const socket = await connected(address);
  if (socket === undefined) return undefined;
  return new PgliteApiDatabase(new ServedPglite(socket, pid), `PGlite at ${directory}`, () => {});
}

function connected(address: string): Promise<Socket | undefined> {
  return new Promise((resolve) => {
    const socket = connect(address);
    socket.once("connect", () => {
      socket.off("error", failed);
      resolve(socket);
    });
    const failed = (): void => resolve(undefined);
    socket.once("error", failed);
  });
}

/** A request before it is given its id. */
type WithoutId<R> = R extends unknown ? Omit<R, "id"> : never;
type Ask = WithoutId<Request>;

/** PGlite as another process serves it: each call a request on the socket. */
class ServedPglite implements PgliteApi {
  readonly #socket: Socket;
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  readonly #closed: Promise<void>;
  #ids = 0;
  #lost: Error | undefined;

  constructor(socket: Socket, holder: number) {
    this.#socket = socket;
    // Idle, the socket does not keep the process alive (as PGlite in the process does not).
    socket.unref();
    const reader = new FrameReader();
    socket.on("data", (chunk: Buffer) => {
      for (const reply of reader.push(chunk)) {
        if (!isReply(reply)) continue;
        const waiter = this.#pending.get(reply.id);
        if (waiter === undefined) continue;
        this.#settled(reply.id);
        if ("error" in reply) waiter.reject(fromWireError(reply.error));
        else waiter.resolve(reply.ok);
      }
    });
    socket.on("error", () => {}); // its close follows
    this.#closed = new Promise((resolve) =>
      socket.once("close", () => {
        // A connection error (faults.ts): the requests that need the database answer 503.
        this.#lost = Object.assign(
          new Error(`fw/db: lost the embedded database served by process ${holder} (fw dev): it stopped, or closed the database. Start it again, or stop it to open the database here.`),
          { code: "ECONNRESET" },
        );
        for (const waiter of this.#pending.values()) waiter.reject(this.#lost);
        this.#pending.clear();
        resolve();
      }),
    );
  }

  #ask(request: Ask): Promise<unknown> {
    if (this.#lost !== undefined) return Promise.reject(this.#lost);
    const id = ++this.#ids;
    return new Promise((resolve, reject) => {
      let message: Buffer;
      try {
        message = frame({ ...request, id } as Request);
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error))); // a value that cannot be sent (a function)
        return;
      }
      if (this.#pending.size === 0) this.#socket.ref();
      this.#pending.set(id, { resolve, reject });
      this.#socket.write(message);
    });
  }

  #settled(id: number): void {
    this.#pending.delete(id);
    if (this.#pending.size === 0) this.#socket.unref();
  }

  async query<R>(sql: string, params: unknown[] = []): Promise<{ rows: R[]; affectedRows?: number }> {
    return (await this.#ask({ op: "query", sql, params })) as WireResult as { rows: R[]; affectedRows?: number };
  }

  async exec(sql: string): Promise<unknown> {
    return this.#ask({ op: "exec", sql });
  }

  async transaction<T>(work: (tx: PgliteQueryable) => Promise<T>): Promise<T> {
    const tx = (await this.#ask({ op: "begin" })) as number;
    const inside: PgliteQueryable = {
      query: async <R>(sql: string, params: unknown[] = []) => (await this.#ask({ op: "query", sql, params, tx })) as { rows: R[]; affectedRows?: number },
      exec: (sql: string) => this.#ask({ op: "exec", sql, tx }),
    };
    let value: T;
    try {
      value = await work(inside);
    } catch (error) {
      await this.#ask({ op: "end", tx, commit: false }).catch(() => undefined);
      throw error;
    }
    await this.#ask({ op: "end", tx, commit: true });
    return value;
  }

  async lease<T>(work: () => Promise<T>): Promise<T> {
    await this.#ask({ op: "lease" });
    try {
      return await work();
    } finally {
      await this.#ask({ op: "release" }).catch(() => undefined);
    }
  }

  /** Disconnects; the database stays open in the process serving it. */
  async close(): Promise<void> {
    this.#socket.ref(); // the close is waited for: the process must not end before it
    this.#socket.end();
    await this.#closed;
  }
}
