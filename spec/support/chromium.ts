import { spawnSync } from "node:child_process";
import { accessSync, constants, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { delimiter, dirname, join } from "node:path";

/**
 * Finding (and, on a fresh machine, installing) the Chromium that spec/browser drives through
 * playwright-core. docs/guides/testing.md ("fw's own tests") and docs/decisions.md describe the rules; `prepareChromium`
 * (run by spec/support/chromium-setup.ts, vitest's globalSetup for the browser tests) applies them.
 */

/** How every browser test launches Chromium (and how the setup checks that it launches). */
export const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-background-networking", "--disable-gpu", "--disable-component-update", "--disable-sync", "--no-first-run"];

/** Names a Chromium goes by on the PATH, in the order they are tried. */
const PATH_NAMES = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"];

/** Where browsers live outside the PATH. */
const FIXED_PATHS = [
  "/Applications/Chromium.app/Contents/MacOS/Chromium",
  "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
  "C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe",
  "C:\\Program Files (x86)\\Google\\Chrome\\Application\\chrome.exe",
];

/** Where to look; the default reads this machine, a test passes its own. */
export interface Search {
  readonly env: NodeJS.ProcessEnv;
  /** System browsers, in order (the PATH's, then fixed places). */
  readonly systemPaths: readonly string[];
  /** The Chromium playwright-core downloads (under ~/.cache/ms-playwright), installed or not. */
  readonly playwrightPath: string | undefined;
  readonly isExecutable: (path: string) => boolean;
}

export type Found = { readonly path: string; readonly from: string } | { readonly path?: undefined; readonly reason: string; readonly explicit: boolean };

/**
 * The browser to drive: `FW_CHROMIUM` when set (alone: a path that is not there is reported,
 * not searched past), else the first system Chromium or Chrome, else Playwright's download.
 */
export function findChromium(search: Search = machineSearch()): Found {
  const chosen = search.env["FW_CHROMIUM"];
  if (chosen !== undefined && chosen !== "") {
    return search.isExecutable(chosen)
      ? { path: chosen, from: "FW_CHROMIUM" }
      : { reason: `FW_CHROMIUM=${chosen} is not an executable file`, explicit: true };
  }
  const system = search.systemPaths.find((path) => search.isExecutable(path));
  if (system !== undefined) return { path: system, from: "the system" };
  const managed = search.playwrightPath;
  if (managed !== undefined && search.isExecutable(managed)) return { path: managed, from: "Playwright's download" };
  return { reason: `no Chromium or Chrome on the PATH (${PATH_NAMES.join(", ")}), nor Playwright's under ~/.cache/ms-playwright`, explicit: false };
}

/** This machine's search list. */
export function machineSearch(env: NodeJS.ProcessEnv = process.env): Search {
  const dirs = (env["PATH"] ?? "").split(delimiter).filter((dir) => dir !== "");
  const onPath = PATH_NAMES.flatMap((name) => dirs.map((dir) => join(dir, process.platform === "win32" ? `${name}.exe` : name)));
  return { env, systemPaths: [...onPath, ...FIXED_PATHS], playwrightPath: playwrightChromium(), isExecutable };
}

function playwrightChromium(): string | undefined {
  try {
    const { chromium } = createRequire(import.meta.url)("playwright-core") as typeof import("playwright-core");
    return chromium.executablePath();
  } catch {
    return undefined;
  }
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** One way to install a browser: what it says, then the commands it runs in order. */
export interface Install {
  readonly says: string;
  readonly steps: readonly (readonly string[])[];
}

/** What the machine is, as far as choosing an installer goes. */
export interface Platform {
  readonly os: NodeJS.Platform;
  /** 0 for root; undefined where there are no user ids (Windows). */
  readonly uid: number | undefined;
  /** `ID` from /etc/os-release ("debian", "ubuntu", …). */
  readonly distro: string | undefined;
  readonly hasAptGet: boolean;
}

/**
 * How to install a browser here: Debian's `chromium` through apt-get when running as root on
 * Debian (what `.ci/run` does); elsewhere Playwright's own download of the Chromium that this
 * playwright-core drives (Ubuntu's `chromium` is a snap, which containers cannot run).
 */
export function installFor(platform: Platform): Install {
  if (platform.os === "linux" && platform.uid === 0 && platform.distro === "debian" && platform.hasAptGet) {
    return {
      says: "installing Debian's chromium (apt-get update && apt-get install -y chromium, as root)",
      steps: [
        ["apt-get", "update", "-qq"],
        ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "chromium"],
      ],
    };
  }
  // The package's bin (cli.js) is not among its exports; it sits beside its package.json.
  const cli = join(dirname(createRequire(import.meta.url).resolve("playwright-core/package.json")), "cli.js");
  return {
    says: "downloading Playwright's Chromium into ~/.cache/ms-playwright (npx playwright-core install chromium)",
    steps: [[process.execPath, cli, "install", "chromium"]],
  };
}

/** This machine, for `installFor`. */
export function machinePlatform(): Platform {
  let distro: string | undefined;
  try {
    distro = /^ID="?([^"\n]+)"?$/m.exec(readFileSync("/etc/os-release", "utf8"))?.[1];
  } catch {
    distro = undefined;
  }
  const hasAptGet = ["/usr/bin/apt-get", "/bin/apt-get"].some(isExecutable);
  return { os: process.platform, uid: process.getuid?.(), distro, hasAptGet };
}

