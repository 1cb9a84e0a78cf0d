import { setFlagsFromString } from "node:v8";
import { CannotOpenDatabase } from "./open-error.js";

/**
 * Which of V8's WebAssembly compilers runs the embedded engine (docs/guides/database.md, "The
 * embedded engine: memory and first open"):
 *  - `baseline` (the default): Liftoff, V8's baseline compiler, alone. PostgreSQL's start makes V8's
 *    optimising compiler (TurboFan) compile some 70 of its functions, ~240 MB of short-lived
 *    compiler memory (22 MB for the largest), which glibc's allocator keeps once freed: the
 *    example idles at 205–235 MB with it, ~140 MB without, for a somewhat dearer statement.
 *  - `optimizing`: V8's own default (Liftoff first, TurboFan for the hot functions): the fastest
 *    engine, for whoever has the memory.
 */
export type PgliteCompiler = "baseline" | "optimizing";

/** The environment variable that chooses it. */
export const PGLITE_COMPILER_ENV = "FW_PGLITE_COMPILER";

const COMPILERS: readonly PgliteCompiler[] = ["baseline", "optimizing"];

/**
 * The compiler `env` asks for (unset or empty: `baseline`); a value of another kind is a
 * `CannotOpenDatabase` naming the variable and its values (a boot failure, a failed db command).
 */
export function pgliteCompilerOf(env: Readonly<Record<string, string | undefined>>): PgliteCompiler {
  const value = env[PGLITE_COMPILER_ENV]?.trim() ?? "";
  if (value === "") return "baseline";
  if ((COMPILERS as readonly string[]).includes(value)) return value as PgliteCompiler;
  throw new CannotOpenDatabase(
    `fw/db: ${PGLITE_COMPILER_ENV}=${JSON.stringify(value)} is not a compiler of the embedded database: ` +
      `set it to "baseline" (the default: less memory) or "optimizing" (V8's optimising compiler too: faster statements, ~70 MB more), or unset it.`,
  );
}

/** The V8 flag that keeps WebAssembly on Liftoff. */
const LIFTOFF_ONLY = "--liftoff-only";

export interface CompilerSwitch {
  /** V8's flags, set at run time (`node:v8`'s `setFlagsFromString`). */
  readonly setFlags: (flags: string) => void;
  /** The process's own Node options: a `--liftoff-only` given there stays. */
  readonly execArgv: readonly string[];
}

const PROCESS_SWITCH: CompilerSwitch = { setFlags: setFlagsFromString, execArgv: process.execArgv };

/** Starts on `baseline` under way in this process: the flag is taken back when the last one ends. */
let starting = 0;

/**
 * Runs `start` (PGlite's start: it compiles its WebAssembly module, once per process, which
 * PGlite keeps for the process's later instances) with `compiler`. V8 reads `--liftoff-only`
 * when it compiles a module, so for `baseline` the flag is set around the start and taken back
 * after it, once no other start is under way (unless the process was started with it):
 * WebAssembly the app compiles later gets V8's defaults. `optimizing` leaves V8's flags as the
 * process has them.
 */
export async function startWith<T>(compiler: PgliteCompiler, start: () => Promise<T>, v8: CompilerSwitch = PROCESS_SWITCH): Promise<T> {
  if (compiler === "optimizing") return start();
  if (starting++ === 0) v8.setFlags(LIFTOFF_ONLY);
  try {
    return await start();
  } finally {
    if (--starting === 0 && !v8.execArgv.some((arg) => arg === LIFTOFF_ONLY || arg === "--liftoff_only")) v8.setFlags("--no-liftoff-only");
  }
}
