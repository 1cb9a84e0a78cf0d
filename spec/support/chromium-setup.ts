import { join, resolve, sep } from "node:path";
import { chromium } from "playwright-core";
import type { TestProject } from "vitest/node";
import { CHROMIUM_ARGS, findChromium, installFor, machinePlatform, prepareChromium, runInstall } from "./chromium.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The browser spec/browser drives, or why there is none (the tests are then skipped). */
    chromium: { readonly path: string } | { readonly skip: string };
  }
}

/**
 * vitest's globalSetup: when the browser tests are part of the run, finds Chromium, installs one
 * on a fresh machine, and checks it launches. A run without them (`npx vitest run spec/ws`)
 * does none of that.
 */
export default async function setup(project: TestProject): Promise<void> {
  if (!runsBrowserTests(project)) {
    project.provide("chromium", { skip: "the browser tests are not part of this run" });
    return;
  }
  const prepared = await prepareChromium({
    find: () => findChromium(),
    install: () => installFor(machinePlatform()),
    runInstall,
    launches: async (path) => {
      try {
        await (await chromium.launch({ executablePath: path, args: CHROMIUM_ARGS })).close();
        return undefined;
      } catch (error) {
        return `${path} does not launch: ${String(error instanceof Error ? error.message : error).split("\n")[0]}`;
      }
    },
    say: (line) => console.log(line),
    required: process.env["FW_BROWSER_TESTS"] === "required",
  });
  project.provide("chromium", prepared);
}

/**
 * Whether this run includes spec/browser or spec/live (fw/live's client runs in Chromium). vitest's state knows the run's files by the time
 * globalSetup runs (an experimental API, hence the fallback: when it is missing, assume yes).
 */
function runsBrowserTests(project: TestProject): boolean {
  const paths: readonly string[] | undefined = project.vitest.state?.getPaths?.();
  if (paths === undefined) return true;
  const browserDirs = ["browser", "live"].map((dir) => `${join(project.config.root, "spec", dir)}${sep}`);
  return paths.some((path) => browserDirs.some((dir) => resolve(path).startsWith(dir)));
}
