import * as path from "node:path";

/**
 * The generated API module (`api.ts` beside the route module, issue 31): where it goes, known to
 * both the route module's printer (emit.ts loads it lazily) and its own (emit-api.ts), which
 * reads the route module's rows. Kept apart so the two printers do not import each other.
 */
export function apiModuleOf(out: string): string {
  return path.join(path.dirname(out), "api.ts");
}
