import type { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { Route, RouteTable, type WsListener } from "../../runtime/index.js";
import { serve } from "../support/serve.js";
import { connect, deferred, type Client } from "../support/ws-client.js";
import { distModule, retainedBytes } from "../support/retained.js";

function tcpOf(client: Client): Socket {
  // `_socket` is ws's private field; no public API stops a client from reading.
  return (client.socket as unknown as { _socket: Socket })._socket;
}

describe("7 shutdown closes open WebSockets", () => {
  it("close() during an open connection completes: the client gets 1001 and the listener's close runs", async () => {
    const closed = deferred();
    const listener: WsListener = {
      async message(connection, text) {
        await connection.send(text);
      },
      close: () => closed.resolve(),
    };
    const app = await serve({ routes: RouteTable.of(Route.ws("/echo", listener)) });
    const client = await connect(app.url, "/echo");
    client.socket.send("hi");
    expect(await client.next()).toBe("hi");
    await app.close();
    expect((await client.closed).code).toBe(1001);
    await closed.promise;
  });

  it("a client that never answers the close is cut off after the grace, so close() still completes", async () => {
    const app = await serve({ routes: RouteTable.of(Route.ws("/echo", { message() {} })), shutdownGraceMs: 200 });
    const client = await connect(app.url, "/echo");
    tcpOf(client).pause();
    // Without the grace, ws would wait 30 s for the close frame and this test would time out.
    await app.close();
    tcpOf(client).resume();
    await client.closed;
  });
});

describe("dead peers", () => {
  it("a client that does not answer pings is cut off; one that does stays open", async () => {
    const app = await serve({ routes: RouteTable.of(Route.ws("/echo", { message() {} })), wsPingIntervalMs: 100 });
    const alive = await connect(app.url, "/echo");
    const dead = await connect(app.url, "/echo", { autoPong: false });
    expect((await dead.closed).code).toBe(1006);
    expect(alive.socket.readyState).toBe(alive.socket.OPEN);
    alive.socket.close();
    await app.close();
  });
});

describe("closed connections are forgotten", () => {
  it("300 sockets opened and closed leave nothing behind on the server (a few KB each if it kept them)", () => {
    const ws = JSON.stringify(new URL("../../node_modules/ws/wrapper.mjs", import.meta.url).href);
    const retained = retainedBytes(
      `const { HttpApp, Route, RouteTable } = await import(${distModule("index.js")});
       const { WebSocket } = await import(${ws});
       const app = new HttpApp({ secret: "s".repeat(32), accessLog: false, allowedHosts: ["*"], routes: RouteTable.of(Route.ws("/echo", { message() {} })) });
       app.console = { out() {}, err(line) { console.error(line); } };
       const running = await app.serve({ port: 0, host: "127.0.0.1", accessLog: false, dev: false });
       const cycle = async () => {
         const client = new WebSocket(running.url.replace("http", "ws") + "/echo", { origin: running.url });
         await new Promise((open, fail) => { client.once("open", open); client.once("error", fail); });
         await new Promise((closed) => { client.once("close", closed); client.close(); });
       };
       for (let i = 0; i < 20; i++) await cycle(); // ws loaded, code warm
       await new Promise((settle) => setTimeout(settle, 100));`,
      `for (let i = 0; i < 300; i++) await cycle();
       await new Promise((settle) => setTimeout(settle, 100));
       globalThis.kept = running;`,
    );
    expect(retained).toBeLessThan(600_000);
  });
});
