import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bootNode } from "../support/process.js";
import { PRODUCTION_ENV } from "../support/serve.js";
import { connect } from "../support/ws-client.js";

// Needs the built runtime (dist/): `npm test` builds before vitest runs.
const app = bootNode(join(import.meta.dirname, "lazy/app.mjs"), [], { ...PRODUCTION_ENV });
afterAll(async () => {
  app.child.kill("SIGTERM");
  await app.exited;
});

describe("The ws package is loaded on the first handshake, not at boot", () => {
  it("an app with a socket route idles without ws, then upgrades and echoes once a client connects", async () => {
    const url = await app.url;
    expect(await (await fetch(`${url}/loaded`)).text()).toBe("ws not loaded");
    const [first, second] = await Promise.all([connect(url, "/echo"), connect(url, "/echo")]);
    first.socket.send("one");
    second.socket.send("two");
    expect(await first.next()).toBe("echo one");
    expect(await second.next()).toBe("echo two");
    expect(await (await fetch(`${url}/loaded`)).text()).toBe("ws loaded");
    first.socket.close();
    second.socket.close();
  });
});
