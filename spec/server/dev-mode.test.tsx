import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDevHook } from "../../runtime/dev/in-app.js";
import type { BuildDiagnostic } from "../../runtime/dev/protocol.js";
import { Ok, Route, RouteTable, type Layout } from "../../runtime/index.js";
import { sourceLocation } from "../../runtime/server/dev-details.js";
import { fakeSupervisor } from "../support/fake-supervisor.js";
import { serve, type Served } from "../support/serve.js";
import { connect, refusal } from "../support/ws-client.js";

const layout: Layout = ({ title, content }) => (
  <html lang="en">
    <head>
      <title>{title ?? "untitled"}</title>
    </head>
    <body>
      <div id="frame">{content}</div>
    </body>
  </html>
);

function throwsHere(): never {
  throw new Error("boom 41c9");
}

const table = RouteTable.of(
  Route.get("/", () => Ok(<p>home</p>)),
  Route.get("/text", () => Ok("plain text")),
  Route.get("/document", () => Ok(<html><body>whole</body></html>)),
  Route.get("/fragment-only", () => Ok("<p>no body tag</p>", { contentType: "text/html; charset=utf-8" })),
  Route.get("/posts/:id", () => Ok(<p>post</p>), { source: "src/app/posts/_id/Show.tsx" }),
  Route.get("/throws", () => throwsHere()),
  Route.api({ method: "GET", path: "/api/ping", handler: () => Ok("pong") }),
  // A socket whose pattern also matches /fw/reload: the reserved reload socket must still be asked first in dev.
  Route.ws("/:area/reload", { open: (connection) => connection.send("app socket"), message() {} }),
);

let dev: Served;
let prod: Served;
const supervisor = fakeSupervisor();
beforeAll(async () => {
  dev = await serve({ routes: table, layout }, { dev: true, devHook: createDevHook(supervisor) });
  prod = await serve({ routes: table, layout });
});
afterAll(async () => {
  await Promise.all([dev.close(), prod.close()]);
});

const RELOAD_CLIENT = /<script data-fw-reload data-fw-boot="[0-9a-f]+">[^]*\/fw\/reload[^]*<\/script>/;

describe("dev: the reload client", () => {
  it("is injected just before </body> of every HTML page in dev", async () => {
    const html = await (await dev.get("/")).text();
    expect(html).toMatch(RELOAD_CLIENT);
    expect(html).toMatch(/<\/script><\/body><\/html>$/);
    expect(html.indexOf("<p>home</p>")).toBeLessThan(html.indexOf("data-fw-reload"));
    expect(await (await dev.get("/document")).text()).toMatch(/whole<script data-fw-reload[^]*<\/script><\/body>/);
    expect(await (await dev.get("/nowhere")).text()).toMatch(RELOAD_CLIENT); // problem pages too
  });

  it("goes at the end of an HTML answer without </body>, and never into other content", async () => {
    expect(await (await dev.get("/fragment-only")).text()).toMatch(/^<p>no body tag<\/p><script data-fw-reload[^]*<\/script>$/);
    expect(await (await dev.get("/text")).text()).toBe("plain text");
    expect(await (await dev.get("/api/ping")).text()).toBe("pong");
  });

  it("is absent in production", async () => {
    for (const path of ["/", "/document", "/nowhere", "/fragment-only"]) {
      expect(await (await prod.get(path)).text()).not.toContain("fw-reload");
    }
  });
});

describe("dev: WS /fw/reload (spec 4.6)", () => {
  it("is served in dev only, before the table, from the app's own origin only", async () => {
    const production = await connect(prod.url, "/fw/reload?boot=0123456789ab");
    expect(await production.next()).toBe("app socket"); // no reload socket: the table's answers
    production.socket.close();
    const reload = await connect(dev.url, "/fw/reload?boot=0123456789ab");
    expect(await reload.next()).toBe("reload"); // the reserved socket, asked before the table's
    reload.socket.close();
    expect((await refusal(dev.url, "/fw/reload", { origin: "http://elsewhere.example" })).status).toBe(403);
    expect((await refusal(dev.url, "/fw/reload", { origin: null })).status).toBe(403);
  });

  it("refuses a handshake naming a foreign Host with 400 (DNS rebinding: the page's Origin and the Host agree, so the Origin check alone passes)", async () => {
    const rebound = `rebound.example:${dev.port}`;
    const refused = await refusal(dev.url, "/fw/reload", { origin: `http://${rebound}`, headers: { host: rebound } });
    expect(refused.status).toBe(400);
    expect(refused.body).toContain("does not answer for the host");
    // The same page from a loopback name connects.
    const local = await connect(dev.url.replace("127.0.0.1", "localhost"), "/fw/reload?boot=0123456789ab", { origin: `http://localhost:${dev.port}`, headers: { host: `localhost:${dev.port}` } });
    local.socket.close();
  });

  it("says reload to every open socket when the supervisor reports a failed build, and again when it is fixed", async () => {
    const boot = /data-fw-boot="([0-9a-f]+)"/.exec(await (await dev.get("/")).text())?.[1] as string;
    const one = await connect(dev.url, `/fw/reload?boot=${boot}`);
    const two = await connect(dev.url, "/fw/reload");
    supervisor.tell({ fw: "dev", type: "build-failed", diagnostics: [diagnostic] });
    expect(await one.next()).toBe("reload");
    expect(await two.next()).toBe("reload");
    supervisor.tell({ fw: "dev", type: "build-fixed" });
    expect(await one.next()).toBe("reload");
    expect(await two.next()).toBe("reload");
    one.socket.close();
    two.socket.close();
  });

  it("says reload at once to a page served by an earlier boot (the server restarted before it connected)", async () => {
    const stale = await connect(dev.url, "/fw/reload?boot=0123456789ab");
    expect(await stale.next()).toBe("reload");
    stale.socket.close();
  });

  it("says it has loaded and waits for the go before listening, then reports its URL and route table", () => {
    expect(supervisor.sent.map((message) => message.type)).toEqual(["loaded", "ready"]);
    const ready = supervisor.sent[1];
    expect(ready?.type === "ready" ? ready.url : undefined).toBe(dev.url);
    expect(ready?.type === "ready" ? ready.listing : undefined).toMatch(/^METHOD\s+PATH[^]*GET\s+\/posts\/:id\s+src\/app\/posts\/_id\/Show\.tsx/m);
  });
});

