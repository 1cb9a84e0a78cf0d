import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bootNode, runNode } from "../support/process.js";
import { fwDependency } from "../../runtime/dev/new-app.js";
import { htmlErrors } from "../support/html-validate.js";
import { PRODUCTION_ENV } from "../support/serve.js";
import { FIXTURES, tspc } from "../support/tspc.js";

// `fw new` as a user runs it: the package's bin (npm test builds dist/ first).
const FW = resolve("bin/fw.js");
const made: string[] = [];

/** An empty scratch directory inside the package, removed after the file. */
function scratch(name: string): string {
  const dir = mkdtempSync(join(FIXTURES, `_tmp-${name}-`));
  made.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe("fw new <dir>", () => {
  it("writes a minimal app that builds with tspc and serves its page and its model's pages", async () => {
    const dir = join(scratch("new"), "my-app");
    const { code, out, err } = await runNode(FW, ["new", dir]);
    expect(err).toBe("");
    expect(code).toBe(0);
    expect(out).toContain("npm install && npm run dev");
    for (const file of ["package.json", "tsconfig.json", ".gitignore", ".env.example", ".npmrc", "README.md", "Dockerfile", ".dockerignore", "src/main.ts", "src/layout.tsx", "src/app/Index.tsx", "src/models/Item.ts", "src/tests/home.test.ts", "public/app.css", "public/favicon.svg"]) {
      expect(out).toContain(file);
    }

    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, Record<string, string>>;
    expect(pkg["name"]).toBe("my-app");
    expect(pkg["type"]).toBe("module");
    expect(pkg["scripts"]).toEqual({
      dev: "fw dev",
      build: "tspc -p .",
      start: "node --enable-source-maps dist/main.js",
      test: "tspc -p . && node --test dist/tests/*.test.js",
      bundle: "fw bundle",
      db: "node dist/main.js db",
    });
    // From a checkout: fw by its path relative to the app (no machine's absolute layout), installed
    // as a copy (install-links) so its dependencies land in the app.
    expect(pkg["dependencies"]?.["fw"]).toBe(`file:${relative(dir, resolve("."))}`);
    expect(pkg["dependencies"]?.["fw"]).toMatch(/^file:\.\.\//);
    expect(readFileSync(join(dir, ".npmrc"), "utf8")).toBe("install-links=true\n");
    expect(pkg["dependencies"]?.["typia"]).toBeDefined();
    expect(Object.keys(pkg["devDependencies"] ?? {})).toEqual(["@types/node", "rolldown", "ts-patch", "typescript"]);
    expect(readFileSync(join(dir, ".gitignore"), "utf8").split("\n")).toEqual(expect.arrayContaining(["node_modules/", "dist/", ".fw/", ".env", ".env.local"]));
    // Issue 32: the settings to copy into .env, the public origin first.
    expect(readFileSync(join(dir, ".env.example"), "utf8")).toMatch(/^FW_ORIGIN=http:\/\/localhost:3000$/m);
    expect(readFileSync(join(dir, ".env.example"), "utf8")).toMatch(/^# SMTP_URL=smtps:/m);
    expect(readFileSync(join(dir, ".env.example"), "utf8")).toMatch(/^# FW_STORAGE=file:\/\/\/var\/lib\/app\/files$/m);
    // Issue 39 item 16: the README names the PGlite fw's template of a new database was made for, pinned.
    const fwPackage = JSON.parse(readFileSync("package.json", "utf8")) as { devDependencies: Record<string, string> };
    expect(readFileSync(join(dir, "README.md"), "utf8")).toContain(`\`npm install --save-exact @electric-sql/pglite@${fwPackage.devDependencies["@electric-sql/pglite"]}\``);
    const tsconfig = JSON.parse(readFileSync(join(dir, "tsconfig.json"), "utf8")) as { compilerOptions: { plugins: { transform: string }[] } };
    expect(tsconfig.compilerOptions.plugins.map((plugin) => plugin.transform)).toEqual(["fw/transformer", "fw/transformer/jsx", "typia/lib/transform"]);

    // Instead of `npm install`: `fw` is this checkout; typia, typescript and @types/node are
    // found in the repository's node_modules above the scratch directory.
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(resolve("."), join(dir, "node_modules", "fw"), "dir");

    const built = await tspc(dir);
    expect(built.output).toBe("");
    expect(built.code).toBe(0);
    // Its `db` script before the app has a database: where the commands come from, not just "unknown".
    const db = await runNode(join(dir, "dist/main.js"), ["db", "migrate"], {}, dir);
    expect(db.code).toBe(2);
    expect(db.err).toContain('fw: unknown command "db"\nThe db commands come with fw/db: boot the app with its DbApp instead of HttpApp');
    expect(readFileSync(join(dir, "src/.fw/routes.ts"), "utf8")).toContain("from src/models/Item.ts");
    // The page's JSX was pre-rendered by the `fw/transformer/jsx` plugin, resolved as a user's is.
    expect(readdirSync(join(dir, "dist/app")).map((file) => readFileSync(join(dir, "dist/app", file), "utf8")).join("")).toContain("jsxShape(");

    // Its test (src/tests/home.test.ts, built into dist/) runs under node's test runner with
    // fw/testing: three tests, each with an app of its own.
    const tested = await runNode("--test", ["dist/tests/home.test.js"], {}, dir);
    expect(tested.out, tested.out + tested.err).toContain("# pass 3");
    expect(tested.out).toContain("# fail 0");
    expect(tested.code).toBe(0);

    // Its `bundle` script (`fw bundle`, defaults: dist/main.js into dist/bundle) works as written; both builds serve the same pages.
    const bundled = await runNode(FW, ["bundle"], {}, dir);
    expect(bundled.err).toBe("");
    expect(bundled.code).toBe(0);
    for (const main of ["dist/main.js", "dist/bundle/main.js"]) {
      const app = bootNode(join(dir, main), [], { ...PRODUCTION_ENV }, dir);
      try {
        const url = await app.url;
        const home = await fetch(`${url}/`);
        expect(home.status).toBe(200);
        const html = await home.text();
        expect(html).toContain("<h1>Hello from fw</h1>");
        expect(html).toContain("<title>Home · My fw app</title>"); // framed by the layout
        // The layout's stylesheet and icon are real files of public/, served at their paths.
        expect(html).toContain('<link rel="stylesheet" href="/app.css">');
        expect(html).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml">');
        const css = await fetch(`${url}/app.css`);
        expect(css.status).toBe(200);
        expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
        const stylesheet = await css.text();
        expect(stylesheet).toBe(readFileSync(join(dir, "public/app.css"), "utf8"));
        // The derived index's "Links" heading is for screen readers: the stylesheet hides it on screen.
        expect(stylesheet).toMatch(/\.fw-hidden \{ position: absolute;[^}]*clip-path: inset\(50%\)/);
        const icon = await fetch(`${url}/favicon.svg`);
        expect(icon.status).toBe(200);
        expect(icon.headers.get("content-type")).toBe("image/svg+xml");
        const items = await fetch(`${url}/items`);
        expect(items.status).toBe(200);
        expect(await items.text()).toContain("<h1>Items</h1>");
        expect((await fetch(`${url}/items/new`)).status).toBe(200);
        // Its pages and a problem page pass html-validate: one main landmark on the 404 too (issue 28, item 9).
        const missing = await fetch(`${url}/no/such`);
        expect(missing.status).toBe(404);
        const problem = await missing.text();
        expect(problem).toContain('<main><div class="fw-problem" data-status="404">');
        expect(await htmlErrors(problem)).toEqual([]);
        for (const path of ["/", "/items", "/items/new"]) expect(await htmlErrors(await (await fetch(`${url}${path}`)).text()), path).toEqual([]);
      } finally {
        app.child.kill("SIGTERM");
        await app.exited;
      }
    }
  });

  it("refuses a non-empty directory with a clear message and exit code 2, writing nothing", async () => {
    const dir = scratch("new-full");
    writeFileSync(join(dir, "keep.txt"), "mine");
    const { code, out, err } = await runNode(FW, ["new", dir]);
    expect(code).toBe(2);
    expect(out).toBe("");
    expect(err).toContain(`fw new: ${dir} is not empty`);
    expect(() => readFileSync(join(dir, "package.json"))).toThrow();
  });

  it("without a directory prints the usage and exits 2", async () => {
    const { code, err } = await runNode(FW, ["new"]);
    expect(code).toBe(2);
    expect(err).toContain("give the directory to create");
    expect(err).toContain("usage: fw new <dir>");
  });
});

describe("fw new --fw: how the app depends on fw", () => {
  const app = resolve("/work/apps/my-app");
  it("names a tarball or a directory by a path relative to the app; a tarball needs no install-links", () => {
    expect(fwDependency(app, "/src/fw", "0.1.0", "/work/fw-0.1.0.tgz")).toEqual({ spec: "file:../../fw-0.1.0.tgz", installLinks: false });
    expect(fwDependency(app, "/src/fw", "0.1.0", "/work/fw")).toEqual({ spec: "file:../../fw", installLinks: true });
  });
  it("writes a version range as given; an installed fw names its own version, a checkout its path relative to the app", () => {
    expect(fwDependency(app, "/src/fw", "0.1.0", "^0.2.0")).toEqual({ spec: "^0.2.0", installLinks: false });
    expect(fwDependency(app, "/usr/lib/node_modules/fw", "0.1.0")).toEqual({ spec: "^0.1.0", installLinks: false });
    expect(fwDependency(app, "/src/fw", "0.1.0")).toEqual({ spec: "file:../../../src/fw", installLinks: true });
  });
  it("refuses a tarball that is not there, naming it and how to make one", async () => {
    const dir = join(scratch("new-fw"), "app");
    const { code, err } = await runNode(FW, ["new", dir, "--fw", "./nowhere/fw-0.1.0.tgz"]);
    expect(code).toBe(2);
    expect(err).toContain("--fw");
    expect(err).toContain("npm pack");
  });
});
