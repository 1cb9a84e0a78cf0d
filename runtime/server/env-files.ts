import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "dotenv";
import { BootError } from "../routing/boot-error.js";
import { isProductionEnv } from "./run-mode.js";

/**
 * `.env` files (docs/guides/deploying.md, "Configuration"): an app's settings written beside it
 * instead of exported in every shell. Read in this order, a later file winning over an earlier
 * one, and the real environment winning over both: `.env` (the app's settings for this
 * machine), then `.env.local` (a developer's own overrides). Never in production
 * (`NODE_ENV=production`) unless asked: a server gets its settings from its environment.
 */
export const ENV_FILES: readonly string[] = Object.freeze([".env", ".env.local"]);

/** `FW_ENV_FILES=1` reads the files even in production; `FW_ENV_FILES=0` never reads them. */
export const ENV_FILES_VARIABLE = "FW_ENV_FILES";

/** What one load did: the files read (absolute) and the names they set. */
export interface EnvFilesLoad {
  /** The app's folder, where the files are looked for. */
  readonly root: string;
  /** Whether files are read in this mode at all. */
  readonly read: boolean;
  readonly files: readonly string[];
  readonly names: readonly string[];
}

let last: EnvFilesLoad | undefined;

/**
 * Whether the env files are read: `FW_ENV_FILES` (`1` or `0`) decides first, then the app's
 * `envFiles` setting, else everywhere but production.
 */
export function envFilesWanted(setting: boolean | undefined, env: NodeJS.ProcessEnv = process.env): boolean {
  const given = env[ENV_FILES_VARIABLE];
  if (given === "1" || given === "true") return true;
  if (given === "0" || given === "false") return false;
  if (given !== undefined && given !== "") throw new BootError(`${ENV_FILES_VARIABLE}=${JSON.stringify(given)}: write 1 (read .env files, even in production) or 0 (never).`);
  return setting ?? !isProductionEnv(env);
}

/**
 * The variables of the env files in `root`, merged (`.env.local` over `.env`); nothing for a
 * file that does not exist. The parser is dotenv's (docs/decisions.md: Node 20's own
 * `util.parseEnv` arrived in 20.12 and reads a line without `=` as part of the next name).
 */
export function readEnvFiles(root: string): { readonly files: readonly string[]; readonly values: Readonly<Record<string, string>> } {
  const files: string[] = [];
  let values: Record<string, string> = {};
  for (const name of ENV_FILES) {
    const path = join(root, name);
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw new BootError(`cannot read ${path}: ${(error as Error).message}. Fix or remove the file (it holds the app's settings: NAME=value lines).`);
    }
    files.push(path);
    values = { ...values, ...parse(text) };
  }
  return { files, values };
}

/**
 * Loads the env files of `root` into `env` when they are wanted, setting only the names the
 * environment lacks (a real environment variable wins). Returns what it did; the last load is
 * remembered for `whereToSet`.
 */
export function loadEnvFiles(root: string, setting: boolean | undefined, env: NodeJS.ProcessEnv = process.env): EnvFilesLoad {
  const read = envFilesWanted(setting, env);
  const names: string[] = [];
  const files: string[] = [];
  if (read) {
    const found = readEnvFiles(root);
    files.push(...found.files);
    for (const [name, value] of Object.entries(found.values)) {
      if (env[name] !== undefined) continue;
      env[name] = value;
      names.push(name);
    }
  }
  last = { root, read, files, names };
  return last;
}

/**
 * Where to set a variable the app needs, for a boot message: the environment, or a line in the
 * app's `.env` when this mode reads it; in production, the environment (and how to have the
 * files read there).
 */
export function whereToSet(name: string, example = "…"): string {
  const load = last;
  if (load === undefined || !load.read) {
    const why = load === undefined ? "" : ` (production reads no .env file unless ${ENV_FILES_VARIABLE}=1)`;
    return `Set ${name} in the app's environment${why}.`;
  }
  return `Put a line \`${name}=${example}\` in ${join(load.root, ".env")} (or .env.local, for this machine alone), or set ${name} in the environment.`;
}
