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
 * vitest's globalSetup for the browser tests (the `browser` project in vitest.config.ts), so it
 * runs only when they do: finds Chromium, installs one on a fresh machine, checks it launches.
 */
export default async function setup(project: TestProject): Promise<void> {
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
