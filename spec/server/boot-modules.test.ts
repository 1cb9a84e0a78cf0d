import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PRODUCTION_ENV } from "../support/serve.js";

/**
 * Boots an app from the built runtime with every loaded module logged, asks it one page, stops
 * it, and returns what it loaded. Needs dist/ (`npm test` builds first).
 */
async function modulesLoaded(args: readonly string[], env: Record<string, string> = {}): Promise<string[]> {
  const hooks = join(import.meta.dirname, "../support/hooks/log-loads.mjs");
  const app = join(import.meta.dirname, "../ws/lazy/app.mjs");
  // In a scratch folder: `dev` keeps its secret under the working directory's .fw/.
  const cwd = mkdtempSync(join(tmpdir(), "fw-boot-"));
  const child = spawn(process.execPath, ["--import", hooks, app, ...args], { cwd, env: { ...process.env, PORT: "0", ...PRODUCTION_ENV, ...env } });
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk) => (out += chunk));
  child.stderr.on("data", (chunk) => (err += chunk));
  const exited = new Promise((done) => child.on("close", done));
  try {
    const url = await new Promise<string>((ready, fail) => {
      child.stdout.on("data", () => {
        const match = /serving \d+ routes on (http:\/\/[^\s"]+)/.exec(out);
        if (match?.[1] !== undefined) ready(match[1]);
      });
      void exited.then(() => fail(new Error(`exited before serving:\n${out}\n${err}`)));
    });
    expect(await (await fetch(`${url}/loaded`)).text()).toBe("ws not loaded");
    expect((await fetch(`${url}/nothing`)).status).toBe(404);
  } finally {
    child.kill("SIGTERM");
    await exited;
    rmSync(cwd, { recursive: true, force: true });
  }
  return [...err.matchAll(/^loaded (.+)$/gm)].map((m) => m[1] as string);
}

const DEV_ONLY = /runtime\/(dev\/|server\/(dev-details|routes-command|routes-listing|routes-match)\.js|routing\/explain\.js)/;
/** fw/db and the engines' drivers: an app without it never loads them (issue 30 item 8). */
const DATABASE = /runtime\/db\/|node_modules\/(pg|pg-[a-z-]+|pgpass|@electric-sql\/[a-z-]+)\//;
/** fw/files, the multipart parser and file-type: loaded on the first multipart request only (issue 40). */
const UPLOADS = /runtime\/files\/|node_modules\/(@fastify\/busboy|file-type|strtok3|@aws-sdk\/[a-z0-9-]+)\//;
/** Metrics and traces (issue 44): loaded only when configured (FW_METRICS_TOKEN or _PORT, OTEL_*). */
const OPERATIONS = /runtime\/(metrics|trace)\/|node_modules\/(prom-client|tdigest|bintrees|@opentelemetry\/[a-z0-9-]+)\//;

describe("A production boot loads no dev or command code, and not ws until a socket is used; an app without fw/db loads neither it nor a database driver", () => {
  it("production: none of fw's dev modules, the routes command, or ws", async () => {
    const loaded = await modulesLoaded([]);
    expect(loaded.some((file) => file.includes("dist/runtime/server/dispatch.js"))).toBe(true);
    expect(loaded.filter((file) => DEV_ONLY.test(file))).toEqual([]);
    expect(loaded.filter((file) => /node_modules[\\/]ws[\\/]/.test(file) || file.includes("runtime/ws/upgrader.js"))).toEqual([]);
    expect(loaded.filter((file) => DATABASE.test(file))).toEqual([]);
    expect(loaded.filter((file) => UPLOADS.test(file))).toEqual([]);
    expect(loaded.filter((file) => OPERATIONS.test(file))).toEqual([]);
  });

  it("production with an OTLP endpoint set: fw's tracing and OpenTelemetry are loaded (the check above does see them)", async () => {
    const loaded = await modulesLoaded([], { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" });
    expect(loaded.some((file) => file.includes("dist/runtime/trace/"))).toBe(true);
    expect(loaded.some((file) => /node_modules\/@opentelemetry\/sdk-trace-base\//.test(file))).toBe(true);
  });

  it("production with FW_METRICS_TOKEN set: fw/metrics and prom-client are loaded (the check above does see them)", async () => {
    const loaded = await modulesLoaded([], { FW_METRICS_TOKEN: "a-token-of-sufficient-length" });
    expect(loaded.some((file) => file.includes("dist/runtime/metrics/"))).toBe(true);
    expect(loaded.some((file) => /node_modules\/prom-client\//.test(file))).toBe(true);
  });

  it("dev: the dev modules are loaded (the hook above does see them)", async () => {
    const loaded = await modulesLoaded(["dev"]);
    expect(loaded.some((file) => file.includes("dist/runtime/server/dev-details.js"))).toBe(true);
    expect(loaded.some((file) => file.includes("dist/runtime/dev/"))).toBe(true);
    expect(loaded.filter((file) => DATABASE.test(file))).toEqual([]);
  });
});
