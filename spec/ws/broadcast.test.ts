import type { Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { socket as exampleChat } from "../../example/src/app/chat/Socket.js";
import { Room, Route, RouteTable, type WsConnection, type WsListener } from "../../runtime/index.js";
import { serve, type Served } from "../support/serve.js";
import { connect, deferred, type Client } from "../support/ws-client.js";

// Spec 2.19 and 8: a send gives up on a stalled client. A broadcast must not wait for it: each
// peer's frames are queued (`connection.enqueue`, `Room`) and a stalled peer is cut off alone.

/** The client's TCP socket: pausing it stops reading, as a stalled browser tab would. */
function tcpOf(client: Client): Socket {
  // `_socket` is ws's private field; no public API stops a client from reading.
  return (client.socket as unknown as { _socket: Socket })._socket;
}

/**
 * Wraps a listener so the test sees, in one ordered log, when each server-side connection
 * opened and closed (by the `id` its client put in the query).
 */
function observed(listener: WsListener, log: string[]) {
  const opened = new Map<string, ReturnType<typeof deferred<WsConnection>>>();
  const closed = new Map<string, ReturnType<typeof deferred<void>>>();
  const entry = <T,>(map: Map<string, ReturnType<typeof deferred<T>>>, id: string) => {
    let found = map.get(id);
    if (found === undefined) map.set(id, (found = deferred<T>()));
    return found;
  };
  const idOf = (connection: WsConnection): string => connection.request.query.get("id") ?? "?";
  const wrapped: WsListener = {
    async open(connection) {
      await listener.open?.(connection);
      entry(opened, idOf(connection)).resolve(connection);
    },
    message: (connection, text) => listener.message(connection, text),
    async close(connection) {
      await listener.close?.(connection);
      log.push(`${idOf(connection)} closed`);
      entry<void>(closed, idOf(connection)).resolve();
    },
  };
  return {
    wrapped,
    opened: (id: string) => entry(opened, id).promise,
    closed: (id: string) => entry<void>(closed, id).promise,
  };
}

let app: Served | undefined;
const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.socket.terminate();
  await app?.close();
  app = undefined;
});

async function join(id: string, path: string, seen: { opened(id: string): Promise<WsConnection> }): Promise<Client> {
  if (app === undefined) throw new Error("no app");
  const client = await connect(app.url, `${path}?id=${id}`);
  clients.push(client);
  await seen.opened(id);
  return client;
}

describe("8 a broadcast does not wait for the slowest peer", () => {
  it("the example's chat: with one peer that stopped reading, another sender's messages keep reaching a third peer, in order, and the stalled peer is cut off", async () => {
    const log: string[] = [];
    const seen = observed(exampleChat, log);
    // A send timeout far beyond this test: any wait on the stalled peer would hang it.
    app = await serve({ routes: RouteTable.of(Route.ws("/chat", seen.wrapped)), wsSendTimeoutMs: 600_000, wsMaxMessageBytes: 2 * 1024 * 1024 });
    const sender = await join("a", "/chat", seen);
    const stalled = await join("b", "/chat", seen);
    const reader = await join("c", "/chat", seen);
    tcpOf(stalled).pause();

    // Large messages, one at a time: each must reach the reader before the next is sent. The
    // stalled peer's buffers fill after a few; it falls behind and is cut off, nobody waits.
    const big = "x".repeat(1024 * 1024);
    let sent = 0;
    while (!log.includes("b closed") && sent < 64) {
      const text = `${sent} ${big}`;
      sender.socket.send(text);
      expect(await reader.next()).toBe(`user ?: ${text}`);
      expect(await sender.next()).toBe(`user ?: ${text}`);
      sent++;
    }
    expect(log).toEqual(["b closed"]);
    expect(sent).toBeGreaterThan(2); // it was reading at first: cut off for stalling, not at once

    sender.socket.send("after");
    expect(await reader.next()).toBe("user ?: after");
  });

  it("Room: a peer that stopped reading is cut off after wsSendTimeoutMs, and a message sent meanwhile reaches the others first", async () => {
    const log: string[] = [];
    const room = new Room();
    const chat: WsListener = {
      open: (connection) => room.join(connection),
      message: (_connection, text) => room.broadcast(text),
      close: (connection) => room.leave(connection),
    };
    const seen = observed(chat, log);
    app = await serve({ routes: RouteTable.of(Route.ws("/room", seen.wrapped)), wsSendTimeoutMs: 2000 });
    const sender = await join("a", "/room", seen);
    const stalled = await join("b", "/room", seen);
    const reader = await join("c", "/room", seen);
    const stalledSide = await seen.opened("b");
    tcpOf(stalled).pause();

    // Fill the stalled peer's buffers until a send to it gives up: from now on it takes nothing.
    const frame = "y".repeat(1024 * 1024);
    let gaveUp = false;
    for (let i = 0; i < 64 && !gaveUp; i++) await stalledSide.send(frame).catch(() => (gaveUp = true));
    expect(gaveUp).toBe(true);
    expect(log).toEqual([]); // a rejected send leaves the connection open

    // Queued for all three; the reader has it long before the stalled peer's timeout ends.
    sender.socket.send("hello");
    expect(await reader.next()).toBe("hello");
    log.push("c got hello");
    await seen.closed("b");
    expect(log).toEqual(["c got hello", "b closed"]);
    expect(room.size).toBe(2);

    sender.socket.send("still here");
    expect(await reader.next()).toBe("still here");
    expect(await sender.next()).toBe("hello");
    expect(await sender.next()).toBe("still here");
  });

  it("Room: broadcast skips `except`, joining twice is one membership, leave forgets", () => {
    const got: string[] = [];
    const member = (name: string) => ({ enqueue: (text: string) => got.push(`${name}:${text}`) }) as unknown as WsConnection; // only enqueue is used
    const [one, two] = [member("one"), member("two")];
    const room = new Room();
    room.join(one);
    room.join(one);
    room.join(two);
    expect(room.size).toBe(2);
    room.broadcast("hi", { except: two });
    room.leave(one);
    room.broadcast("bye");
    expect(got).toEqual(["one:hi", "two:bye"]);
    expect(room.has(one)).toBe(false);
  });
});
