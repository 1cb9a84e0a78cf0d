// A server's close waits for the handlers still running, not only for the connections (found
// while profiling the db pages, bench/FINDINGS.md 40): a request whose client left (wrk stopping,
// a browser closed, a proxy's timeout) has no connection left to wait for, yet its handler still
// runs, and an app closes its database once the server has closed. Closing as soon as the last
// connection went left that handler's next statement queued on an ended pool: a 503 after the
// pool's 5 s, a "lost PostgreSQL" line, a write refused, and every SIGTERM under load 5 s late.
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { Ok, Route, RouteTable } from "../../runtime/index.js";
import { serve } from "../support/serve.js";

/** A handler that runs until `release` is called, with a promise for its start. */
function heldRoute(events: string[]) {
  let started!: () => void;
  let release!: () => void;
  const running = new Promise<void>((done) => (started = done));
  const held = new Promise<void>((done) => (release = done));
  const table = RouteTable.of(
    Route.get("/held", async () => {
      started();
      await held;
      events.push("handler finished");
      return Ok(<p>late</p>);
    }),
  );
  return { table, running, release };
}

describe("closing a server", () => {
  it("waits for a handler whose client has gone away before it resolves", async () => {
    const events: string[] = [];
    const { table, running, release } = heldRoute(events);
    const app = await serve({ routes: table });
    const socket = connect(app.port, "127.0.0.1");
    socket.on("error", () => {});
    socket.write("GET /held HTTP/1.1\r\nHost: localhost\r\n\r\n");
    await running;
    // The client leaves: the server has no connection left to wait for.
    await new Promise<void>((done) => {
      socket.once("close", () => done());
      socket.destroy();
    });
    const closed = app.close().then(() => events.push("closed"));
    // Turns for the close to run its course: without the wait it resolves within these.
    for (let i = 0; i < 20; i++) await new Promise((done) => setImmediate(done));
    release();
    await closed;
    expect(events).toEqual(["handler finished", "closed"]);
  });

  it("resolves at once when no handler is running", async () => {
    const events: string[] = [];
    const { table } = heldRoute(events);
    const app = await serve({ routes: table });
    await app.close();
    expect(events).toEqual([]);
  });
});
