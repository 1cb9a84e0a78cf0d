import { describe, expect, it } from "vitest";
import { parseDevArgs } from "../../runtime/dev/cli.js";
import { injectBeforeBodyEnd } from "../../runtime/dev/reload-client.js";
import { formatDiagnostic, WatchOutput, type BuildResult } from "../../runtime/dev/watch-output.js";

/** What `tspc --watch --preserveWatchOutput --pretty false --listEmittedFiles` printed for three compiles. */
const printed = `
12:48:15 PM - Starting compilation in watch mode...

TSFILE: /app/dist/app/Index.js
TSFILE: /app/dist/main.js

12:48:17 PM - Found 0 errors. Watching for file changes.

12:48:23 PM - File change detected. Starting incremental compilation...

src/.fw/routes.ts(26,44): error TS2322: Type 'number' is not assignable to type 'Handler<any>'.
src/app/Index.tsx(1,14): error TS91002: fw: src/app/Index.tsx mounts GET /, but \`index\` is not a function.
src/app/Show.ts(3,5): error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.
  Type 'string' is not assignable to type 'number'.
    Nested detail.
error TS5023: Unknown compiler option 'nope'.
TSFILE: /app/dist/app/Index.js

12:48:23 PM - Found 4 errors. Watching for file changes.

12:48:24 PM - File change detected. Starting incremental compilation...


12:48:24 PM - Found 0 errors. Watching for file changes.
`;

describe("fw dev reads tsc's watch output", () => {
  it("one result per compile: the error count, each diagnostic (file, line, column, code, message) and the files written", () => {
    const builds: BuildResult[] = [];
    const output = new WatchOutput((build) => builds.push(build));
    // Fed in awkward pieces: lines split across chunks must still be read whole.
    for (let at = 0; at < printed.length; at += 7) output.push(printed.slice(at, at + 7));
    expect(builds.map((b) => b.errors)).toEqual([0, 4, 0]);
    expect(builds[0]?.emitted).toEqual(["/app/dist/app/Index.js", "/app/dist/main.js"]);
    expect(builds[0]?.diagnostics).toEqual([]);
    expect(builds[1]?.diagnostics).toEqual([
      { file: "src/.fw/routes.ts", line: 26, column: 44, category: "error", code: "TS2322", message: "Type 'number' is not assignable to type 'Handler<any>'." },
      { file: "src/app/Index.tsx", line: 1, column: 14, category: "error", code: "TS91002", message: "fw: src/app/Index.tsx mounts GET /, but `index` is not a function." },
      {
        file: "src/app/Show.ts",
        line: 3,
        column: 5,
        category: "error",
        code: "TS2345",
        message: "Argument of type 'string' is not assignable to parameter of type 'number'.\nType 'string' is not assignable to type 'number'.\n  Nested detail.",
      },
      { category: "error", code: "TS5023", message: "Unknown compiler option 'nope'." },
    ]);
    expect(builds[1]?.emitted).toEqual(["/app/dist/app/Index.js"]);
    expect(builds[2]).toMatchObject({ errors: 0, diagnostics: [], emitted: [] });
  });
});

describe("fw dev prints a build's diagnostics itself, once", () => {
  it("tells the diagnostic lines (first and continuing) from tsc's other lines, and prints them back as tsc wrote them", () => {
    const builds: BuildResult[] = [];
    const output = new WatchOutput((build) => builds.push(build));
    const passed = printed.split("\n").filter((line) => !output.line(line));
    expect(passed.join("\n")).not.toContain("error TS");
    expect(passed.join("\n")).not.toContain("Nested detail");
    expect(passed).toContain("12:48:23 PM - Found 4 errors. Watching for file changes.");
    const shown = (builds[1]?.diagnostics ?? []).map(formatDiagnostic);
    const diagnosticLines = printed.split("\n").filter((line) => /error TS|^ {2}/.test(line));
    expect(shown.join("\n").split("\n")).toEqual(diagnosticLines);
  });
});

describe("the reload client's place", () => {
  it("goes before the last </body>, whatever its case, else at the end", () => {
    expect(injectBeforeBodyEnd("<html><body><p>x</p></BODY></html>", "<s>")).toBe("<html><body><p>x</p><s></BODY></html>");
    expect(injectBeforeBodyEnd("<p>a</body>b</body>", "<s>")).toBe("<p>a</body>b<s></body>");
    expect(injectBeforeBodyEnd("<p>x</p>", "<s>")).toBe("<p>x</p><s>");
  });
});

describe("fw dev's flags", () => {
  it("--project (dir or tsconfig file) and --main, resolved; the entry is relative to the project", () => {
    expect(parseDevArgs(["--project", "example", "--main", "dist/main.js"], process.cwd())).toEqual({
      project: `${process.cwd()}/example`,
      projectDir: `${process.cwd()}/example`,
      main: `${process.cwd()}/example/dist/main.js`,
    });
    expect(parseDevArgs(["--project=example/tsconfig.json"], process.cwd())).toMatchObject({
      projectDir: `${process.cwd()}/example`,
      main: `${process.cwd()}/example/dist/main.js`,
    });
    expect(parseDevArgs(["--nope"], process.cwd())).toBe('unknown argument "--nope"');
    expect(parseDevArgs(["--main"], process.cwd())).toBe("--main needs a value");
    expect(parseDevArgs(["--project", "no/such/dir"], process.cwd())).toMatch(/does not exist/);
  });
});
