import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { rowKeys } from "../../transformer/row-cache.js";
import { scanAppDir } from "../../transformer/scan.js";
import { BUILD_TIMEOUT_MS, run, scratchCopy } from "../support/tspc.js";

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

    // An API route file's edit re-reads that file alone too: the generated api.ts, which imports
    // every API route file, is no file the rows depend on (issue 31).
    const items = join(dir, "src/app/api/items/Index.ts");
    writeFileSync(items, `${readFileSync(items, "utf8")}\n// edited\n`);
    const apiEdited = await run(dir, ["--incremental"]);
    expect(apiEdited.code, apiEdited.output).toBe(0);
    const third = keys(dir);
    for (const [file, key] of second) {
      if (file === "src/app/api/items/Index.ts") expect(third.get(file)).not.toBe(key);
      else expect(third.get(file), file).toBe(key);
    }

    writeFileSync(show, original.replace("): Response {", "): string {").replace(/return Ok\((.*)\);/, "return $1;"));
    const broken = await run(dir, ["--incremental"]);
    expect(broken.code).not.toBe(0);
    expect(broken.output).toMatch(/src\/app\/posts\/_id\/Show\.ts\(\d+,\d+\): error TS91002: .*`show` returns `string`/);
  }, 4 * BUILD_TIMEOUT_MS);

  it("a table made from remembered rows is the one a fresh build makes: a handler's AllRows<M> stays every row", async () => {
    const dir = scratchCopy("policy-app");
    scratch.push(dir);
    const titles = join(dir, "src/app/pages/Titles.ts");
    const rowsFile = join(dir, "src/.fw/rows.json");
    const build = async (): Promise<string> => {
      writeFileSync(titles, `${readFileSync(titles, "utf8")}\n// edited\n`);
      const built = await run(dir, ["--incremental"]);
      expect(built.code, built.output).toBe(0);
      return readFileSync(join(dir, "src/.fw/routes.ts"), "utf8");
    };
    const fresh = await build();
    await build();
    // Count.ts's row (`all: AllRows<Post>`, `mine: Store<Post>`) marked, so its reuse shows.
    writeFileSync(rowsFile, readFileSync(rowsFile, "utf8").replace(`"shown":"src/app/pages/Count.ts"`, `"shown":"src/app/pages/Count.ts (remembered)"`));
    const remembered = await build();
    expect(remembered).toContain("// from src/app/pages/Count.ts (remembered)");
    expect(remembered.replaceAll(" (remembered)", "")).toBe(fresh);
  }, BUILD_TIMEOUT_MS * 3);

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
  }, 2 * BUILD_TIMEOUT_MS);

  describe("keys from the imports the program resolved", () => {
    /** The fixture's program, as tsc builds it from its tsconfig, and its route files. */
    function programOf(dir: string): { program: ts.Program; routeFiles: string[] } {
      const parsed = ts.getParsedCommandLineOfConfigFile(join(dir, "tsconfig.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(String(d.messageText)); } });
      if (parsed === undefined) throw new Error(`no tsconfig in ${dir}`);
      const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
      return { program, routeFiles: scanAppDir(join(dir, "src/app")).map((route) => route.file) };
    }
    const keysOf = (dir: string, program: ts.Program, routeFiles: string[]): Map<string, string> =>
      rowKeys(program, ts, routeFiles, [join(dir, "src/.fw/routes.ts"), join(dir, "src/.fw/api.ts"), join(dir, "src/.fw/paths.ts")], "salt");

    it("a route file importing another one is keyed by both texts, and reading the program's resolutions gives the keys resolving again gives", () => {
      const dir = scratchCopy("basic");
      scratch.push(dir);
      const show = join(dir, "src/app/posts/_id/Show.ts");
      const items = join(dir, "src/app/api/items/Index.ts");
      // Show borrows a helper from another route file (NodeNext: the import names the .js file).
      writeFileSync(items, `${readFileSync(items, "utf8")}\nexport const label = (id: number): string => \`post \${id}\`;\n`);
      writeFileSync(show, readFileSync(show, "utf8").replace('from "fw";', 'from "fw";\nimport { label } from "../../api/items/Index.js";').replace("`post ${request.params.id + 1}`", "label(request.params.id + 1)"));

      const { program, routeFiles } = programOf(dir);
      // (main.ts imports the table no build has generated here: only the edited file is checked)
      expect(ts.getPreEmitDiagnostics(program, program.getSourceFile(show)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))).toEqual([]);
      const recorded = keysOf(dir, program, routeFiles);
      // The same program without the method that reads TypeScript's own resolutions: each import is resolved again.
      const resolvingAgain = new Proxy(program, { get: (target, name) => (name === "getResolvedModuleFromModuleSpecifier" ? undefined : Reflect.get(target, name)) });
      expect(keysOf(dir, resolvingAgain, routeFiles)).toEqual(recorded);

      // Editing the imported route file changes the importing file's key; an unrelated route's key stays.
      writeFileSync(items, readFileSync(items, "utf8").replace("`post ${id}`", "`the post ${id}`"));
      const edited = keysOf(dir, programOf(dir).program, routeFiles);
      expect(edited.get(show)).not.toBe(recorded.get(show));
      expect(edited.get(items)).not.toBe(recorded.get(items));
      const hello = join(dir, "src/app/hello/_name/Index.ts");
      expect(edited.get(hello)).toBe(recorded.get(hello));
    }, 2 * BUILD_TIMEOUT_MS);
  });
});
