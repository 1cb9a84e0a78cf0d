import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CannotOpenDatabase, openDatabase } from "../../runtime/db/index.js";
import { holdPglite } from "../../runtime/db/pglite-host.js";
import { PGLITE_COMPILER_ENV, pgliteCompilerOf, startWith, type CompilerSwitch } from "../../runtime/db/pglite-compiler.js";

let dir = "";
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "fw-pglite-compiler-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A switch that records the flags set, and what `start` saw set when it ran. */
function recording(execArgv: readonly string[] = []): CompilerSwitch & { readonly flags: string[] } {
  const flags: string[] = [];
  return { flags, execArgv, setFlags: (value) => void flags.push(value) };
}

/**
 * Opens a new embedded database through fw's built `openDatabase` in a process of its own, with
 * V8 tracing each WebAssembly function it compiles, runs statements, closes; resolves with how
 * many functions each compiler compiled.
 */
function compiledFunctions(directory: string, env: Record<string, string>): Promise<{ liftoff: number; turbofan: number; output: string }> {
  const db = pathToFileURL(resolve("dist/runtime/db/index.js")).href;
  const script =
    `const { openDatabase } = await import(${JSON.stringify(db)});` +
    `const db = await openDatabase({ directory: ${JSON.stringify(directory)}, env: ${JSON.stringify(env)}, durable: false });` +
    `for (let i = 0; i < 300; i++) await db.query("SELECT $1::int + 1 AS n", [i]);` +
    `await db.close();`;
  const child = spawn(process.execPath, ["--trace-wasm-compilation-times", "--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((done, fail) => {
    child.once("error", fail);
    child.once("exit", (code) => {
      if (code !== 0) fail(new Error(`the child exited ${code}:\n${output.slice(-2000)}`));
      else done({ liftoff: (output.match(/ using Liftoff/g) ?? []).length, turbofan: (output.match(/ using TurboFan/g) ?? []).length, output: output.slice(-2000) });
    });
  });
}

// Issue 30 item 1: V8's optimising compiler's memory, kept by glibc once freed, was ~70 MB of an
// idle app on the embedded engine; fw starts PGlite with V8's baseline compiler alone unless
// FW_PGLITE_COMPILER=optimizing (docs/guides/database.md, "The embedded engine: memory and first open").
describe("issue 30: the embedded engine's WebAssembly compiler", () => {
  it("FW_PGLITE_COMPILER: unset or empty is baseline, optimizing is V8's default, anything else is an error naming the variable and its values", async () => {
    expect(pgliteCompilerOf({})).toBe("baseline");
    expect(pgliteCompilerOf({ [PGLITE_COMPILER_ENV]: " " })).toBe("baseline");
    expect(pgliteCompilerOf({ [PGLITE_COMPILER_ENV]: "baseline" })).toBe("baseline");
    expect(pgliteCompilerOf({ [PGLITE_COMPILER_ENV]: "optimizing" })).toBe("optimizing");
    expect(() => pgliteCompilerOf({ [PGLITE_COMPILER_ENV]: "turbofan" })).toThrow(/FW_PGLITE_COMPILER="turbofan" is not a compiler.*"baseline".*"optimizing"/);
    // What DbApp reports as a boot failure (`fw: cannot boot: …`, exit 1) and a db command as its error, not a crash.
    expect(() => pgliteCompilerOf({ [PGLITE_COMPILER_ENV]: "turbofan" })).toThrow(CannotOpenDatabase);
    // Through openDatabase, before any engine starts (not reported as a database that would not open).
    await expect(openDatabase({ directory: join(dir, "db"), env: { [PGLITE_COMPILER_ENV]: "fast" } })).rejects.toThrow(/FW_PGLITE_COMPILER="fast"/);
    // fw dev's supervisor holds the app's database with the app's environment (its .env files too), not its own.
    await expect(holdPglite(join(dir, "held"), { [PGLITE_COMPILER_ENV]: "fast" })).rejects.toThrow(/FW_PGLITE_COMPILER="fast"/);
  });

  it("baseline sets --liftoff-only for the start and takes it back after it (failed or not, after the last of starts at once), unless the process was started with it; optimizing leaves V8's flags alone", async () => {
    const v8 = recording();
    let during: string[] = [];
    expect(await startWith("baseline", async () => ((during = [...v8.flags]), 7), v8)).toBe(7);
    expect(during).toEqual(["--liftoff-only"]);
    expect(v8.flags).toEqual(["--liftoff-only", "--no-liftoff-only"]);

    const failing = recording();
    await expect(startWith("baseline", () => Promise.reject(new Error("no start")), failing)).rejects.toThrow("no start");
    expect(failing.flags).toEqual(["--liftoff-only", "--no-liftoff-only"]);

    const startedWithIt = recording(["--liftoff-only"]);
    await startWith("baseline", async () => undefined, startedWithIt);
    expect(startedWithIt.flags).toEqual(["--liftoff-only"]);

    // Two databases opened at once (PGlite compiles for each until one module is kept): the flag stays until both started.
    const both = recording();
    let release = (): void => undefined;
    const slow = startWith("baseline", () => new Promise<void>((resolve) => (release = resolve)), both);
    await startWith("baseline", async () => undefined, both);
    expect(both.flags).toEqual(["--liftoff-only"]);
    release();
    await slow;
    expect(both.flags).toEqual(["--liftoff-only", "--no-liftoff-only"]);

    const optimizing = recording();
    await startWith("optimizing", async () => undefined, optimizing);
    expect(optimizing.flags).toEqual([]);
  });

  it("the engine's functions are compiled by Liftoff alone by default, and by TurboFan too with FW_PGLITE_COMPILER=optimizing (V8's own trace, in a process of its own)", async () => {
    const [baseline, optimizing] = await Promise.all([compiledFunctions(join(dir, "baseline"), {}), compiledFunctions(join(dir, "optimizing"), { [PGLITE_COMPILER_ENV]: "optimizing" })]);
    expect(baseline.liftoff, baseline.output).toBeGreaterThan(100);
    expect(baseline.turbofan, baseline.output).toBe(0);
    // PostgreSQL's start alone makes V8 optimise some 70 of its functions.
    expect(optimizing.turbofan, optimizing.output).toBeGreaterThan(0);
  }, 120_000);
});
