import type { CheckedRoutes } from "../routing/conflicts.js";
import { listRoutes, routesJson } from "./routes-listing.js";
import { matchReport, parseAsked } from "./routes-match.js";

/** Where a command writes: stdout lines and stderr lines. */
export interface CommandOutput {
  out(text: string): void;
  err(text: string): void;
}

export const ROUTES_USAGE = `  routes                      print the route table in match order, every warning and note
  routes --json               the same as JSON: { "routes": [...], "warnings": [...], "notes": [...] }
  routes --match "GET /path"  which route answers that request, and why earlier ones did not`;

/**
 * The `routes` command over a checked table. `args` are the words after `routes`. Resolves
 * the exit code: 0, or 2 on flags it does not know (usage on stderr).
 */
export function routesCommand(args: readonly string[], checked: CheckedRoutes, output: CommandOutput): number {
  const { routes, warnings, notes } = checked;
  if (args.length === 0) {
    output.out(listRoutes(routes, warnings, notes).trimEnd());
    return 0;
  }
  if (args.length === 1 && args[0] === "--json") {
    // Tools parse stdout whole: the JSON is all it carries, warnings and notes included.
    output.out(routesJson(routes, warnings, notes).trimEnd());
    return 0;
  }
  const asked = matchArgument(args);
  const parsed = asked === undefined ? undefined : parseAsked(asked);
  if (parsed === undefined) {
    output.err(`fw: routes: cannot read ${JSON.stringify(args.join(" "))}\nusage:\n${ROUTES_USAGE}`);
    return 2;
  }
  output.out(matchReport(routes, parsed).trimEnd());
  return 0;
}

/** `--match "GET /x"`, `--match=GET /x`, or `--match GET /x` (two words). */
function matchArgument(args: readonly string[]): string | undefined {
  const [flag, ...rest] = args;
  if (flag?.startsWith("--match=") === true && rest.length === 0) return flag.slice("--match=".length);
  if (flag === "--match" && rest.length > 0 && rest.length <= 2) return rest.join(" ");
  return undefined;
}