/** Runs an install's steps in order; resolves undefined on success, else why it failed (one line). */
export function runInstall(install: Install): string | undefined {
  for (const [command, ...args] of install.steps) {
    const ran = spawnSync(command as string, args, {
      encoding: "utf8",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
      timeout: 10 * 60_000,
    });
    if (ran.error !== undefined) return `${command} could not run: ${ran.error.message}`;
    if (ran.status !== 0) {
      const last = `${ran.stderr}\n${ran.stdout}`.split("\n").map((line) => line.trim()).filter((line) => line !== "").at(-1);
      return `${[command, ...args].join(" ")} exited with ${ran.status ?? ran.signal}${last === undefined ? "" : `: ${last}`}`;
    }
  }
  return undefined;
}

/** What the setup needs from the outside world; the machine's by default, a test's in tests. */
export interface Preparation {
  readonly find: () => Found;
  readonly install: () => Install;
  readonly runInstall: (install: Install) => string | undefined;
  /** Launches and closes the browser: undefined when it works, else why not. */
  readonly launches: (path: string) => Promise<string | undefined>;
  readonly say: (line: string) => void;
  /** `FW_BROWSER_TESTS=required` (CI): no browser fails the run instead of skipping. */
  readonly required: boolean;
}

export type Prepared = { readonly path: string } | { readonly skip: string };

/**
 * Finds a browser, installs one when none is found (unless FW_CHROMIUM named one), and checks
 * that it launches. Says one line for what it does; when there is still no working browser it
 * says so in one line and the browser tests are skipped, or, when required, it throws.
 */
export async function prepareChromium(how: Preparation): Promise<Prepared> {
  let found = how.find();
  if (found.path === undefined && !found.explicit) {
    const install = how.install();
    how.say(`fw: no Chromium for the browser tests: ${install.says}`);
    const failed = how.runInstall(install);
    found = failed === undefined ? how.find() : { reason: `${found.reason}, and installing failed: ${failed}`, explicit: false };
  }
  const problem = found.path === undefined ? found.reason : await how.launches(found.path);
  if (problem === undefined && found.path !== undefined) {
    how.say(`fw: browser tests drive ${found.path} (from ${found.from})`);
    return { path: found.path };
  }
  const why = `fw: browser tests skipped: ${problem} (set FW_CHROMIUM=/path/to/chromium, or install one: apt-get install chromium, or npx playwright-core install chromium)`;
  if (how.required) throw new Error(`${why.replace("skipped", "cannot run")}; FW_BROWSER_TESTS=required`);
  how.say(why);
  return { skip: why };
}
