// `npm start`, `npm run dev` and `npm run build` go through scripts/build.mjs, which builds fw
// and the example only when something they are built from changed (issue 30 item 4): a second
// `npm start` compiles nothing. Its up-to-date check (scripts/up-to-date.mjs) on a small tree
// of its own, then the repository as `npm test` built it.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { forgetBuild, inputHash, stampBuild, staleness } from "../../scripts/up-to-date.mjs";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "fw-build-stamp-"));
  mkdirSync(join(root, "src/app"), { recursive: true });
  writeFileSync(join(root, "src/app/Index.ts"), "export const a = 1;\n");
  writeFileSync(join(root, "tsconfig.json"), "{}\n");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const INPUTS = ["src", "tsconfig.json"];

/** A stand-in for tsc: writes the outputs, then stamps them as a successful build does. */
function build(): string {
  const hash = inputHash(root, INPUTS);
  forgetBuild(root, "dist");
  mkdirSync(join(root, "dist/app"), { recursive: true });
  writeFileSync(join(root, "dist/app/Index.js"), readFileSync(join(root, "src/app/Index.ts")));
  stampBuild(root, "dist", hash);
  return hash;
}

describe("scripts/up-to-date.mjs: is a build still what its inputs make?", () => {
  it("is fresh after its build, and again after a file is rewritten unchanged (contents count, not times)", () => {
    expect(staleness(root, "dist", inputHash(root, INPUTS))).toBe("no earlier build");
    build();
    expect(staleness(root, "dist", inputHash(root, INPUTS))).toBeUndefined();
    writeFileSync(join(root, "src/app/Index.ts"), "export const a = 1;\n");
    utimesSync(join(root, "src/app/Index.ts"), new Date(), new Date(Date.now() + 60_000));
    expect(staleness(root, "dist", inputHash(root, INPUTS))).toBeUndefined();
  });

  it("is stale when a source changes, is added, or the tsconfig changes", () => {
    build();
    writeFileSync(join(root, "src/app/Index.ts"), "export const a = 2;\n");
    expect(staleness(root, "dist", inputHash(root, INPUTS))).toBe("its sources changed");
    build();
    writeFileSync(join(root, "src/app/About.ts"), "export const b = 1;\n");
    expect(staleness(root, "dist", inputHash(root, INPUTS))).toBe("its sources changed");
    build();
    writeFileSync(join(root, "tsconfig.json"), '{ "compilerOptions": {} }\n');
    expect(staleness(root, "dist", inputHash(root, INPUTS))).toBe("its sources changed");
  });

  it("ignores generated and installed folders among the inputs (src/.fw, node_modules)", () => {
    build();
    mkdirSync(join(root, "src/.fw"));
    writeFileSync(join(root, "src/.fw/routes.ts"), "// generated\n");
    mkdirSync(join(root, "src/node_modules"));
    writeFileSync(join(root, "src/node_modules/x.js"), "");
    expect(staleness(root, "dist", inputHash(root, INPUTS))).toBeUndefined();
  });

  it("is stale when an output its build wrote is missing or its contents changed since; a file added later, or one rewritten unchanged, does not count", () => {
    build();
    writeFileSync(join(root, "dist/bundle.js"), "// made later by fw bundle\n");
    expect(staleness(root, "dist", inputHash(root, INPUTS))).toBeUndefined();
    // Written again unchanged (fw dev's compiler emits everything at its start): still fresh.
    writeFileSync(join(root, "dist/app/Index.js"), readFileSync(join(root, "dist/app/Index.js")));
    utimesSync(join(root, "dist/app/Index.js"), new Date(), new Date(Date.now() + 60_000));
    expect(staleness(root, "dist", inputHash(root, INPUTS))).toBeUndefined();
    writeFileSync(join(root, "dist/app/Index.js"), "// edited by hand\n");
    expect(staleness(root, "dist", inputHash(root, INPUTS))).toBe("dist/app/Index.js changed since");
    build();
    rmSync(join(root, "dist/app/Index.js"));
    expect(staleness(root, "dist", inputHash(root, INPUTS))).toBe("dist/app/Index.js is missing");
  });

  it("takes a build that did not finish for none: the stamp goes before the build starts", () => {
    build();
    forgetBuild(root, "dist"); // a build started, then failed before stamping
    expect(staleness(root, "dist", inputHash(root, INPUTS))).toBe("no earlier build");
  });

  it("is stale when the target it is built from changed (the example after fw)", () => {
    const fw = inputHash(root, ["tsconfig.json"]);
    stampBuild(root, ".", inputHash(root, INPUTS, fw));
    expect(staleness(root, ".", inputHash(root, INPUTS, fw))).toBeUndefined();
    expect(staleness(root, ".", inputHash(root, INPUTS, `${fw}0`))).toBe("its sources changed");
    rmSync(join(root, ".build-stamp.json"));
  });
});

describe("npm start and npm run dev rebuild nothing when nothing changed", () => {
  it("start and dev build through scripts/build.mjs, not with an unconditional tsc", () => {
    const scripts = (JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> }).scripts;
    expect(scripts["start"]?.startsWith("node scripts/build.mjs fw example && ")).toBe(true);
    // fw dev compiles the example itself (tspc --watch): only fw is built before it.
    expect(scripts["dev"]?.startsWith("node scripts/build.mjs fw && ")).toBe(true);
    expect(scripts["build"]).toBe("node scripts/build.mjs fw example");
  });

  it("after the build npm test ran, the script finds fw and the example up to date and builds nothing", () => {
    const result = spawnSync(process.execPath, [resolve("scripts/build.mjs"), "--check"], { encoding: "utf8" });
    expect(result.status, `${result.stdout}${result.stderr}\n(run \`npm run build\` first: this test reads the build it left)`).toBe(0);
    expect(result.stdout).toContain("build: dist/ is up to date");
    expect(result.stdout).toContain("build: example/dist/ is up to date");
  });
});
