// SLOW (one to two minutes; the one test of its kind, keep it so): fw as a user gets it. It packs fw
// with `npm pack`, makes an app with `fw new --fw <tarball>` in a temp dir outside this checkout
// (so nothing resolves from the checkout's node_modules), installs it with npm (the tarball,
// and its dependencies from npm's cache or the registry: about 20 s, `--prefer-offline`), and
// runs the app's own `npm test`, its build, its bundle, and boots the build (production and dev)
// and the bundle: pages, a static file and a WebSocket. Needs `npm run build` first (dist/ goes into the tarball as built).
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bootNode, runNode } from "../support/process.js";
import { PRODUCTION_ENV } from "../support/serve.js";
import { connect } from "../support/ws-client.js";

const FW = resolve("bin/fw.js");
const scratch = mkdtempSync(join(tmpdir(), "fw-packed-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Ran {
  readonly code: number | null;
  readonly output: string;
}

/** Runs a command (npm) to its end; stdout and stderr together. */
function run(command: string, args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<Ran> {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, FW_SECRET: undefined, NODE_ENV: undefined, npm_config_audit: "false", npm_config_fund: "false", ...env } });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("close", (code) => done({ code, output }));
  });
}

/** A WebSocket route the test adds as a user would: `src/app/echo/Socket.ts` is `WS /echo/socket`. */
const ECHO = `import type { WsListener } from "fw";

export const socket: WsListener = {
  async message(connection, text) {
    await connection.send(\`echo: \${text}\`);
  },
};
`;

describe("fw from its packed tarball", () => {
  it("installs into a `fw new` app that tests, builds, bundles and serves pages, a static file and a WebSocket", async () => {
    const packed = await run("npm", ["pack", "--ignore-scripts", "--pack-destination", scratch], resolve("."));
    expect(packed.code, packed.output).toBe(0);
    const tarball = readdirSync(scratch).find((file) => file.endsWith(".tgz"));
    expect(tarball).toBeDefined();

    const app = join(scratch, "my-app");
    const made = await runNode(FW, ["new", app, "--fw", join(scratch, tarball as string)]);
    expect(made.err).toBe("");
    expect(made.code).toBe(0);
    const pkg = JSON.parse(readFileSync(join(app, "package.json"), "utf8")) as { scripts: Record<string, string>; dependencies: Record<string, string> };
    expect(pkg.dependencies["fw"]).toBe(`file:../${tarball}`);
    expect(Object.keys(pkg.scripts)).toEqual(expect.arrayContaining(["dev", "build", "start", "test", "bundle"]));
    expect(readFileSync(join(app, ".gitignore"), "utf8").split("\n")).toEqual(expect.arrayContaining(["node_modules/", "dist/", ".fw/"]));
    mkdirSync(join(app, "src/app/echo"), { recursive: true });
    writeFileSync(join(app, "src/app/echo/Socket.ts"), ECHO);

    const installed = await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], app);
    expect(installed.code, installed.output).toBe(0);
    // fw's runtime dependencies sit in the app's own node_modules, where its bundle resolves them.
    for (const name of ["fw", "ws", "typia"]) expect(readdirSync(join(app, "node_modules"))).toContain(name);

    const tested = await run("npm", ["test"], app);
    expect(tested.code, tested.output).toBe(0);
    expect(tested.output).toContain("# pass 3"); // src/tests/home.test.ts, on fw/testing from the tarball
    expect(tested.output).toContain("# fail 0");

    const bundled = await run("npm", ["run", "bundle"], app);
    expect(bundled.code, bundled.output).toBe(0);

    // Production from the build and from the bundle, and dev mode (what `fw dev` runs).
    const boots: { main: string; args: string[]; env: Record<string, string> }[] = [
      { main: "dist/main.js", args: [], env: { NODE_ENV: "production" } },
      { main: "dist/bundle/main.js", args: [], env: { NODE_ENV: "production" } },
      { main: "dist/main.js", args: ["dev"], env: {} },
    ];
    for (const { main, args, env } of boots) {
      const served = bootNode(join(app, main), args, { ...PRODUCTION_ENV, ...env }, app);
      try {
        const url = await served.url;
        const home = await fetch(`${url}/`);
        expect(home.status, main).toBe(200);
        expect(await home.text()).toContain("<h1>Hello from fw</h1>");
        expect((await fetch(`${url}/items`)).status).toBe(200);
        const css = await fetch(`${url}/app.css`);
        expect(css.status, main).toBe(200);
        expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
        const socket = await connect(url, "/echo/socket");
        socket.socket.send("hi");
        expect(await socket.next()).toBe("echo: hi");
        socket.socket.close();
      } finally {
        served.child.kill("SIGTERM");
        await served.exited;
      }
      expect(served.output().err, main).not.toContain("Cannot find package");
    }
  }, 300_000);
});
