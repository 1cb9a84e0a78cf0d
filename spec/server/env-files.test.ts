import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadEnvFiles } from "../../runtime/server/env-files.js";
import { bootNode, runNode } from "../support/process.js";
import { TEST_SECRET } from "../support/serve.js";

// Issue 32, item 4: an app reads `.env` and `.env.local` from its folder (the working
// directory), the real environment winning, and never in production unless asked.

describe(".env and .env.local: what is read, and what wins", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "fw-env-"));
    writeFileSync(join(dir, ".env"), 'SHARED=from-env\nONLY_ENV="quoted # kept"\nexport EXPORTED=yes\n# a comment\nNO_EQUALS\nAFTER=fine\nMULTI="one\ntwo"\n');
    writeFileSync(join(dir, ".env.local"), "SHARED=from-local\nREAL=from-local\n");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(".env.local wins over .env, the environment over both; a line without = sets nothing and spoils nothing", () => {
    const env: NodeJS.ProcessEnv = { REAL: "from-environment" };
    const load = loadEnvFiles(dir, undefined, env);
    expect(load.read).toBe(true);
    expect(load.files).toEqual([join(dir, ".env"), join(dir, ".env.local")]);
    expect(env).toEqual({
      REAL: "from-environment",
      SHARED: "from-local",
      ONLY_ENV: "quoted # kept",
      EXPORTED: "yes",
      AFTER: "fine",
      MULTI: "one\ntwo",
    });
    expect(load.names).not.toContain("REAL");
  });

  it("an empty variable in the environment still wins (it is set)", () => {
    const env: NodeJS.ProcessEnv = { SHARED: "" };
    loadEnvFiles(dir, undefined, env);
    expect(env["SHARED"]).toBe("");
  });

  it("production (NODE_ENV=production) reads neither, unless FW_ENV_FILES=1 or the app's envFiles setting asks", () => {
    const production: NodeJS.ProcessEnv = { NODE_ENV: "production" };
    expect(loadEnvFiles(dir, undefined, production).read).toBe(false);
    expect(production["SHARED"]).toBeUndefined();
    const asked: NodeJS.ProcessEnv = { NODE_ENV: "production", FW_ENV_FILES: "1" };
    loadEnvFiles(dir, undefined, asked);
    expect(asked["SHARED"]).toBe("from-local");
    const setting: NodeJS.ProcessEnv = { NODE_ENV: "production" };
    loadEnvFiles(dir, true, setting);
    expect(setting["SHARED"]).toBe("from-local");
  });

  it("FW_ENV_FILES=0 reads neither, even in dev and over the setting; another value is refused naming the variable", () => {
    const off: NodeJS.ProcessEnv = { FW_ENV_FILES: "0" };
    expect(loadEnvFiles(dir, true, off).read).toBe(false);
    expect(off["SHARED"]).toBeUndefined();
    expect(() => loadEnvFiles(dir, undefined, { FW_ENV_FILES: "yes" })).toThrow(/FW_ENV_FILES="yes": write 1 .* or 0/);
  });

  it("a folder without the files reads nothing", () => {
    const empty = mkdtempSync(join(tmpdir(), "fw-env-none-"));
    try {
      const env: NodeJS.ProcessEnv = {};
      expect(loadEnvFiles(empty, undefined, env).files).toEqual([]);
      expect(env).toEqual({});
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

/** The test's own settings left out of the child's environment, so only the .env file can give them. */
const UNSET = { FW_SECRET: undefined, FW_ORIGIN: undefined, FW_ALLOWED_HOSTS: undefined, FW_ENV_FILES: undefined };

describe("an app run from a folder with a .env (child processes, the built fw)", () => {
  const main = resolve("spec/server/production/app.mjs");
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "fw-env-app-"));
    writeFileSync(join(dir, ".env"), `FW_SECRET=${TEST_SECRET}\nFW_ORIGIN=http://127.0.0.1\n`);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("a production boot without NODE_ENV takes FW_SECRET and FW_ORIGIN from .env and serves", async () => {
    const app = bootNode(main, [], { ...UNSET, NODE_ENV: undefined }, dir);
    try {
      const url = await app.url;
      expect((await fetch(`${url}/`)).status).toBe(200);
    } finally {
      app.child.kill("SIGTERM");
      await app.exited;
    }
  });

  it("NODE_ENV=production ignores .env: the missing FW_SECRET is named, with where to set it", async () => {
    const { code, err } = await runNode(main, [], { ...UNSET, NODE_ENV: "production" }, dir);
    expect(code).toBe(1);
    expect(err).toContain("FW_SECRET is not set");
    expect(err).toContain("Set FW_SECRET in the app's environment (production reads no .env file unless FW_ENV_FILES=1).");
  });

  it("NODE_ENV=production with FW_ENV_FILES=1 reads it and serves", async () => {
    const app = bootNode(main, [], { ...UNSET, NODE_ENV: "production", FW_ENV_FILES: "1" }, dir);
    try {
      expect((await fetch(`${await app.url}/`)).status).toBe(200);
    } finally {
      app.child.kill("SIGTERM");
      await app.exited;
    }
  });

  it("a dev-less boot missing FW_ORIGIN and FW_ALLOWED_HOSTS names both and the .env file to put them in", async () => {
    const bare = mkdtempSync(join(tmpdir(), "fw-env-bare-"));
    try {
      writeFileSync(join(bare, ".env"), `FW_SECRET=${TEST_SECRET}\n`);
      const { code, err } = await runNode(main, [], { ...UNSET, NODE_ENV: undefined }, bare);
      expect(code).toBe(1);
      expect(err).toContain("neither FW_ORIGIN nor FW_ALLOWED_HOSTS is set");
      expect(err).toContain(`Put a line \`FW_ORIGIN=https://example.com\` in ${join(bare, ".env")}`);
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });
});