const diagnostic: BuildDiagnostic = {
  file: "src/app/<Index>.tsx",
  line: 3,
  column: 14,
  code: "TS2322",
  category: "error",
  message: "Type 'number' is not assignable to type '<script>alert(1)</script>'.",
};

describe("dev: while the build is broken", () => {
  it("every HTML GET answers a 500 problem page listing each diagnostic, escaped; other answers are left alone", async () => {
    supervisor.tell({ fw: "dev", type: "build-failed", diagnostics: [diagnostic, { ...diagnostic, line: 9, code: "TS91002", message: "second" }] });
    try {
      for (const path of ["/", "/posts/1", "/nowhere"]) {
        const response = await dev.get(path);
        expect(response.status).toBe(500);
        const html = await response.text();
        expect(html).toContain('<div id="frame"><main class="fw-problem" data-status="500">'); // framed by the layout
        expect(html).toContain(`<code>${path}</code>`);
        expect(html).toContain("src/app/&lt;Index&gt;.tsx:3:14");
        expect(html).toContain("TS2322");
        expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
        expect(html).not.toContain("<script>alert(1)");
        expect(html).toContain("src/app/&lt;Index&gt;.tsx:9:14");
        expect(html).toContain("TS91002");
        expect(html).toMatch(RELOAD_CLIENT);
      }
      expect((await dev.get("/text")).status).toBe(200);
      expect(await (await dev.get("/api/ping")).text()).toBe("pong");
      expect((await dev.get("/fw/health")).status).toBe(200);
    } finally {
      supervisor.tell({ fw: "dev", type: "build-fixed" });
    }
    expect((await dev.get("/")).status).toBe(200);
  });
});

describe("dev: problem pages", () => {
  it("a dev 404 lists the routes (method, path, source) under the problem; production's does not", async () => {
    const html = await (await dev.get("/nowhere")).text();
    expect(html).toContain('<section class="fw-problem-routes">');
    expect(html).toContain("<tr><td>GET</td><td><code>/posts/:id</code></td><td>src/app/posts/_id/Show.tsx</td></tr>");
    const production = await (await prod.get("/nowhere")).text();
    expect(production).toContain("<h1>404 Not Found</h1>");
    expect(production).not.toContain("fw-problem-routes");
    expect(production).not.toContain("/posts/:id");
  });

  it("a dev 500 shows where it was thrown (file:line) before the stack; production shows neither", async () => {
    const html = await (await dev.get("/throws")).text();
    const location = /<p class="fw-problem-location"[^>]*>Thrown at <code>([^<]+)<\/code><\/p>/.exec(html)?.[1];
    expect(location).toMatch(/^spec\/server\/dev-mode\.test\.tsx:\d+$/);
    expect(html.indexOf("fw-problem-location")).toBeLessThan(html.indexOf("fw-problem-trace"));
    expect(html).toContain("boom 41c9");
    const production = await (await prod.get("/throws")).text();
    expect(production).not.toContain("fw-problem-location");
    expect(production).not.toContain("dev-mode.test");
    expect(production).not.toContain("boom 41c9");
  });

  it("the source location is the first frame with a file, made relative to the working directory", () => {
    const stack = [
      "Error: x",
      "    at async Promise.all (index 0)",
      "    at node:internal/process/task_queues:95:5",
      "    at show (file:///srv/app/src/app/posts/_id/Show.tsx:7:11)",
      "    at run (/srv/app/node_modules/fw/dispatch.js:1:1)",
    ].join("\n");
    expect(sourceLocation(stack, "/srv/app")).toBe("src/app/posts/_id/Show.tsx:7");
    expect(sourceLocation("Error: x\n    at /elsewhere/a.js:3:1", "/srv/app")).toBe("/elsewhere/a.js:3");
    expect(sourceLocation("Error: no frames", "/srv/app")).toBeUndefined();
  });
});
