import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findChromium, installFor, machineSearch, prepareChromium, type Found, type Install, type Preparation, type Search } from "../support/chromium.js";

// `npm install && npm test` on a fresh machine (docs/guides/testing.md, "fw's own tests"): the browser tests find a
// Chromium, install one when there is none, and otherwise say why in one line and are skipped.
// Real files stand in for browsers here; the machine's own browser is never touched.

const dir = mkdtempSync(join(tmpdir(), "fw-chromium-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
function executable(name: string): string {
  const path = join(dir, name);
  writeFileSync(path, "#!/bin/sh\n");
  chmodSync(path, 0o755);
  return path;
}
const system = executable("chromium");
const managed = executable("playwright-chrome");
const plain = join(dir, "not-executable");
writeFileSync(plain, "");
const missing = join(dir, "missing");

const search = (over: Partial<Search>): Search => ({ ...machineSearch({}), env: {}, systemPaths: [], playwrightPath: undefined, ...over });

describe("finding Chromium for the browser tests", () => {
  it("FW_CHROMIUM wins when it names an executable", () => {
    expect(findChromium(search({ env: { FW_CHROMIUM: managed }, systemPaths: [system] }))).toEqual({ path: managed, from: "FW_CHROMIUM" });
  });

  it("FW_CHROMIUM naming a missing or non-executable file is reported, not searched past (no install either)", () => {
    for (const path of [missing, plain]) {
      const found = findChromium(search({ env: { FW_CHROMIUM: path }, systemPaths: [system], playwrightPath: managed }));
      expect(found).toEqual({ reason: `FW_CHROMIUM=${path} is not an executable file`, explicit: true });
    }
  });

  it("else the first system browser that is there, then Playwright's download", () => {
    expect(findChromium(search({ systemPaths: [missing, plain, system], playwrightPath: managed }))).toEqual({ path: system, from: "the system" });
    expect(findChromium(search({ systemPaths: [missing], playwrightPath: managed }))).toEqual({ path: managed, from: "Playwright's download" });
  });

  it("none: says where it looked", () => {
    const found = findChromium(search({ systemPaths: [missing], playwrightPath: missing }));
    expect(found.path).toBeUndefined();
    expect(found).toMatchObject({ explicit: false, reason: expect.stringContaining("no Chromium or Chrome on the PATH") });
  });

  it("the machine's search list looks on the PATH for chromium, chromium-browser and google-chrome", () => {
    const paths = machineSearch({ PATH: ["/opt/a", "/opt/b"].join(process.platform === "win32" ? ";" : ":") }).systemPaths;
    const ext = process.platform === "win32" ? ".exe" : "";
    expect(paths).toEqual(expect.arrayContaining([join("/opt/a", `chromium${ext}`), join("/opt/b", `chromium${ext}`), join("/opt/a", `chromium-browser${ext}`), join("/opt/a", `google-chrome${ext}`)]));
  });
});

describe("installing one on a fresh machine", () => {
  it("as root on Debian with apt-get: Debian's chromium", () => {
    const install = installFor({ os: "linux", uid: 0, distro: "debian", hasAptGet: true });
    expect(install.steps).toEqual([
      ["apt-get", "update", "-qq"],
      ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "chromium"],
    ]);
    expect(install.says).toContain("apt-get install -y chromium");
  });

  it("anywhere else (not root, Ubuntu's snap-only chromium, macOS): Playwright's download of its own Chromium", () => {
    for (const platform of [
      { os: "linux", uid: 1000, distro: "debian", hasAptGet: true },
      { os: "linux", uid: 0, distro: "ubuntu", hasAptGet: true },
      { os: "darwin", uid: 501, distro: undefined, hasAptGet: false },
    ] as const) {
      const install = installFor(platform);
      expect(install.steps).toHaveLength(1);
      expect(install.steps[0]?.slice(1)).toEqual([expect.stringMatching(/playwright-core[\\/]cli\.js$/), "install", "chromium"]);
      expect(install.says).toContain("npx playwright-core install chromium");
    }
  });
});

describe("preparing the browser tests", () => {
  const apt: Install = { says: "installing Debian's chromium", steps: [["apt-get", "install", "chromium"]] };

  /** A preparation over a machine where `present` is what a search finds before and after installing. */
  function machine(over: { before: Found; after?: Found; installFails?: string; launchFails?: string; required?: boolean }) {
    const said: string[] = [];
    const ran: Install[] = [];
    let installed = false;
    const how: Preparation = {
      find: () => (installed ? (over.after ?? over.before) : over.before),
      install: () => apt,
      runInstall: (install) => {
        ran.push(install);
        installed = over.installFails === undefined;
        return over.installFails;
      },
      launches: async () => over.launchFails,
      say: (line) => said.push(line),
      required: over.required ?? false,
    };
    return { how, said, ran };
  }
  const none: Found = { reason: "no Chromium or Chrome on the PATH", explicit: false };

  it("a browser that is there and launches is used, with one line saying which", async () => {
    const { how, said, ran } = machine({ before: { path: system, from: "the system" } });
    expect(await prepareChromium(how)).toEqual({ path: system });
    expect(ran).toEqual([]);
    expect(said).toEqual([`fw: browser tests drive ${system} (from the system)`]);
  });

  it("none: installs one, saying what it does in one line, then uses it", async () => {
    const { how, said, ran } = machine({ before: none, after: { path: managed, from: "the system" } });
    expect(await prepareChromium(how)).toEqual({ path: managed });
    expect(ran).toEqual([apt]);
    expect(said).toEqual(["fw: no Chromium for the browser tests: installing Debian's chromium", `fw: browser tests drive ${managed} (from the system)`]);
  });

  it("none and the install fails (no network, not root): the tests are skipped with one line saying why", async () => {
    const { how, said } = machine({ before: none, installFails: "apt-get exited with 100: Unable to locate package chromium" });
    const prepared = await prepareChromium(how);
    expect(prepared).toEqual({ skip: said[1] });
    expect(said).toHaveLength(2);
    expect(said[1]).toMatch(/^fw: browser tests skipped: no Chromium .* installing failed: apt-get exited with 100: Unable to locate package chromium \(set FW_CHROMIUM=/);
  });

  it("a browser that does not launch (a download without its libraries): skipped, saying so", async () => {
    const { how, said } = machine({ before: { path: managed, from: "Playwright's download" }, launchFails: `${managed} does not launch: libnss3.so missing` });
    expect(await prepareChromium(how)).toEqual({ skip: said[0] });
    expect(said).toEqual([expect.stringContaining("fw: browser tests skipped: " + managed + " does not launch: libnss3.so missing")]);
  });

  it("FW_CHROMIUM naming nothing: nothing is installed, the tests are skipped saying so", async () => {
    const { how, said, ran } = machine({ before: { reason: `FW_CHROMIUM=${missing} is not an executable file`, explicit: true } });
    expect(await prepareChromium(how)).toMatchObject({ skip: expect.stringContaining(`FW_CHROMIUM=${missing}`) });
    expect(ran).toEqual([]);
    expect(said).toHaveLength(1);
  });

  it("FW_BROWSER_TESTS=required (CI): no browser fails the run instead of skipping", async () => {
    const { how } = machine({ before: none, installFails: "no network", required: true });
    await expect(prepareChromium(how)).rejects.toThrow(/browser tests cannot run: .*no network.*FW_BROWSER_TESTS=required/);
  });
});
