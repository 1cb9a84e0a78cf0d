import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Codes } from "../../transformer/diagnostics.js";

describe("Build diagnostics are documented", () => {
  it("every code the transformer reports has a row in the README, and no row names an unknown code", () => {
    const readme = readFileSync("README.md", "utf8");
    const documented = [...readme.matchAll(/^\| TS(91\d{3}) \|/gm)].map((m) => Number(m[1]));
    expect(documented.sort()).toEqual(Object.values(Codes).sort());
  });
});
