import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Ok, Route, RouteTable } from "../../runtime/index.js";
import { serve, type Served } from "../support/serve.js";

/**
 * A client that asks for a large answer and then stops reading it: without a send timeout its
 * connection (and the answer's unsent bytes) would be held until the process ends.
 */
const BIG = new Uint8Array(32 * 1024 * 1024).fill(97); // far more than both kernels' socket buffers

let app: Served;
beforeAll(async () => {
  app = await serve({ routes: RouteTable.of(Route.get("/big", () => Ok(BIG)), Route.get("/", () => Ok("home"))), sendTimeoutMs: 300 });
});
afterAll(() => app.close());

/** Sends a GET for `path`, reads nothing for `stallMs`, then reads to the end. */
function stallThenRead(path: string, stallMs: number): Promise<{ bytes: number; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket: Socket = connect(app.port, "127.0.0.1", () => {
      socket.pause();
      socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      setTimeout(() => socket.resume(), stallMs);
    });
    let bytes = 0;
    socket.on("data", (chunk: Buffer) => (bytes += chunk.length));
    socket.on("error", () => undefined); // a reset after the cut is expected
    socket.on("close", () => resolve({ bytes, closedAfterMs: Date.now() - started }));
    setTimeout(() => reject(new Error("the connection was never closed")), 20_000).unref();
  });
}

describe("a client that stops reading an answer", () => {
  it("has its connection closed once it has taken nothing for sendTimeoutMs; the answer is not sent in full", async () => {
    const { bytes } = await stallThenRead("/big", 2_000);
    expect(bytes).toBeGreaterThan(0); // what the kernels had buffered before the cut
    expect(bytes).toBeLessThan(BIG.length);
    expect(await (await app.get("/")).text()).toBe("home");
  });

  it("a client that reads (even after a pause shorter than the timeout) gets the whole answer", async () => {
    const { bytes } = await stallThenRead("/big", 100);
    expect(bytes).toBeGreaterThan(BIG.length); // headers and the whole body
  });
});

describe("sendTimeoutMs", () => {
  it("must be positive", async () => {
    await expect(serve({ routes: RouteTable.empty, sendTimeoutMs: 0 })).rejects.toThrow(/sendTimeoutMs/);
  });
});
