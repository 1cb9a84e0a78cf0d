import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isDevMode } from "../../runtime/index.js";
import { Browser } from "../auth/client.js";
import { bootExample } from "../support/example.js";
import { bootNode } from "../support/process.js";
import { PRODUCTION_ENV } from "../support/serve.js";

// NODE_ENV=production wins over a `dev` argument (docs/decisions.md):
// `npm start` passes `dev`, and a platform that sets NODE_ENV=production must get production.
// Real child processes, as `npm start` runs them (npm test builds first).

/** What `npm start` runs once it has built: the last command of its script, as argv (after its `cd`). */
function startCommand(): { script: string; args: string[] } {
  const scripts = (JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> }).scripts;
  const steps = (scripts["start"] ?? "").split("&&").map((step) => step.trim().split(/\s+/));
  const folder = steps.filter((step) => step[0] === "cd").reduce((dir, step) => resolve(dir, step[1] ?? ""), process.cwd());
  const last = steps.at(-1) ?? [];
  expect(last[0]).toBe("node");
  return { script: resolve(folder, last[1] ?? ""), args: last.slice(2) };
}

/** Runs a script that should end on its own; one that serves instead is stopped after 60 s (a hang guard, within the test's time). */
function ended(script: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [script, ...args], { env: { ...process.env, PORT: "0", FW_SECRET: "", ...env }, timeout: 60_000 });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (err += chunk));
    child.on("close", (code) => done({ code, out, err }));
  });
}

const DEMO = { email: "demo@example.com", password: "demo-password" };
const production = { NODE_ENV: "production", ...PRODUCTION_ENV };

describe("1 NODE_ENV=production: `npm start` serves the example in production", () => {
  const { script, args } = startCommand();
  let app: ReturnType<typeof bootExample>;
  let url: string;

  beforeAll(async () => {
    // Its own working directory (a dev boot would write .fw/dev-secret there) and a migrated database.
    app = bootExample(args, production, { main: script });
    url = await app.url;
  });

  afterAll(async () => {
    app.child.kill("SIGTERM");
    await app.exited;
  });

  it("says it serves production although `dev` was given, and the banner is not dev's", () => {
    expect(args).toContain("dev"); // the case this guards: npm start asks for dev
    const { out, err } = app.output();
    expect(err).toContain("NODE_ENV=production: serving in production, not dev");
    expect(err).not.toContain("dev-secret");
    expect(out).toMatch(/serving \d+ routes on http:\/\/127\.0\.0\.1:\d+\n/);
    expect(out).not.toContain("(dev)");
  });

  it("has no demo account: its published password does not sign in", async () => {
    const visitor = new Browser(url);
    const answer = await visitor.signIn(DEMO.email, DEMO.password);
    expect(answer.status).toBe(422);
    expect(answer.html).toContain("Email or password is wrong.");
  });

  it("a 404 page lists no routes and no reload script", async () => {
    const response = await fetch(`${url}/no/such/page`);
    expect(response.status).toBe(404);
    const page = await response.text();
    expect(page).toContain("404 Not Found");
    expect(page).not.toContain("fw-problem-routes");
    expect(page).not.toContain("/posts/:id");
    expect(page).not.toContain("/fw/reload");
  });
});

describe("1 NODE_ENV=production: an app given `dev` shows no stack on a 500", () => {
  const main = resolve("spec/server/production/app.mjs");

  it("production: the 500 page has an incident id and no cause, no stack, no file", async () => {
    const app = bootNode(main, ["dev"], production);
    try {
      const url = await app.url;
      const response = await fetch(`${url}/boom`);
      expect(response.status).toBe(500);
      const page = await response.text();
      expect(page).toContain("The server could not complete this request");
      expect(page).not.toContain("kaboom-secret-detail");
      expect(page).not.toContain("fw-problem-trace");
      expect(page).not.toContain("app.mjs");
    } finally {
      app.child.kill("SIGTERM");
    }
    expect(await app.exited).toBe(0);
    expect(app.output().err).not.toMatch(/^\s+at /m); // the log line has no stack either
  });

  it("without FW_SECRET it refuses to boot, as production does", async () => {
    const { code, err } = await ended(main, ["dev"], { NODE_ENV: "production" });
    expect(code).toBe(1);
    expect(err).toContain("FW_SECRET is not set");
  });

  it("the same app under another NODE_ENV serves dev: the 500 shows the stack (the check above can fail)", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "fw-dev-"));
    const app = bootNode(main, ["dev"], { NODE_ENV: "development" }, cwd);
    try {
      const url = await app.url;
      const page = await (await fetch(`${url}/boom`)).text();
      expect(page).toContain("kaboom-secret-detail");
      expect(page).toContain("fw-problem-trace");
    } finally {
      app.child.kill("SIGTERM");
      await app.exited;
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it("`fw dev` refuses to run under NODE_ENV=production, exit 2, saying what to do", async () => {
    const { code, out, err } = await ended(resolve("bin/fw.js"), ["dev", "--project", "example"], { NODE_ENV: "production" });
    expect(code).toBe(2);
    expect(out).toBe("");
    expect(err).toContain("NODE_ENV=production");
    expect(err).toContain("Unset NODE_ENV");
  });

  it("isDevMode: `dev` alone, and never under NODE_ENV=production", () => {
    expect(isDevMode(["dev"], { NODE_ENV: "development" })).toBe(true);
    expect(isDevMode(["dev"], {})).toBe(true);
    expect(isDevMode([], {})).toBe(false);
    expect(isDevMode(["routes"], {})).toBe(false);
    expect(isDevMode(["dev"], { NODE_ENV: "production" })).toBe(false);
  });
});
