import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Ok, Route, RouteTable, type WsConnection, type WsListener } from "../../runtime/index.js";
import { serve, type Served } from "../support/serve.js";
import { connect, deferred } from "../support/ws-client.js";

/** What the ordered listener saw, in order. */
const seen: string[] = [];
let running = 0;
let overlapped = false;
const closedOnce = deferred();
let closes = 0;

const ordered: WsListener = {
  open(connection) {
    seen.push("open");
    void connection;
  },
  async message(connection, text) {
    running++;
    if (running > 1) overlapped = true;
    seen.push(`start ${text}`);
    // The first message is slow: the others have long arrived by the time it is done.
    if (text === "1") await new Promise((resolve) => setTimeout(resolve, 200));
    seen.push(`end ${text}`);
    running--;
    await connection.send(`reply ${text}`);
  },
  close() {
    closes++;
    seen.push("close");
    closedOnce.resolve();
  },
};

const boomSeen: string[] = [];
const throwing: WsListener = {
  async message(_connection: WsConnection, text: string) {
    boomSeen.push(text);
    // Rejects late, so the next message is already queued behind it and must be dropped.
    await new Promise((resolve) => setTimeout(resolve, 100));
    if (text === "boom") throw new Error("kaboom 5c1e");
  },
};

const sizes: WsListener = {
  async message(connection, text) {
    await connection.send(`length ${text.length}`);
  },
};

/** Closes with a reason longer than a close frame holds (200 × "é", 400 bytes). */
const longReason: WsListener = {
  message(connection) {
    connection.close(4000, "é".repeat(200));
  },
};

const binarySeen: string[] = [];
const binary: WsListener = {
  message(_connection, text) {
    binarySeen.push(text);
  },
};

let app: Served;
beforeAll(async () => {
  app = await serve({
    routes: RouteTable.of(
      Route.get("/", () => Ok("home")),
      Route.ws("/ordered", ordered),
      Route.ws("/throws", throwing),
      Route.ws("/sizes", sizes),
      Route.ws("/binary", binary),
      Route.ws("/long-reason", longReason),
    ),
  });
});
afterAll(() => app.close());

describe("2.19 messages are handed over by the runtime, one at a time", () => {
  it("three messages sent back to back: handled and answered in order, never overlapping; open first, close once", async () => {
    const client = await connect(app.url, "/ordered");
    client.socket.send("1");
    client.socket.send("2");
    client.socket.send("3");
    expect([await client.next(), await client.next(), await client.next()]).toEqual(["reply 1", "reply 2", "reply 3"]);
    client.socket.close();
    await closedOnce.promise;
    expect(overlapped).toBe(false);
    expect(seen).toEqual(["open", "start 1", "end 1", "start 2", "end 2", "start 3", "end 3", "close"]);
    expect(closes).toBe(1);
  });

  it("a close reason longer than a close frame holds is cut to 123 bytes (whole characters, then …), not an error", async () => {
    const client = await connect(app.url, "/long-reason");
    client.socket.send("close, please");
    const closed = await client.closed;
    expect(closed.code).toBe(4000);
    expect(Buffer.byteLength(closed.reason)).toBeLessThanOrEqual(123);
    expect(closed.reason).toBe(`${"é".repeat(60)}…`);
    expect(app.err.join("\n")).not.toContain("123 bytes");
  });

  it("a listener that rejects: logged once, the connection closes with 1011, later messages are dropped; the server goes on", async () => {
    const client = await connect(app.url, "/throws");
    client.socket.send("boom");
    client.socket.send("after");
    const closed = await client.closed;
    expect(closed.code).toBe(1011);
    expect(closed.reason).not.toContain("kaboom");
    expect(boomSeen).toEqual(["boom"]);
    expect(app.err.filter((line) => line.includes("kaboom 5c1e"))).toHaveLength(1);
    expect(app.err.find((line) => line.includes("kaboom"))).toContain("/throws");

    const again = await connect(app.url, "/sizes");
    again.socket.send("four");
    expect(await again.next()).toBe("length 4");
    again.socket.close();
    expect(await (await app.get("/")).text()).toBe("home");
  });

  it("a binary frame closes the connection with 1003 and never reaches the listener", async () => {
    const client = await connect(app.url, "/binary");
    client.socket.send(Buffer.from([1, 2, 3]), { binary: true });
    expect((await client.closed).code).toBe(1003);
    expect(binarySeen).toEqual([]);
  });

  it("a message of 64 KiB is read; one byte more closes the connection with 1009", async () => {
    const client = await connect(app.url, "/sizes");
    client.socket.send("x".repeat(64 * 1024));
    expect(await client.next()).toBe(`length ${64 * 1024}`);
    client.socket.send("x".repeat(64 * 1024 + 1));
    expect((await client.closed).code).toBe(1009);
  });
});
