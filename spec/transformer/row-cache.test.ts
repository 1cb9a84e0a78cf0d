import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { run, scratchCopy } from "../support/tspc.js";

const scratch: string[] = [];
afterAll(() => scratch.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** The remembered key of each route file, by the path `// from` shows. */
function keys(dir: string): Map<string, string> {
  const stored = JSON.parse(readFileSync(join(dir, "src/.fw/rows.json"), "utf8")) as { entries: Record<string, { key: string }> };
  return new Map(Object.entries(stored.entries).map(([file, entry]) => [file.slice(file.indexOf("/src/") + 1), entry.key]));
}

describe("Rows remembered between builds (src/.fw/rows.json)", () => {
  it("an edited handler is read again and the others are reused; a broken edit still fails the incremental build", async () => {
    const dir = scratchCopy("basic");
    scratch.push(dir);
    const show = join(dir, "src/app/posts/_id/Show.ts");
    const original = readFileSync(show, "utf8");
    expect((await run(dir, ["--incremental"])).code).toBe(0);
    const first = keys(dir);
    expect([...first.keys()]).toContain("src/app/posts/_id/Show.ts");
    expect(first.size).toBeGreaterThanOrEqual(4);

    // Mark two remembered rows: a row reused rather than read again keeps its mark, which shows
    // in the generated table's `// from` line; the edited file's row is read again, unmarked.
    const rowsFile = join(dir, "src/.fw/rows.json");
    const mark = (text: string, file: string): string => text.replace(`"shown":"${file}"`, `"shown":"${file} (remembered)"`);
    writeFileSync(rowsFile, mark(mark(readFileSync(rowsFile, "utf8"), "src/app/Index.tsx"), "src/app/posts/_id/Show.ts"));
    writeFileSync(show, original.replace("post ${", "the post ${"));
    const edited = await run(dir, ["--incremental"]);
    expect(edited.code, edited.output).toBe(0);
    const second = keys(dir);
    for (const [file, key] of first) {
      if (file === "src/app/posts/_id/Show.ts") expect(second.get(file)).not.toBe(key);
      else expect(second.get(file), file).toBe(key);
    }
    expect(readFileSync(join(dir, "dist/app/posts/_id/Show.js"), "utf8")).toContain("the post");
    const table = readFileSync(join(dir, "src/.fw/routes.ts"), "utf8");
    expect(table).toContain("// from src/app/Index.tsx (remembered)");
    expect(table).not.toContain("src/app/posts/_id/Show.ts (remembered)");

    writeFileSync(show, original.replace("): Response {", "): string {").replace(/return Ok\((.*)\);/, "return $1;"));
    const broken = await run(dir, ["--incremental"]);
    expect(broken.code).not.toBe(0);
    expect(broken.output).toMatch(/src\/app\/posts\/_id\/Show\.ts\(\d+,\d+\): error TS91002: .*`show` returns `string`/);
  });

  it("a change to a shared module (the capabilities) re-reads every handler: a capability taken away fails the build", async () => {
    const dir = scratchCopy("basic");
    scratch.push(dir);
    expect((await run(dir, ["--incremental"])).code).toBe(0);
    const before = keys(dir);
    writeFileSync(join(dir, "src/capabilities.ts"), "export const unrelated = 1;\n");
    const built = await run(dir, ["--incremental"]);
    expect(built.code).not.toBe(0);
    expect(built.output).toMatch(/error TS91004: fw: `index` in src\/app\/hello\/_name\/Index\.ts needs the capability `greeter: Greeter`/);
    // Rows that reported nothing were read again under the new key; the failing one is not stored.
    const after = keys(dir);
    expect(after.has("src/app/hello/_name/Index.ts")).toBe(false);
    for (const [file, key] of after) expect(before.get(file), file).not.toBe(key);
  });
});
