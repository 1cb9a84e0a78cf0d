import type * as ts from "typescript";
import { Codes } from "./diagnostics.js";
import type { CapabilityUse } from "./capability-parameter.js";
import type { Checking } from "./checking.js";
import { routeExport } from "./handlers.js";

/** Where a capability comes from in the generated table. */
export interface Supplied {
  readonly name: string;
}

/**
 * Checks that the capabilities module supplies what a handler asks for (spec 2.4: an absent
 * capability fails the build): each one exported under its name, with a type the handler
 * accepts. Every miss is a finding on the handler's file naming the capability, its type, the
 * handler and what to write.
 */
export function checkCapabilities(
  c: Checking,
  site: { readonly source: ts.SourceFile; readonly handler: string; readonly capabilitiesFile: string },
  module: ts.SourceFile | undefined,
  uses: readonly CapabilityUse[],
): boolean {
  let ok = true;
  const modulePath = c.shown(site.capabilitiesFile);
  const who = `\`${site.handler}\` in ${c.shown(site.source.fileName)}`;
  for (const use of uses) {
    if (use.store !== undefined) continue; // the model's own store supplies it
    const exported = module === undefined ? undefined : routeExport(c, module, use.name);
    if (exported === undefined) {
      ok = false;
      const fix = module === undefined ? `Create ${modulePath} with` : `Add to ${modulePath}:`;
      c.findings.push({
        code: Codes.missingCapability,
        category: "error",
        file: site.source,
        message: `${who} needs the capability \`${use.name}: ${use.type}\`, which ${modulePath} does not supply. ${fix} export const ${use.name}: ${use.type} = …;`,
      });
      continue;
    }
    const actual = c.checker.getTypeOfSymbol(exported);
    if (!c.checker.isTypeAssignableTo(actual, use.required)) {
      ok = false;
      c.findings.push({
        code: Codes.mistypedCapability,
        category: "error",
        file: site.source,
        message: `${who} needs the capability \`${use.name}: ${use.type}\`, but ${modulePath} exports \`${use.name}\` as \`${c.checker.typeToString(actual)}\`. Change the export to a \`${use.type}\`, or the handler's parameter type.`,
      });
    }
  }
  return ok;
}
