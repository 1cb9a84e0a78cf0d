import { describe, expect, it } from "vitest";
import { MAX_NOTIFY_PAYLOAD_BYTES, PostgresFanOut, type Queryable } from "../../runtime/db/index.js";
import { onPostgres } from "../db/engines.js";

/** One process's end of the fan-out: what it received and logged. */
function endpoint(url: string, database: Queryable) {
  const received: string[] = [];
  const log: string[] = [];
  const fanOut = new PostgresFanOut({ url, database, log: (line) => log.push(line), reconnectMs: 100 });
  return { fanOut, received, log, start: () => fanOut.start((room, text) => received.push(`${room}:${text}`)) };
}

async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 20));
  }
}

// Issue 21: room broadcasts across processes through PostgreSQL LISTEN/NOTIFY. Two fan-outs on
// one real server stand for two processes (each has its own listening connection and id).
onPostgres((engine) => {
  describe("issue 21: PostgresFanOut (LISTEN/NOTIFY)", () => {
    it("what one process publishes reaches the other, in order, identical messages included; never itself", async () => {
      const url = engine.cluster()?.url as string;
      const a = endpoint(url, engine.db());
      const b = endpoint(url, engine.db());
      await Promise.all([a.start(), b.start()]);
      try {
        const sent = Array.from({ length: 150 }, (_, i) => (i % 10 === 0 ? "same" : `message ${i} é ✓`));
        for (const text of sent) a.fanOut.publish("chat", text);
        b.fanOut.publish("other", "from b");
        await until(() => b.received.length === sent.length && a.received.length === 1, "the messages");
        expect(b.received).toEqual(sent.map((text) => `chat:${text}`));
        expect(a.received).toEqual(["other:from b"]);
      } finally {
        await Promise.all([a.fanOut.close(), b.fanOut.close()]);
      }
    });

    it(`a message over NOTIFY's limit (${MAX_NOTIFY_PAYLOAD_BYTES} bytes with its framing) is not sent and the log names the room and the size; smaller ones still go`, async () => {
      const url = engine.cluster()?.url as string;
      const a = endpoint(url, engine.db());
      const b = endpoint(url, engine.db());
      await Promise.all([a.start(), b.start()]);
      try {
        a.fanOut.publish("big", "x".repeat(8000));
        a.fanOut.publish("big", "y".repeat(7900));
        await until(() => b.received.length === 1, "the message that fits");
        expect(b.received).toEqual([`big:${"y".repeat(7900)}`]);
        expect(a.log).toEqual([expect.stringMatching(/a broadcast to room "big" is 80\d\d bytes .* over PostgreSQL NOTIFY's limit of 7999: it reached this process's sockets only/)]);
      } finally {
        await Promise.all([a.fanOut.close(), b.fanOut.close()]);
      }
    });

    it("a lost listening connection is reopened: after the server restarts, broadcasts arrive again", async () => {
      const cluster = engine.cluster();
      if (cluster === undefined) throw new Error("no cluster");
      const a = endpoint(cluster.url, engine.db());
      const b = endpoint(cluster.url, engine.db());
      await Promise.all([a.start(), b.start()]);
      try {
        await cluster.stop();
        await until(() => b.log.some((line) => line.includes("lost the connection that listens")), "the loss to be noticed");
        await cluster.start();
        await until(() => b.log.some((line) => line.includes("listening for other processes' room broadcasts again")), "the reconnection", 40_000);
        // The pool behind `a` may hold connections the restart broke: the first sends may fail.
        await until(() => {
          a.fanOut.publish("chat", "after");
          return b.received.includes("chat:after");
        }, "a broadcast after the restart", 40_000);
      } finally {
        await Promise.all([a.fanOut.close(), b.fanOut.close()]);
      }
    }, 120_000);
  });
});
