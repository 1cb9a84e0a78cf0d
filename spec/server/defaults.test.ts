import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { DEFAULT_MAX_BODY_SIZE, DEFAULT_WS_SEND_TIMEOUT_MS, HttpApp, Route, RouteTable, status } from "../../runtime/index.js";
import { Outbox, StalledClient, type Sink } from "../../runtime/ws/outbox.js";
import { serve, type Served } from "../support/serve.js";

/**
 * The defaults spec 8 leaves open and DESIGN.md sets (issue 28 item 18): a body cap of 1 MiB
 * and a WebSocket send timeout of 10 s. Read from what an app left unset gets, and shown at
 * work without waiting 10 s (fake timers on the outbox a connection sends through).
 */
const MiB = 1024 * 1024;
const routes = RouteTable.of(Route.api({ method: "POST", path: "/upload", handler: (request) => status(201, String(request.body.length)) }));

describe("8.3 the default body cap is 1 MiB", () => {
  let app: Served;
  beforeAll(async () => {
    app = await serve({ routes }); // no maxBodySize: the default
  });
  afterAll(() => app.close());

  it("is the effective setting of an app that sets none", () => {
    expect(DEFAULT_MAX_BODY_SIZE).toBe(MiB);
    expect(new HttpApp({ routes }).maxBodySize).toBe(MiB);
  });

  it("a body of exactly 1 MiB is read whole; one byte more is 413", async () => {
    const whole = await fetch(`${app.url}/upload`, { method: "POST", body: new Uint8Array(MiB) });
    expect([whole.status, await whole.text()]).toEqual([201, String(MiB)]);
    const over = await fetch(`${app.url}/upload`, { method: "POST", body: new Uint8Array(MiB + 1) });
    expect(over.status).toBe(413);
  });
});

describe("8.4 the default WebSocket send timeout is 10 s", () => {
  it("is the effective setting of an app that sets none", () => {
    expect(DEFAULT_WS_SEND_TIMEOUT_MS).toBe(10_000);
    expect(new HttpApp({ routes }).wsSendTimeoutMs).toBe(10_000);
  });

  it("a send to a client that takes nothing gives up at 10 s, not before (fake timers)", async () => {
    vi.useFakeTimers();
    try {
      // A sink whose writes never complete: a client that stopped reading.
      const stalled: Sink = { open: true, bufferedAmount: 0, send() {} };
      const outbox = new Outbox(stalled, new HttpApp({ routes }).wsSendTimeoutMs, MiB);
      let settled: unknown = "pending";
      outbox.send("hello").then(
        () => (settled = "sent"),
        (error: unknown) => (settled = error),
      );
      await vi.advanceTimersByTimeAsync(9_999);
      expect(settled).toBe("pending");
      await vi.advanceTimersByTimeAsync(1);
      expect(settled).toBeInstanceOf(StalledClient);
      expect((settled as Error).message).toContain("took no data for 10000 ms");
    } finally {
      vi.useRealTimers();
    }
  });
});
