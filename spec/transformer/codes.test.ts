import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Codes } from "../../transformer/diagnostics.js";

describe("Build diagnostics are documented", () => {
  it("every code the transformer reports has a row in docs/reference/diagnostics.md, and no row names an unknown code", () => {
    const table = readFileSync("docs/reference/diagnostics.md", "utf8");
    const documented = [...table.matchAll(/^\| TS(91\d{3}) \|/gm)].map((m) => Number(m[1]));
    expect(documented.sort()).toEqual(Object.values(Codes).sort());
  });
});
