import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { PRODUCTION_ENV } from "../support/serve.js";

describe("A server makes its stdio streams before it listens", () => {
  // Node makes process.stderr on first use, and its socket code reads it whenever a connection
  // closes: made then, mid-service, it is a new kind of stream passing through Node's stream
  // code after that code was optimized for request sockets alone, and every later request is
  // served slower (bench/FINDINGS.md 15). Needs dist/ (`npm test` builds first).
  it("process.stdout and process.stderr exist once serve() resolves, nothing written to stderr", async () => {
    const app = join(import.meta.dirname, "stdio/app.mjs");
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [app], { env: { ...process.env, ...PRODUCTION_ENV } });
    expect(stderr).toBe("");
    // The app's last line: which streams existed once the server listened.
    expect(JSON.parse(stdout.trim().split("\n").at(-1) as string)).toEqual({ stdout: true, stderr: true });
  });
});
