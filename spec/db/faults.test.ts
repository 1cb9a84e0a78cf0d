import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { Ok, Route, RouteTable, ServiceUnavailable } from "../../runtime/index.js";
import { createTableSql, DatabaseUnreachable, openDatabase, SqlStore, type TableSpec } from "../../runtime/db/index.js";
import { openPostgres } from "../../runtime/db/postgres-engine.js";
import { serve } from "../support/serve.js";
import { onPostgres } from "./engines.js";

interface Note {
  id: number;
  text: string;
}

const NOTES: TableSpec = { name: "notes", key: { field: "id", column: "id" }, columns: [{ field: "text", column: "text", type: "text", nullable: false }] };

/** A port nothing listens on: taken, then released. */
function closedPort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => done(typeof address === "object" && address !== null ? address.port : 1));
    });
  });
}

describe("issue 20: the database unreachable at boot", () => {
  it("opening a DATABASE_URL nobody answers fails with DatabaseUnreachable naming DATABASE_URL, the password redacted", async () => {
    const port = await closedPort();
    const opening = openDatabase({ env: { DATABASE_URL: `postgres://app:hunter2@127.0.0.1:${port}/app` } });
    await expect(opening).rejects.toBeInstanceOf(DatabaseUnreachable);
    const error = (await opening.catch((e: unknown) => e)) as Error;
    expect(error.message).toContain(`the PostgreSQL database named by DATABASE_URL (postgres://app@127.0.0.1:${port}/app)`);
    expect(error.message).toContain("unset DATABASE_URL to use the embedded database");
    expect(error.message).not.toContain("hunter2");
  });

  it("a server that takes the connection and never answers: DatabaseUnreachable once the connection's opening time is up, not a hang", async () => {
    const held: import("node:net").Socket[] = [];
    const silent = createServer((socket) => void held.push(socket));
    const port = await new Promise<number>((done) => silent.listen(0, "127.0.0.1", () => done((silent.address() as { port: number }).port)));
    try {
      const opening = openPostgres({ url: `postgres://app@127.0.0.1:${port}/app`, connectMs: 300, log: () => undefined });
      await expect(opening).rejects.toBeInstanceOf(DatabaseUnreachable);
      expect(held.length).toBeGreaterThan(0);
    } finally {
      for (const socket of held) socket.destroy();
      silent.close();
    }
  }, 10_000);
});

describe("issue 20: ServiceUnavailable, the core's 503", () => {
  it("a handler's ServiceUnavailable is a 503 problem page with Retry-After, and the server goes on serving", async () => {
    const server = await serve({
      routes: RouteTable.of(
        Route.get("/down", () => {
          throw new ServiceUnavailable("The mail service is down.", 30, new Error("ECONNREFUSED 10.0.0.1:25"));
        }),
        Route.get("/alive", () => Ok("alive")),
      ),
    });
    try {
      const down = await server.get("/down");
      expect(down.status).toBe(503);
      expect(down.headers.get("retry-after")).toBe("30");
      const page = await down.text();
      expect(page).toContain("503 Service Unavailable");
      expect(page).toContain("The mail service is down.");
      expect(page).not.toContain("10.0.0.1");
      expect((await server.get("/alive")).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

onPostgres((engine) => {
  describe("a statement waiting for one of the pool's connections", () => {
    it("waits its turn, in order; past the wait limit it is the 503 (ServiceUnavailable), a transaction's too, and the pool serves the next ones", async () => {
      const url = engine.cluster()?.url;
      if (url === undefined) throw new Error("no cluster");
      const db = await openPostgres({ url, max: 1, waitMs: 400, log: () => undefined });
      try {
        // In its limit: served in the order asked, once the one connection is free.
        const order: string[] = [];
        const first = db.query("SELECT pg_sleep(0.1)").then(() => order.push("first"));
        const second = db.query<{ n: number }>("SELECT 2 AS n").then((result) => order.push(`second ${result.rows[0]?.n}`));
        await Promise.all([first, second]);
        expect(order).toEqual(["first", "second 2"]);
        // Past it: the one connection is busy for 1.5 s.
        const slow = db.query("SELECT pg_sleep(1.5)");
        const waited = db.query("SELECT 1");
        const transaction = db.transaction((tx) => tx.query("SELECT 1"));
        await expect(waited).rejects.toBeInstanceOf(ServiceUnavailable);
        await expect(transaction).rejects.toBeInstanceOf(ServiceUnavailable);
        await slow;
        expect((await db.query<{ n: number }>("SELECT 3 AS n")).rows[0]?.n).toBe(3);
        expect(await db.transaction(async (tx) => (await tx.query<{ n: number }>("SELECT 4 AS n")).rows[0]?.n)).toBe(4);
      } finally {
        await db.close();
      }
    }, 30_000);
  });

  describe("issue 20: PostgreSQL lost mid-run, then back", () => {
    it("the store's call gives ServiceUnavailable and the page a 503 with Retry-After; the server keeps serving and recovers, nothing lost", async () => {
      const db = engine.db();
      const cluster = engine.cluster();
      if (cluster === undefined) throw new Error("no cluster");
      await db.script(createTableSql(NOTES));
      const store = new SqlStore<Note>(db, NOTES);
      for (const text of ["one", "two", "three"]) await store.insert({ text });
      const server = await serve({
        routes: RouteTable.of(
          Route.get("/notes", async () => Ok((await store.list({ offset: 0, limit: 10 })).rows.map((n) => n.text).join(","))),
          Route.get("/alive", () => Ok("alive")),
        ),
      });
      try {
        expect(await (await server.get("/notes")).text()).toBe("one,two,three");
        await cluster.stop();
        await expect(store.get(1)).rejects.toBeInstanceOf(ServiceUnavailable);
        await expect(store.insert({ text: "while down" })).rejects.toBeInstanceOf(ServiceUnavailable);
        const down = await server.get("/notes");
        expect(down.status).toBe(503);
        expect(down.headers.get("retry-after")).toBe("5");
        const page = await down.text();
        expect(page).toContain("503 Service Unavailable");
        expect(page).toContain("The database cannot be reached right now");
        expect(page).not.toContain("ECONNREFUSED");
        expect((await server.get("/alive")).status).toBe(200);
        await cluster.start();
        const back = await server.get("/notes");
        expect(back.status).toBe(200);
        expect(await back.text()).toBe("one,two,three");
        expect((await store.insert({ text: "four" })).text).toBe("four");
      } finally {
        await server.close();
      }
    }, 120_000);
  });
});
