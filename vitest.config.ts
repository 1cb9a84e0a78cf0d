import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";

const here = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

// vitest runs the TypeScript sources directly (no transformer needed for the runtime);
// `fw` and its JSX runtime resolve to the sources, as the tsconfig `paths` say.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^fw\/jsx-(dev-)?runtime$/, replacement: here("./runtime/html/jsx-runtime.ts") },
      { find: /^fw$/, replacement: here("./runtime/index.ts") },
      { find: /^fw\/auth$/, replacement: here("./runtime/auth/index.ts") },
      { find: /^fw\/db$/, replacement: here("./runtime/db/index.ts") },
      { find: /^fw\/live$/, replacement: here("./runtime/live/index.ts") },
      { find: /^fw\/mail$/, replacement: here("./runtime/mail/index.ts") },
      { find: /^fw\/jobs$/, replacement: here("./runtime/jobs/index.ts") },
      { find: /^fw\/files$/, replacement: here("./runtime/files/index.ts") },
      { find: /^fw\/cache$/, replacement: here("./runtime/cache/index.ts") },
    ],
  },
  oxc: {
    jsx: { runtime: "automatic", importSource: "fw" },
  },
  test: {
    include: ["spec/**/*.test.ts", "spec/**/*.test.tsx"],
    // Fixture apps hold test files of their own (spec/fixtures/broken-paths' src/tests/ is read by
    // the build's path checks): they are built and checked by the specs, never run here.
    exclude: [...configDefaults.exclude, "spec/fixtures/**"],
    // A timeout catches a hang; it is no speed check, so a test's verdict must not depend on how
    // busy the machine is. Builds, boots and property runs take several times longer at a load
    // of 6 on two cores than on a quiet machine (20 s was overrun there), so a test and a hook get
    // two minutes, and a test that builds more than once gets BUILD_TIMEOUT_MS (spec/support/tspc.ts)
    // per build. Never give a test or a hook less than these.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Most of a test's time is spent waiting on other processes (an app it booted, tspc, Chromium,
    // PostgreSQL), so more files than cores run at once: vitest's default (cores - 1) ran the suite
    // file by file on a 2-core machine, 25 minutes where 3 at once take 13 with every test green.
    maxWorkers: Math.max(3, availableParallelism() - 1),
    // The tests read fw's text log lines: production writes JSON by default (FW_LOG_FORMAT), and
    // the apps these tests boot, in this process or as children (which inherit it), write text
    // unless a test asks for JSON (spec/ops/logs.test.ts reads those through pino's format).
    env: { FW_LOG_FORMAT: "text" },
    // First (so torn down last): gives the run a temp folder of its own, and fails the run when
    // anything is left in it. Then: finds (or installs) the Chromium that spec/browser drives,
    // when those tests are in the run; prepares the databases the example's tests start it on
    // (PostgreSQL template, PGlite copy).
    globalSetup: ["spec/support/temp-folder-setup.ts", "spec/support/chromium-setup.ts", "spec/support/example-db-setup.ts"],
    // Each test file gets a temp folder of its own inside the run's, and fails if it leaves anything there.
    setupFiles: ["spec/support/temp-folder-check.ts"],
  },
});
