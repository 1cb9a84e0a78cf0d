import { resolve } from "node:path";
import { BUNDLE_USAGE, bundleCommand } from "./bundle.js";
import { parseFlags, projectOf } from "./flags.js";
import { newCommand, NEW_USAGE } from "./new-app.js";
import { isProductionEnv } from "../server/run-mode.js";
import { resolveTspc } from "./resolve-tspc.js";
import { Supervisor } from "./supervisor.js";

export const DEV_USAGE = `usage: fw dev [--project <dir>] [--main <file>]
  --project  the app's tsconfig directory (or file); default "."
  --main     the compiled entry, relative to the project; default "dist/main.js"

Builds the app with tspc --watch (fw's transformer on), runs \`node <main> dev\`, restarts it
after each build that changed the code, and shows failed builds in the browser.`;

export const USAGE = `${DEV_USAGE}\n\n${NEW_USAGE}\n\n${BUNDLE_USAGE}`;

/** What `fw dev` was asked for, paths resolved. */
export interface DevArgs {
  /** The tsconfig directory or file, as tspc's -p takes it. */
  readonly project: string;
  /** The directory the app runs in: the project's. */
  readonly projectDir: string;
  readonly main: string;
}

/** Reads `fw dev`'s flags; a string is the usage error to print. */
export function parseDevArgs(args: readonly string[], cwd: string): DevArgs | string {
  const given = parseFlags(args, ["--project", "--main"]);
  if (typeof given === "string") return given;
  const where = projectOf(given, cwd);
  if (typeof where === "string") return where;
  return { ...where, main: resolve(where.projectDir, given.get("--main") ?? "dist/main.js") };
}

/**
 * The `fw` command line (bin/fw.js): `fw dev …`, `fw new <dir>` and `fw bundle …`. Resolves with the exit code; a running
 * `fw dev` resolves once SIGINT or SIGTERM stopped it.
 */
export async function main(args: readonly string[], cwd: string = process.cwd()): Promise<number> {
  const [command, ...rest] = args;
  if (command === "new") {
    return newCommand(rest, cwd, (text) => process.stdout.write(`${text}\n`), (text) => process.stderr.write(`${text}\n`));
  }
  if (command === "bundle") {
    return bundleCommand(rest, cwd, (text) => process.stdout.write(`${text}\n`), (text) => process.stderr.write(`${text}\n`));
  }
  if (command !== "dev") {
    process.stderr.write(`${command === undefined || command === "--help" ? "" : `fw: unknown command ${JSON.stringify(command)}\n`}${USAGE}\n`);
    return command === "--help" ? 0 : 2;
  }
  if (isProductionEnv(process.env)) {
    // The app would serve production under it (no reload socket, no dev pages): refuse plainly.
    process.stderr.write("fw dev: NODE_ENV=production: fw dev is for development only. Unset NODE_ENV (or set it to development) to use it; in production run `node <main>` with FW_SECRET set.\n");
    return 2;
  }
  const parsed = parseDevArgs(rest, cwd);
  if (typeof parsed === "string") {
    process.stderr.write(`fw dev: ${parsed}\n${DEV_USAGE}\n`);
    return 2;
  }
  const supervisor = new Supervisor({
    project: parsed.project,
    cwd: parsed.projectDir,
    main: parsed.main,
    tspc: resolveTspc(parsed.projectDir),
    env: process.env,
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  });
  const stop = (): void => {
    process.off("SIGINT", stop).off("SIGTERM", stop);
    void supervisor.stop();
  };
  process.on("SIGINT", stop).on("SIGTERM", stop);
  return supervisor.run();
}
