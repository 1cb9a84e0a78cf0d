import type { Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Route, RouteTable, type WsConnection, type WsListener } from "../../runtime/index.js";
import { serve, type Served } from "../support/serve.js";
import { connect, deferred, type Client } from "../support/ws-client.js";

const SEND_TIMEOUT_MS = 300;

/** Server-side connections by the `id` the client put in the query. */
const opened = new Map<string, ReturnType<typeof deferred<WsConnection>>>();
function connectionFor(id: string): ReturnType<typeof deferred<WsConnection>> {
  let entry = opened.get(id);
  if (entry === undefined) {
    entry = deferred<WsConnection>();
    opened.set(id, entry);
  }
  return entry;
}

const feed: WsListener = {
  open(connection) {
    connectionFor(connection.request.query.get("id") ?? "").resolve(connection);
  },
  message() {},
};

let app: Served;
beforeAll(async () => {
  app = await serve({ routes: RouteTable.of(Route.ws("/feed", feed)), wsSendTimeoutMs: SEND_TIMEOUT_MS });
});
afterAll(() => app.close());

/** The client's TCP socket: pausing it stops reading, as a stalled browser tab would. */
function tcpOf(client: Client): Socket {
  // `_socket` is ws's private field; no public API stops a client from reading.
  return (client.socket as unknown as { _socket: Socket })._socket;
}

describe("8 a send gives up on a stalled client", () => {
  it("send rejects within the timeout once a client stops reading, while another client's sends succeed", async () => {
    const slow = await connect(app.url, "/feed?id=slow");
    const fast = await connect(app.url, "/feed?id=fast");
    const slowSide = await connectionFor("slow").promise;
    const fastSide = await connectionFor("fast").promise;
    tcpOf(slow).pause();

    // Large frames fill the kernel buffers; then a frame can no longer be written and its send gives up.
    const frame = "x".repeat(1024 * 1024);
    let failure: unknown;
    let waited = 0;
    for (let sent = 0; sent < 64 && failure === undefined; sent++) {
      const started = performance.now();
      try {
        await slowSide.send(frame);
      } catch (error) {
        failure = error;
        waited = performance.now() - started;
      }
    }
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toContain("stopped reading");
    expect(waited).toBeGreaterThanOrEqual(SEND_TIMEOUT_MS - 5);
    expect(waited).toBeLessThan(10_000);

    // Still stalled, still open: the next send gives up too, while the other client is served meanwhile.
    const [again, other] = await Promise.allSettled([slowSide.send("more"), fastSide.send("still here")]);
    expect(again.status).toBe("rejected");
    expect(other.status).toBe("fulfilled");
    expect(await fast.next()).toBe("still here");
    expect(slow.socket.readyState).toBe(slow.socket.OPEN);

    slow.socket.terminate();
    fast.socket.close();
  });

  it("a send on a closed connection rejects", async () => {
    const client = await connect(app.url, "/feed?id=closing");
    const side = await connectionFor("closing").promise;
    await side.send("first");
    expect(await client.next()).toBe("first");
    client.socket.close();
    await client.closed;
    await expect(side.send("too late")).rejects.toThrow(/closed/);
  });
});
