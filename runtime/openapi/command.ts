import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Route } from "../routing/route.js";
import { openApiDocument, type OpenApiInfo } from "./document.js";

/** Where a command writes: stdout lines and stderr lines. */
export interface CommandOutput {
  out(text: string): void;
  err(text: string): void;
}

export const OPENAPI_USAGE = `  openapi                     print the OpenAPI 3.1 document of the API routes (JSON)
  openapi --out <file>        write it to <file> instead (the folder must exist)`;

/** The document as the command prints it and the dev server serves it: two-space JSON and a newline. */
export async function openApiText(routes: readonly Route[], info: OpenApiInfo): Promise<string> {
  return `${JSON.stringify(await openApiDocument(routes, info), null, 2)}\n`;
}

/**
 * The `openapi` command over a checked table: the document on stdout, or written to `--out`.
 * Resolves the exit code: 0, or 2 on arguments it does not know (usage on stderr).
 */
export async function openApiCommand(args: readonly string[], routes: readonly Route[], info: OpenApiInfo, output: CommandOutput): Promise<number> {
  const out = outArgument(args);
  if (out === null) {
    output.err(`fw: openapi: cannot read ${JSON.stringify(args.join(" "))}\nusage:\n${OPENAPI_USAGE}`);
    return 2;
  }
  const text = await openApiText(routes, info);
  if (out === undefined) {
    // Tools parse stdout whole: the JSON is all it carries.
    output.out(text.trimEnd());
    return 0;
  }
  writeFileSync(resolve(out), text);
  output.err(`fw: wrote the OpenAPI document to ${out}`);
  return 0;
}

/** `--out FILE` or `--out=FILE`; undefined when absent, null when the arguments are anything else. */
function outArgument(args: readonly string[]): string | undefined | null {
  if (args.length === 0) return undefined;
  const [flag, value, ...rest] = args;
  if (flag?.startsWith("--out=") === true && value === undefined && flag.length > "--out=".length) return flag.slice("--out=".length);
  if (flag === "--out" && value !== undefined && rest.length === 0) return value;
  return null;
}
