import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const here = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

// vitest runs the TypeScript sources directly (no transformer needed for the runtime);
// `fw` and its JSX runtime resolve to the sources, as the tsconfig `paths` say.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^fw\/jsx-(dev-)?runtime$/, replacement: here("./runtime/html/jsx-runtime.ts") },
      { find: /^fw$/, replacement: here("./runtime/index.ts") },
      { find: /^fw\/auth$/, replacement: here("./runtime/auth/index.ts") },
    ],
  },
  oxc: {
    jsx: { runtime: "automatic", importSource: "fw" },
  },
  test: {
    testTimeout: 20_000,
    pool: "forks",
    // The browser tests are a project of their own so that their setup (finding Chromium,
    // installing one on a fresh machine) runs only when they are part of the run.
    projects: [
      { extends: true, test: { name: "fw", include: ["spec/**/*.test.ts", "spec/**/*.test.tsx"], exclude: ["spec/browser/**"] } },
      {
        extends: true,
        test: { name: "browser", include: ["spec/browser/**/*.test.ts"], globalSetup: ["spec/support/chromium-setup.ts"] },
      },
    ],
  },
});
