import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BUILD_TIMEOUT_MS, run, scratchCopy, watch } from "../support/tspc.js";

const page = (text: string): string =>
  `import { Ok, type Request, type Response } from "fw";\nexport function index(request: Request): Response { return Ok(${JSON.stringify(text)}); }\n`;

const scratch: string[] = [];
afterAll(() => scratch.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function lastBuild(output: string): string {
  const builds = output.split(/Starting (?:compilation in watch mode|incremental compilation)\.\.\./);
  const last = builds[builds.length - 1] ?? "";
  if (process.env["FW_DEBUG_WATCH"] !== undefined) process.stderr.write(`--- build ---\n${last}\n`);
  return last;
}

describe("tspc --watch", () => {
  it("picks up added, renamed and deleted route files (and job files) and settles on a clean build each time", async () => {
    const dir = scratchCopy("basic");
    scratch.push(dir);
    const generated = (): string => readFileSync(join(dir, "src/.fw/routes.ts"), "utf8");
    const watcher = watch(dir);
    /**
     * Waits, compile by compile, until the generated table satisfies `ready` and the latest
     * compile is clean. Writing the generated file makes tsc compile once more, so a change can
     * take two compiles; a rename racing that compile can show a transient error the next one clears.
     */
    const until = async (done: (build: string) => boolean): Promise<void> => {
      for (let compiles = 0; compiles < 6; compiles++) {
        if (done(lastBuild(await withTimeout(watcher.nextBuild(), watcher.output)))) return;
      }
      throw new Error(`watch did not settle:\n${watcher.output()}`);
    };
    const settle = (ready: (table: string) => boolean): Promise<void> => until((build) => build.includes("Found 0 errors") && ready(generated()));
    try {
      await settle((table) => !table.includes("/extra"));

      mkdirSync(join(dir, "src/app/extra"));
      writeFileSync(join(dir, "src/app/extra/Index.ts"), page("extra"));
      await settle((table) => table.includes('path: "/extra"'));

      renameSync(join(dir, "src/app/extra"), join(dir, "src/app/renamed"));
      await settle((table) => table.includes('path: "/renamed"') && !table.includes('path: "/extra"'));

      rmSync(join(dir, "src/app/renamed"), { recursive: true });
      await settle((table) => !table.includes("/renamed"));

      writeFileSync(join(dir, "src/app/Broken.ts"), "export const broken = 1;\n");
      await until((build) => build.includes("error TS91002: fw: src/app/Broken.ts mounts GET /broken"));
      rmSync(join(dir, "src/app/Broken.ts"));
      await settle((table) => !table.includes("Broken"));

      // Issue 32: a job file added makes the jobs module; deleted, the module goes and the build stays clean.
      const jobsModule = join(dir, "src/.fw/jobs.ts");
      mkdirSync(join(dir, "src/jobs"));
      writeFileSync(join(dir, "src/jobs/Ping.ts"), "export async function run(_payload: { to: string }): Promise<void> {}\n");
      await settle(() => existsSync(jobsModule) && readFileSync(jobsModule, "utf8").includes("Ping: {"));
      rmSync(join(dir, "src/jobs/Ping.ts"));
      await settle(() => !existsSync(jobsModule));
    } finally {
      watcher.child.kill();
    }
    // Eight steps (the first build, then seven changes), each a compile or two.
  }, 8 * BUILD_TIMEOUT_MS);
});

/** A compile that does not come within a build's time (BUILD_TIMEOUT_MS) is a hang: fail with what tsc printed. */
function withTimeout(build: Promise<string>, output: () => string): Promise<string> {
  return Promise.race([
    build,
    new Promise<string>((_, fail) => setTimeout(() => fail(new Error(`no compile within ${BUILD_TIMEOUT_MS / 1000} s:\n${output()}`)), BUILD_TIMEOUT_MS).unref()),
  ]);
}

describe("tspc --incremental", () => {
  it("rebuilds after one handler is edited: the table is unchanged and the new code is emitted", async () => {
    const dir = scratchCopy("basic");
    scratch.push(dir);
    expect((await run(dir, ["--incremental"])).code).toBe(0);
    const before = readFileSync(join(dir, "src/.fw/routes.ts"), "utf8");
    writeFileSync(join(dir, "src/app/Index.tsx"), readFileSync(join(dir, "src/app/Index.tsx"), "utf8").replace("home", "welcome"));
    const second = await run(dir, ["--incremental"]);
    expect(second.code, second.output).toBe(0);
    expect(readFileSync(join(dir, "src/.fw/routes.ts"), "utf8")).toBe(before);
    expect(readFileSync(join(dir, "dist/app/Index.js"), "utf8")).toContain("welcome");
  }, 2 * BUILD_TIMEOUT_MS);
});
