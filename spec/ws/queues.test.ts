import { describe, expect, it } from "vitest";
import { Inbox } from "../../runtime/ws/inbox.js";
import { Outbox, StalledClient, type Sink } from "../../runtime/ws/outbox.js";
import { deferred } from "../support/ws-client.js";

describe("Inbox: one listener call at a time, with backpressure", () => {
  it("pauses reading once `limit` messages wait behind a slow call, and resumes when half are done", async () => {
    const flow = { pauses: 0, resumes: 0, pause() { this.pauses++; }, resume() { this.resumes++; } };
    const inbox = new Inbox(flow, 4, () => {});
    const gate = deferred();
    const ran: number[] = [];
    inbox.push(async () => {
      await gate.promise;
      ran.push(0);
    });
    for (let n = 1; n <= 4; n++) inbox.push(() => void ran.push(n));
    expect(flow.pauses).toBe(1);
    expect(flow.resumes).toBe(0);
    const done = deferred();
    inbox.end(() => done.resolve());
    gate.resolve();
    await done.promise;
    expect(ran).toEqual([0, 1, 2, 3, 4]);
    expect(flow.resumes).toBe(1);
  });

  it("a call that throws drops what waits, reports once, and still runs the final job", async () => {
    const failures: unknown[] = [];
    const inbox = new Inbox({ pause() {}, resume() {} }, 64, (cause) => failures.push(cause));
    const gate = deferred();
    const ran: string[] = [];
    inbox.push(async () => {
      await gate.promise;
      throw new Error("listener failed");
    });
    inbox.push(() => void ran.push("dropped"));
    const done = deferred();
    inbox.end(() => {
      ran.push("close");
      done.resolve();
    });
    gate.resolve();
    await done.promise;
    expect(ran).toEqual(["close"]);
    expect(failures).toHaveLength(1);
  });
});

/** A sink whose buffer and write callbacks the test drives. */
function fakeSink(): Sink & { written: string[]; callbacks: ((error?: Error | null) => void)[]; buffered: number } {
  return {
    open: true,
    buffered: 0,
    get bufferedAmount() {
      return this.buffered;
    },
    written: [],
    callbacks: [],
    send(text, done) {
      this.written.push(text);
      this.callbacks.push(done);
    },
  };
}

describe("Outbox: sends resolve on the wire and give up on a stalled client", () => {
  it("above the high-water mark a frame is held, in order, until earlier writes drain", async () => {
    const sink = fakeSink();
    const outbox = new Outbox(sink, 10_000, 10);
    const a = outbox.send("a");
    sink.buffered = 100;
    const b = outbox.send("b");
    const c = outbox.send("c");
    expect(sink.written).toEqual(["a"]);
    sink.buffered = 0;
    sink.callbacks[0]?.(null);
    await a;
    expect(sink.written).toEqual(["a", "b", "c"]);
    sink.callbacks[1]?.(null);
    sink.callbacks[2]?.(null);
    await Promise.all([b, c]);
  });

  it("a frame that is not written in time rejects with StalledClient; a late write callback changes nothing", async () => {
    const sink = fakeSink();
    const outbox = new Outbox(sink, 50, 10);
    const sent = outbox.send("a");
    await expect(sent).rejects.toBeInstanceOf(StalledClient);
    sink.callbacks[0]?.(null);
    sink.buffered = 100;
    await expect(outbox.send("held")).rejects.toBeInstanceOf(StalledClient);
    expect(sink.written).toEqual(["a"]);
  });

  it("closing rejects every send not yet on the wire, and later sends", async () => {
    const sink = fakeSink();
    const outbox = new Outbox(sink, 10_000, 10);
    const pending = outbox.send("a");
    outbox.close();
    await expect(pending).rejects.toThrow(/closed before the frame was written/);
    await expect(outbox.send("b")).rejects.toThrow(/closed/);
  });
});
