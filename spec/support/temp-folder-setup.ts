import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** Names the run's temp folder to the test workers (spec/support/temp-folder-check.ts). */
export const RUN_TEMP_ENV = "FW_TEST_RUN_TEMP";

/**
 * Scratch folders the tests make inside the package rather than in the temp folder (so `fw`
 * resolves from them): fixture copies (spec/support/tspc.ts, spec/dev/new-app.test.ts) and
 * bundles of the example (spec/support/bundle.ts).
 */
const SCRATCH_IN_PACKAGE: readonly { readonly parent: string; readonly prefix: string }[] = [
  { parent: resolve("spec/fixtures"), prefix: "_tmp-" },
  { parent: resolve("example/dist"), prefix: "bundle-test-" },
];

function scratchInPackage(): string[] {
  return SCRATCH_IN_PACKAGE.flatMap(({ parent, prefix }) =>
    existsSync(parent) ? readdirSync(parent).filter((name) => name.startsWith(prefix)).map((name) => join(parent, name)) : [],
  );
}

/**
 * vitest's globalSetup, listed first so that it is torn down last: the run gets a temp folder
 * of its own, made the temp folder (TMPDIR, which `os.tmpdir()` reads) of this process, of the
 * test workers and of every process they start. Each test file gets a folder inside it and must
 * leave it empty (temp-folder-check.ts fails the file otherwise); the other global setups remove
 * what they made in their teardowns, which run before this one. Whatever is left at the end, and
 * any scratch folder inside the package that the run made and left, is named, fails the run
 * (exit code 1: vitest only logs an error thrown here) and is removed, so a run leaves nothing
 * behind, passed or failed.
 */
export default function setup(): () => void {
  const given = process.env["TMPDIR"];
  // Short names: a PostgreSQL cluster's socket lives three folders down, and a socket's path is
  // limited to ~100 bytes (macOS's temp folder alone takes ~50).
  const run = mkdtempSync(join(tmpdir(), "fw-run-"));
  // PostgreSQL runs as the `postgres` user when the tests run as root (spec/support/postgres.ts): it must reach its folder.
  chmodSync(run, 0o755);
  process.env["TMPDIR"] = run;
  process.env[RUN_TEMP_ENV] = run;
  const before = new Set(scratchInPackage());
  return () => {
    if (given === undefined) delete process.env["TMPDIR"];
    else process.env["TMPDIR"] = given;
    const left = [...readdirSync(run).map((name) => join(run, name)), ...scratchInPackage().filter((dir) => !before.has(dir))];
    rmSync(run, { recursive: true, force: true });
    for (const dir of left) rmSync(dir, { recursive: true, force: true });
    if (left.length === 0) return;
    console.error(
      `\nThe run left ${left.length === 1 ? "a folder" : `${left.length} folders`} behind (removed now):\n${left.map((dir) => `  ${dir}\n`).join("")}` +
        "Every test removes what it makes, also when it fails (afterAll, afterEach, finally); a global setup's teardown removes what its setup made.\n",
    );
    process.exitCode = 1;
  };
}
