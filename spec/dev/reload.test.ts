import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bootOf, guarded, reloaded, startDev, type DevServer } from "../support/dev-server.js";
import { BUILD_TIMEOUT_MS, scratchCopy } from "../support/tspc.js";
import { rawRequest } from "../support/serve.js";
import { connect, refusal } from "../support/ws-client.js";

const scratch: string[] = [];
const running: DevServer[] = [];
afterAll(async () => {
  await Promise.all(running.map((dev) => dev.stop()));
  scratch.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
});

function devOn(fixture: string): { dir: string; dev: DevServer } {
  const dir = scratchCopy(fixture);
  scratch.push(dir);
  const dev = startDev(dir);
  running.push(dev);
  return { dir, dev };
}

describe("fw dev (spec 1, 4.6)", () => {
  it("rebuilds on save and reloads the page; a broken build shows its errors in the browser; fixing it recovers", async () => {
    const { dir, dev } = devOn("basic");
    const index = join(dir, "src/app/Index.tsx");
    const original = readFileSync(index, "utf8");
    const url = await guarded(dev.nextReady(), dev, "first start");
    const first = await (await fetch(`${url}/`)).text();
    expect(first).toContain("home /");
    const boot = bootOf(first);
    const socket = await connect(url, `/fw/reload?boot=${boot}`);

    // A saved handler: the new code answers, and the open page is told to reload.
    const edited = original.replace("home", "welcome");
    const afterEdit = await guarded(reloaded(socket, dev, url, boot, () => writeFileSync(index, edited)), dev, "reload after an edit");
    const page = await (await fetch(`${url}/`)).text();
    expect(page).toContain("welcome /");
    const editedBoot = bootOf(page);

    // A handler exporting a number fails the build: the running server stays, says reload,
    // and every HTML GET answers the diagnostics.
    const afterBreak = await guarded(
      reloaded(afterEdit, dev, url, editedBoot, () => writeFileSync(index, "export const index = 1;\n")),
      dev,
      "reload after a broken build",
    );
    expect(afterBreak).toBe(afterEdit); // no restart: the same socket was told
    const broken = await fetch(`${url}/`);
    expect(broken.status).toBe(500);
    const errorPage = await broken.text();
    expect(errorPage).toContain('class="fw-problem"');
    expect(errorPage).toContain("src/app/Index.tsx:1:14");
    expect(errorPage).toContain("TS91002");
    expect(errorPage).toContain("`index` is not a function");
    expect(bootOf(errorPage)).toBe(editedBoot); // the page carries the reload client too
    expect(await (await fetch(`${url}/api/items`)).text()).toContain('"items"'); // API answers are left alone
    expect(dev.output()).toMatch(/src\/app\/Index\.tsx\(1,14\): error TS91002/); // and the terminal shows it

    // Fixed: the page is told to reload (or reconnects to a restarted server) and recovers.
    await guarded(reloaded(afterBreak, dev, url, editedBoot, () => writeFileSync(index, edited)), dev, "reload after the fix");
    const recovered = await fetch(`${url}/`);
    expect(recovered.status).toBe(200);
    expect(await recovered.text()).toContain("welcome /");
    // Printed once (issue 22, item 9): the broken build's compile rewrote src/.fw/, so tsc compiled
    // it twice and printed the error twice; fw dev prints a build's diagnostics once, when it acts on it.
    expect(dev.output().match(/src\/app\/Index\.tsx\(1,14\): error TS91002/g), dev.output()).toHaveLength(1);
  }, 4 * BUILD_TIMEOUT_MS);

  it("prints the route table at start and again only when it changed; one restart per change", async () => {
    const { dir, dev } = devOn("basic");
    const url = await guarded(dev.nextReady(), dev, "first start");
    const tables = (): number => dev.output().match(/^METHOD\s+PATH\s+HANDLER/gm)?.length ?? 0;
    expect(tables()).toBe(1);
    expect(dev.output()).toMatch(/GET\s+\/posts\/:id\s+src\/app\/posts\/_id\/Show\.ts/);

    const body = dev.nextReady();
    writeFileSync(join(dir, "src/app/Index.tsx"), readFileSync(join(dir, "src/app/Index.tsx"), "utf8").replace("home", "hi"));
    await guarded(body, dev, "restart after an edit");
    expect(tables()).toBe(1); // same table: not printed again

    const restarts = (): number => dev.output().match(/fw dev: ready on/g)?.length ?? 0;
    const before = restarts();
    const added = dev.printed(/GET\s+\/extra\s+src\/app\/Extra\.ts[^]*fw dev: ready on/);
    writeFileSync(join(dir, "src/app/Extra.ts"), 'import { Ok, type Request, type Response } from "fw";\nexport function extra(request: Request): Response { return Ok("extra"); }\n');
    await guarded(added, dev, "the new table");
    expect(tables()).toBe(2);
    // One restart, straight into the new table: the compile during which the transformer
    // rewrote the table (and which still emitted the old one) was skipped.
    expect(restarts()).toBe(before + 1);
    expect(await (await fetch(`${url}/extra`)).text()).toBe("extra");

    // Issue 32: a saved .env restarts the app, which runs with its settings (here, one more host).
    const port = new URL(url).port;
    const asHost = async (host: string): Promise<string> => (await rawRequest(Number(port), `GET /extra HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)).slice(0, 12);
    expect(await asHost("dev.example")).toBe("HTTP/1.1 400");
    const withEnv = dev.printed(/fw dev: \.env changed; restarting the app[^]*fw dev: ready on/);
    writeFileSync(join(dir, ".env"), "FW_ALLOWED_HOSTS=127.0.0.1,dev.example\n");
    await guarded(withEnv, dev, "the restart after .env changed");
    expect(await asHost("dev.example")).toBe("HTTP/1.1 200");
  }, 3 * BUILD_TIMEOUT_MS);

  it("the reload socket obeys the Origin rule", async () => {
    const { dev } = devOn("basic");
    const url = await guarded(dev.nextReady(), dev, "first start");
    expect((await refusal(url, "/fw/reload", { origin: "http://evil.example" })).status).toBe(403);
    expect((await refusal(url, "/fw/reload", { origin: null })).status).toBe(403);
    const socket = await connect(url, "/fw/reload");
    socket.socket.close();
  }, BUILD_TIMEOUT_MS);
});
