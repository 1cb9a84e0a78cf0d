import { readFileSync } from "node:fs";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/** The members of `PluginOptions` in transformer/config.ts, read from its source. */
function pluginOptions(): string[] {
  const file = ts.createSourceFile("config.ts", readFileSync("transformer/config.ts", "utf8"), ts.ScriptTarget.Latest);
  const options = file.statements.find((node): node is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(node) && node.name.text === "PluginOptions");
  if (options === undefined) throw new Error("transformer/config.ts declares no PluginOptions");
  return options.members.map((member) => (member.name !== undefined && ts.isIdentifier(member.name) ? member.name.text : "?"));
}

// Issue 28, item 16: the routing guide listed six of the eight options (not dbModule, liveModule).
describe("The transformer's plugin options are documented", () => {
  it("every option of transformer/config.ts has a row in docs/guides/routing.md's table, and no row names an unknown one", () => {
    const guide = readFileSync("docs/guides/routing.md", "utf8");
    const documented = [...guide.matchAll(/^\| `(\w+)` \| [^|]+ \| [^|]+ \|$/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual(pluginOptions().sort());
  });
});
