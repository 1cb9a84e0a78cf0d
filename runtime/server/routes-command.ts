import type { Route } from "../routing/route.js";
import { listRoutes, routesJson } from "./routes-listing.js";
import { matchReport, parseAsked } from "./routes-match.js";

/** Where a command writes: stdout lines and stderr lines. */
export interface CommandOutput {
  out(text: string): void;
  err(text: string): void;
}

export const ROUTES_USAGE = `  routes                      print the route table in match order, and every warning
  routes --json               the same as JSON: { "routes": [...], "warnings": [...] }
  routes --match "GET /path"  which route answers that request, and why earlier ones did not`;

/**
 * The `routes` command over a checked table. `args` are the words after `routes`. Resolves
 * the exit code: 0, or 2 on flags it does not know (usage on stderr).
 */
export function routesCommand(args: readonly string[], routes: readonly Route[], warnings: readonly string[], output: CommandOutput): number {
  if (args.length === 0) {
    output.out(listRoutes(routes, warnings).trimEnd());
    return 0;
  }
  if (args.length === 1 && args[0] === "--json") {
    // Tools parse stdout whole: the JSON is all it carries, warnings included.
    output.out(routesJson(routes, warnings).trimEnd());
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
