import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { Ok, Route, RouteTable, ServiceUnavailable } from "../../runtime/index.js";
import { createTableSql, DatabaseUnreachable, openDatabase, SqlStore, type TableSpec } from "../../runtime/db/index.js";
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
