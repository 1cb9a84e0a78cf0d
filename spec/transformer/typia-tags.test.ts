import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { fixedTypiaTag, isFixedTypiaTag } from "../../transformer/typia-tags.js";

const TAGS = resolve("node_modules/@typia/interface/lib/tags");

/** typia's declaration as a compiler host reads it, then as fw compiles it. */
function compiled(name: string): { shipped: ts.SourceFile; fixed: ts.SourceFile } {
  const file = resolve(TAGS, name);
  const shipped = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022);
  return { shipped, fixed: fixedTypiaTag(ts, shipped, ts.ScriptTarget.ES2022) };
}

/** The check a string tag's `validate` template makes, instantiated as typia does (`${Value}`, then `$input`). */
function check(name: string, value: number): (input: string) => boolean {
  const template = /validate: `([^`]+)`;/.exec(compiled(name).fixed.text)?.[1];
  if (template === undefined) throw new Error(`no validate template in ${name}`);
  const expression = template.replaceAll("${Value}", String(value));
  return new Function("$input", `return ${expression};`) as (input: string) => boolean;
}

const emoji = (n: number): string => "\u{1F600}".repeat(n);

/** Issue 39, item 8: typia 12's tags compiled as their JSON Schema reads (transformer/typia-tags.ts). */
describe("typia's tags as fw compiles them", () => {
  it("fixes the declarations of the typia fw depends on (a typia whose text differs would be left as it is, with a warning)", () => {
    for (const name of ["MaxLength.d.ts", "MinLength.d.ts", "Type.d.ts"]) {
      const { shipped, fixed } = compiled(name);
      expect(isFixedTypiaTag(shipped.fileName)).toBe(true);
      expect(fixed.text, name).not.toBe(shipped.text);
      expect(fixedTypiaTag(ts, shipped, ts.ScriptTarget.ES2022), "the same copy each time").toBe(fixed);
    }
    expect(isFixedTypiaTag(resolve(TAGS, "Pattern.d.ts"))).toBe(false);
  });

  it("MaxLength<N> counts code points, as JSON Schema's maxLength: N emoji pass, N + 1 do not", () => {
    const max = check("MaxLength.d.ts", 50);
    expect([max(emoji(50)), max(emoji(51)), max("a".repeat(50)), max("a".repeat(51)), max(emoji(30)), max(emoji(200))]).toEqual([true, false, true, false, true, false]);
    expect(max(`${emoji(25)}${"a".repeat(25)}`)).toBe(true);
  });

  it("MinLength<N> counts code points: one emoji is one character, not two", () => {
    const min = check("MinLength.d.ts", 2);
    expect([min(emoji(1)), min(emoji(2)), min("ab"), min("a"), min("")]).toEqual([false, true, true, false, false]);
  });

  it("Type<\"uint32\">'s schema has the maximum its check has; Type<\"int32\">'s its range", () => {
    const text = compiled("Type.d.ts").fixed.text;
    expect(text).toMatch(/Value extends "uint32" \? \{\s+type: "integer";\s+minimum: 0;\s+maximum: 4294967295;/);
    expect(text).toMatch(/Value extends "int32" \? \{\s+type: "integer";\s+minimum: -2147483648;\s+maximum: 2147483647;/);
  });
});
