import { chmodSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, expect } from "vitest";
import { RUN_TEMP_ENV } from "./temp-folder-setup.js";

// vitest's setup file, run before each test file in that file's process: the file gets a temp
// folder of its own (TMPDIR, which `os.tmpdir()` reads, here and in every process the file
// starts), inside the run's (temp-folder-setup.ts). Its tests must remove what they make there,
// also when they fail (afterAll, afterEach, finally): after the file's own hooks, this hook (the
// first registered, so the last to run) fails the file, naming what is left, and removes it.
const parent = process.env[RUN_TEMP_ENV] ?? tmpdir();
const folder = mkdtempSync(join(parent, "file-"));
// PostgreSQL runs as the `postgres` user when the tests run as root (spec/support/postgres.ts): it must reach its folder.
chmodSync(folder, 0o755);
process.env["TMPDIR"] = folder;

afterAll(() => {
  const left = readdirSync(folder);
  rmSync(folder, { recursive: true, force: true });
  if (left.length > 0) {
    const path = expect.getState().testPath;
    const name = path === undefined ? "this test file" : relative(process.cwd(), path);
    throw new Error(`${name} left ${left.join(", ")} in the temp folder: a test must remove what it makes, also when it fails (afterAll, afterEach, finally).`);
  }
});
