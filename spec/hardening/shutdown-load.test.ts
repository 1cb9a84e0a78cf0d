import { Agent, get, type IncomingHttpHeaders } from "node:http";
import { connect, type Socket } from "node:net";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { bootNode } from "../support/process.js";
import { PRODUCTION_ENV } from "../support/serve.js";

// SIGTERM under load (issue 9), against a real app in a child process built by `npm run build`:
// every in-flight request completes with its whole body, new connections are refused, idle
// keep-alive connections are closed, a request already arriving is answered with
// `connection: close`, and the process exits 0 within the grace period.

const app = resolve("spec/hardening/apps/slow-app.mjs");
const IN_FLIGHT = 20;
const BODY_BYTES = 200 * 1024;
const GRACE_MS = 5000;

interface Answered {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly length: number;
}

function fetchWhole(url: string, agent: Agent): Promise<Answered> {
  return new Promise((done, fail) => {
    get(url, { agent }, (response) => {
      let length = 0;
      response.on("data", (chunk: Buffer) => (length += chunk.length));
      response.on("end", () => done({ status: response.statusCode ?? 0, headers: response.headers, length }));
      response.on("error", fail);
    }).on("error", fail);
  });
}

function openSocket(port: number): Promise<Socket> {
  return new Promise((done, fail) => {
    const socket = connect(port, "127.0.0.1", () => done(socket));
    socket.once("error", fail);
  });
}

/** What a raw socket receives, and a promise for its close. */
function record(socket: Socket): { text: () => string; closed: Promise<void> } {
  let text = "";
  socket.on("data", (chunk: Buffer) => (text += chunk.toString("latin1")));
  socket.on("error", () => {});
  return { text: () => text, closed: new Promise((done) => socket.once("close", () => done())) };
}

async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 10));
  }
}

describe("SIGTERM under load", () => {
  it("in-flight requests finish whole, new connections are refused, keep-alive ones are closed, exit 0 within the grace", async () => {
    const child = bootNode(app, [], { ...PRODUCTION_ENV, SLOW_MS: "1500", SLOW_BYTES: String(BODY_BYTES), GRACE_MS: String(GRACE_MS) });
    const url = await child.url;
    const port = Number(new URL(url).port);
    const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
    try {
      // A keep-alive connection that served a request and now sits idle.
      const idle = await openSocket(port);
      const idleSeen = record(idle);
      idle.write("GET /fast HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
      await until(() => idleSeen.text().endsWith("fast"), "the idle connection's first answer");
      expect(idleSeen.text()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(idleSeen.text()).not.toMatch(/connection: close/i);

      // Requests in flight: all have reached the handler, which is waiting.
      const entered = (): number => child.output().out.split("entered /slow").length - 1;
      const inFlight = Array.from({ length: IN_FLIGHT }, () => fetchWhole(`${url}/slow`, agent));
      await until(() => entered() === IN_FLIGHT, `${IN_FLIGHT} requests in the handler`);

      // A request that has started arriving (its headers not finished yet).
      const arriving = await openSocket(port);
      const arrivingSeen = record(arriving);
      arriving.write("GET /fast HTTP/1.1\r\nHost: 127.0.0.1\r\n");
      await new Promise((done) => setTimeout(done, 50));

      const signalled = Date.now();
      child.child.kill("SIGTERM");
      await until(() => child.output().out.includes("fw: stopping"), "the stopping line");

      // The idle keep-alive connection is closed at once, long before the slow requests finish.
      await idleSeen.closed;
      expect(entered()).toBe(IN_FLIGHT);

      // A new connection is refused: the server no longer listens.
      await expect(openSocket(port)).rejects.toMatchObject({ code: "ECONNREFUSED" });

      // The request that was arriving is served, and told the connection closes.
      arriving.write("\r\n");
      await arrivingSeen.closed;
      expect(arrivingSeen.text()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(arrivingSeen.text()).toMatch(/\r\nconnection: close\r\n/i);
      expect(arrivingSeen.text().endsWith("\r\n\r\nfast")).toBe(true);

      // Every in-flight request completes with its whole body and closes its connection.
      const answers = await Promise.all(inFlight);
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        expect(answer.length).toBe(BODY_BYTES);
        expect(Number(answer.headers["content-length"])).toBe(BODY_BYTES);
        expect(answer.headers.connection).toBe("close");
      }

      expect(await child.exited).toBe(0);
      expect(Date.now() - signalled).toBeLessThan(GRACE_MS);
      expect(child.output().err).toBe("");
    } finally {
      agent.destroy();
      child.child.kill("SIGKILL");
    }
  });
});
