import { existsSync, statSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";

/**
 * Reads `--flag value` and `--flag=value` pairs, each flag one of `known`; a string is the usage
 * error to print. A flag given twice keeps its last value.
 */
export function parseFlags(args: readonly string[], known: readonly string[]): Map<string, string> | string {
  const given = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    if (!known.includes(flag)) return `unknown argument ${JSON.stringify(arg)}`;
    const value = inline ?? args[++i];
    if (value === undefined || value === "") return `${flag} needs a value`;
    given.set(flag, value);
  }
  return given;
}

/** `--project` resolved (default "."), and the directory the app lives in: itself, or the folder of a tsconfig file. */
export function projectOf(given: ReadonlyMap<string, string>, cwd: string): { readonly project: string; readonly projectDir: string } | string {
  const project = resolve(cwd, given.get("--project") ?? ".");
  if (!existsSync(project)) return `--project ${project} does not exist`;
  return { project, projectDir: statSync(project).isDirectory() ? project : dirname(project) };
}

/** A path as the user would type it from `cwd`: relative below it, absolute elsewhere. */
export function shown(path: string, cwd: string): string {
  const near = relative(cwd, path);
  return near === "" ? "." : near.startsWith("..") ? path : near;
}
