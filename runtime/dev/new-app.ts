import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { parseFlags, shown } from "./flags.js";
import { DOCKERFILE, DOCKERIGNORE } from "./new-app-container.js";

export const NEW_USAGE = `usage: fw new <dir> [--fw <spec>]
  --fw  how the app depends on fw: a packed tarball (../fw-0.1.0.tgz), a directory or a version
        range; default: this fw (its version range when installed from a package, else this
        checkout by its path relative to <dir>, installed as a copy)
  Writes a minimal fw app into <dir> (created if missing; it must be empty):
  package.json (dev, build, start, test, bundle, db scripts), tsconfig.json (fw's and typia's
  plugins), one page, one model, the layout, a test, public/ (a stylesheet and a favicon),
  a README, a .gitignore, a .env.example, and a Dockerfile with its .dockerignore. Then: cd <dir> && npm install && npm run dev`;

/**
 * The settings an fw app reads, for the developer to copy into `.env` (read by `fw dev` and
 * the app, never under NODE_ENV=production unless FW_ENV_FILES=1) or to set on the server.
 */
const ENV_EXAMPLE = `# Copy to .env (git-ignored) and fill in. Real environment variables win over these.
# In production set them in the environment; .env is not read there unless FW_ENV_FILES=1.

# The app's public address: links in mail are built on it, never on a request's Host header,
# and in production only its host is answered (FW_ALLOWED_HOSTS lists more). Dev: optional.
FW_ORIGIN=http://localhost:3000
# FW_ALLOWED_HOSTS=www.example.com,example.com

# Signs sessions: 32 bytes or more, the same across restarts. Dev makes one under .fw/.
# node -e "console.log(require('crypto').randomBytes(32).toString('base64url'))"
# FW_SECRET=

# PostgreSQL; without it the app keeps an embedded database (PGlite) in .fw/db.
# DATABASE_URL=postgres://app:secret@localhost:5432/app

# fw/mail in production: the SMTP server (dev shows mail at /fw/mail instead).
# SMTP_URL=smtps://user:password@smtp.example.com

# fw/files (a model's Upload or Image field): where uploads are kept. Dev keeps them in .fw/files;
# production needs a folder that survives deploys, or an S3 bucket (see the files guide).
# FW_STORAGE=file:///var/lib/app/files
# FW_STORAGE=s3://bucket?region=eu-west-1
`;

/** This fw checkout's root: the compiled file lives at dist/runtime/dev/, the source at runtime/dev/. */
function fwRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json")) || (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string }).name !== "fw") {
    const up = dirname(dir);
    if (up === dir) throw new Error("fw new: cannot find fw's own package.json");
    dir = up;
  }
  return dir;
}

/** An npm package name made from the directory's name. */
export function packageName(dir: string): string {
  const name = basename(resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[._-]+/, "")
    .slice(0, 200);
  return name === "" ? "fw-app" : name;
}

/** fw's own package.json, as far as `fw new` reads it. */
interface FwPackage {
  readonly version?: string;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly devDependencies?: Readonly<Record<string, string>>;
}

/** How the new app depends on fw: the `dependencies` entry, and whether npm must copy a linked directory (`.npmrc`). */
export interface FwDependency {
  readonly spec: string;
  readonly installLinks: boolean;
}

/**
 * The app's dependency on fw. `--fw` wins: a path (a packed tarball or a directory) becomes
 * `file:` relative to the app, anything else (a version range) is written as given. Without it:
 * an installed fw (under node_modules) names its own version range; a checkout is named by its
 * path relative to the app, as a `--fw` path is (an absolute path would tie the app to one
 * machine's layout; a relative one holds wherever the two folders move together), and
 * installed as a copy (`install-links`), so fw's own dependencies (ws, typia) are installed
 * into the app where its bundle can resolve them, not left in the checkout.
 */
export function fwDependency(target: string, root: string, version: string, given?: string): FwDependency {
  if (given !== undefined) {
    if (!isPathSpec(given)) return { spec: given, installLinks: false };
    const path = resolve(given.replace(/^file:/, ""));
    return { spec: fileSpec(target, path), installLinks: !path.endsWith(".tgz") };
  }
  if (root.split(sep).includes("node_modules")) return { spec: `^${version}`, installLinks: false };
  return { spec: fileSpec(target, root), installLinks: true };
}

/** `file:` and the path from the app to `path`, with forward slashes (package.json's spelling on every system). */
function fileSpec(target: string, path: string): string {
  return `file:${relative(target, path).split(sep).join("/") || "."}`;
}

/** Whether `--fw` names a file or directory (`./x`, `/x`, `file:x`, `C:\\x`, `fw-0.1.0.tgz`) rather than a version range. */
export function isPathSpec(spec: string): boolean {
  return /^(\.|\/|\\|file:|[A-Za-z]:[\\/])/.test(spec) || spec.endsWith(".tgz");
}

/** Every file of a new app, by path relative to its directory. */
export function appFiles(name: string, root: string, fwDep: FwDependency = { spec: `file:${root}`, installLinks: true }): ReadonlyMap<string, string> {
  const fw = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as FwPackage;
  const typia = fw.dependencies?.["typia"] ?? "12.2.1";
  const packageJson = {
    name,
    version: "0.1.0",
    private: true,
    type: "module",
    scripts: {
      dev: "fw dev",
      build: "tspc -p .",
      // Production: FW_SECRET must be set (fw refuses to boot without it and says how).
      start: "node --enable-source-maps dist/main.js",
      // The shell expands the pattern on Node 20 (which takes only paths); Node 21+ would glob it itself.
      test: "tspc -p . && node --test dist/tests/*.test.js",
      bundle: "fw bundle",
      // The database commands (npm run db -- migrate): with fw/db, once main.ts boots a DbApp.
      db: "node dist/main.js db",
    },
    dependencies: { fw: fwDep.spec, typia },
    // rolldown is only for `fw bundle` (an optional peer dependency of fw): a devDependency, so
    // `npm ci --omit=dev` leaves it out of production.
    devDependencies: {
      "@types/node": fw.devDependencies?.["@types/node"] ?? "~20.19.43",
      rolldown: fw.devDependencies?.["rolldown"] ?? "^1.2.0",
      "ts-patch": fw.devDependencies?.["ts-patch"] ?? "3.3.0",
      typescript: fw.devDependencies?.["typescript"] ?? "~5.9.3",
    },
  };
  const tsconfig = {
    compilerOptions: {
      target: "ES2022",
      lib: ["ES2023"],
      module: "NodeNext",
      moduleResolution: "NodeNext",
      strict: true,
      skipLibCheck: true,
      jsx: "react-jsx",
      jsxImportSource: "fw",
      types: ["node"],
      outDir: "dist",
      rootDir: "src",
      sourceMap: true,
      plugins: [{ transform: "fw/transformer", transformProgram: true }, { transform: "fw/transformer/jsx" }, { transform: "typia/lib/transform" }],
    },
    include: ["src"],
  };
  return new Map([
    ["package.json", `${JSON.stringify(packageJson, null, 2)}\n`],
    ["tsconfig.json", `${JSON.stringify(tsconfig, null, 2)}\n`],
    // .env and .env.local hold this machine's settings and secrets: never committed; .env.example is.
    [".gitignore", "node_modules/\ndist/\n.fw/\n*.tsbuildinfo\n.env\n.env.local\n"],
    [".env.example", ENV_EXAMPLE],
    // The container image: build, bundle, run as a non-root user (new-app-container.ts).
    ["Dockerfile", DOCKERFILE],
    [".dockerignore", DOCKERIGNORE],
    // A checkout is installed as a copy: a symlink would leave fw's dependencies in the checkout.
    ...(fwDep.installLinks ? [[".npmrc", "install-links=true\n"] as const] : []),
    ["README.md", readme(name, fw.devDependencies?.["@electric-sql/pglite"]?.replace(/^[\^~=]/, ""))],
    ["src/main.ts", MAIN],
    ["src/layout.tsx", LAYOUT],
    ["src/app/Index.tsx", INDEX],
    ["src/models/Item.ts", ITEM],
    ["src/tests/home.test.ts", TEST],
    ["public/app.css", CSS],
    ["public/favicon.svg", FAVICON],
  ]);
}

/** Writes a new app into `dir`; a string is the error to print (exit code 2). */
export function newApp(dir: string, options: { readonly root?: string; readonly fw?: string } = {}): { readonly dir: string; readonly files: readonly string[] } | string {
  const target = resolve(dir);
  if (existsSync(target)) {
    if (!statSync(target).isDirectory()) return `${target} exists and is not a directory`;
    if (readdirSync(target).length > 0) return `${target} is not empty: give a new or empty directory`;
  }
  const root = options.root ?? fwRoot();
  if (options.fw !== undefined && isPathSpec(options.fw) && !existsSync(resolve(options.fw.replace(/^file:/, "")))) {
    return `--fw ${options.fw}: no such file or directory (pack fw with \`npm pack\` in its checkout, then give the .tgz)`;
  }
  const version = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as FwPackage).version ?? "0.1.0";
  const files = appFiles(packageName(target), root, fwDependency(target, root, version, options.fw));
  for (const [path, text] of files) {
    mkdirSync(dirname(join(target, path)), { recursive: true });
    writeFileSync(join(target, path), text, { flag: "wx" });
  }
  return { dir: target, files: [...files.keys()] };
}

/** `fw new <dir>`: resolves with the exit code. */
export function newCommand(args: readonly string[], cwd: string, out: (text: string) => void, err: (text: string) => void): number {
  if (args.length === 1 && (args[0] === "--help" || args[0] === "-h")) {
    out(NEW_USAGE);
    return 0;
  }
  const [dir, ...extra] = args;
  const flags = parseFlags(extra, ["--fw"]);
  if (dir === undefined || dir === "" || typeof flags === "string" || dir.startsWith("-")) {
    const why = dir === undefined || dir === "" ? "give the directory to create" : dir.startsWith("-") ? `unexpected argument ${JSON.stringify(dir)}` : (flags as string);
    err(`fw new: ${why}\n${NEW_USAGE}`);
    return 2;
  }
  const given = flags.get("--fw");
  const made = newApp(resolve(cwd, dir), given === undefined ? {} : { fw: isPathSpec(given) ? resolve(cwd, given.replace(/^file:/, "")) : given });
  if (typeof made === "string") {
    err(`fw new: ${made}`);
    return 2;
  }
  const where = shown(made.dir, cwd);
  out(`fw new: wrote ${made.files.length} files into ${where}:\n${made.files.map((file) => `  ${file}`).join("\n")}\n\nNext:\n  cd ${where}\n  npm install && npm run dev`);
  return 0;
}

/** The line of the README on the embedded database's engine: the PGlite fw's template of a new database was made for, pinned. */
function pgliteLine(pglite: string | undefined): string {
  if (pglite === undefined) return "";
  return `  For the embedded database, install the PGlite fw was made for:
  \`npm install --save-exact @electric-sql/pglite@${pglite}\` (another version works, but each new
  database, each test's too, then takes 10 s or more to make instead of about 1, and fw says so).
`;
}

function readme(name: string, pglite: string | undefined): string {
  return `# ${name}

An app made with \`fw new\`: fw builds its routes from its files with
\`tspc\` and serves them on Node.js.

\`\`\`sh
npm install
npm run dev      # fw dev: builds, serves http://127.0.0.1:3000, rebuilds and reloads on save
npm test         # builds, then runs the tests of src/tests/ (node's test runner)
npm run build    # tspc: dist/
npm start        # production: node dist/main.js (FW_SECRET required, 32 bytes or more)
npm run bundle   # optional: fw bundle, a lighter production boot: node dist/bundle/main.js
npm run db -- migrate  # with fw/db (models in a database): the db commands
\`\`\`

- \`src/app/Index.tsx\` is the home page, \`GET /\`. Add \`src/app/About.tsx\` exporting
  \`about\` for \`GET /about\`; folders make paths (\`posts/_id/Show.tsx\` → \`GET /posts/:id\`).
- \`src/models/Item.ts\` is a model: its seven pages live at \`/items\`, derived from its type.
- \`src/layout.tsx\` frames every page, \`src/main.ts\` boots the app.
- \`src/tests/home.test.ts\` tests it with fw/testing: \`startApp()\` runs the built app for one
  test, \`client()\` is a visitor that keeps cookies and submits forms with their CSRF token.
- \`public/\` is served as it is: \`public/app.css\` is \`/app.css\`.
- Models live in memory until a model names a table (\`{ table: "items" }\`) and \`src/main.ts\`
  boots a \`DbApp\` from \`fw/db\`: see fw's database guide (docs/guides/database.md). Then
  \`npm run db -- migrate\`, \`status\`, \`new NAME\`, \`seed\` and \`reset\` are its commands.
${pgliteLine(pglite)}- \`node dist/main.js routes\` prints the route table. Production: set \`FW_SECRET\` (make one
  with \`node -e "console.log(require('crypto').randomBytes(32).toString('base64url'))"\`),
  \`npm ci --omit=dev\` beside the build, and run \`npm start\` (or the bundle).
`;
}

const MAIN = `import { HttpApp } from "fw";
import { table } from "./.fw/routes.js";
import { layout } from "./layout.js";

// The build writes src/.fw/routes.ts from src/app/ and src/models/. The app never listens
// itself: \`main\` reads the command (none, dev, routes) and runs it.
process.exitCode = await new HttpApp({ routes: table(), layout }).main();
`;

const TEST = `import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import { startApp, type TestApp } from "fw/testing";

// \`npm test\` builds the app, then runs node's test runner on the built tests (dist/tests/*.test.js).
// Each test gets the app to itself: its own process, port and (with fw/db) an empty database.
let app: TestApp;
beforeEach(async () => {
  app = await startApp();
});
afterEach(() => app.close());

test("the home page answers", async () => {
  const home = await app.client().get("/");
  assert.equal(home.status, 200);
  assert.match(home.text, /Hello from fw/);
});

test("an item added through its form is shown and listed", async () => {
  const visitor = app.client(); // keeps the session cookie, sends the form's CSRF token
  const created = await visitor.submit("/items/new", { name: "Buy milk" });
  assert.equal(created.status, 303, created.summary()); // a 422 says which fields it refused and why
  const shown = await visitor.follow(created);
  assert.match(shown.text, /Buy milk/);
  assert.match((await visitor.get("/items")).text, /Buy milk/);
});

test("each test starts from an empty app", async () => {
  assert.doesNotMatch((await app.client().get("/items")).text, /Buy milk/);
});
`;

const LAYOUT = `import type { Layout } from "fw";

/** The one frame of every page, error pages included: the title, navigation and the flash. */
export const layout: Layout = ({ title, content, request }) => {
  const notice = request.session.flashed("notice");
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{title === undefined ? "My fw app" : \`\${title} · My fw app\`}</title>
        <link rel="stylesheet" href="/app.css" />
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
      </head>
      <body>
        <header>
          <nav>
            <a href="/">Home</a> <a href="/items">Items</a>
          </nav>
        </header>
        {notice === undefined ? null : <p class="flash">{notice}</p>}
        <main>{content}</main>
      </body>
    </html>
  );
};
`;

const INDEX = `import { Ok, type Request, type Response } from "fw";

/** \`src/app/Index.tsx\` exporting \`index\` is \`GET /\`. */
export function index(request: Request): Response {
  return Ok(
    <>
      <title>Home</title>
      <h1>Hello from fw</h1>
      <p>
        This page is <code>src/app/Index.tsx</code>. The <a href="/items">items</a> pages are derived
        from the model in <code>src/models/Item.ts</code>.
      </p>
      <p>
        You asked for <code>{request.path}</code>.
      </p>
    </>,
  );
}
`;

const ITEM = `import { derives, Form, Resource, type Id } from "fw";
import type { tags } from "typia";

/** An item: its seven pages live at /items, derived from this type. */
export interface Item {
  id: Id<Item>;
  name: string & tags.MinLength<1>;
  done: boolean;
}

export const Item = derives<Item>(Form, Resource);
`;

/** Served from public/ at /app.css (the layout links it). */
const CSS = `/* public/ is served as it is: this file is /app.css, linked by src/layout.tsx. */
body { font: 16px/1.5 system-ui, sans-serif; max-width: 44rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
header { border-bottom: 1px solid #ddd; margin-bottom: 1.5rem; }
header a { margin-right: 1rem; }
.flash { background: #e8f5e9; border: 1px solid #a5d6a7; padding: .5rem .75rem; border-radius: 4px; }
.fw-field { margin-top: .75rem; }
.fw-field label { display: block; font-weight: 600; }
.fw-field-error { color: #b00020; margin: .25rem 0 0; }
.fw-form button { margin-top: 1rem; }
.fw-index { border-collapse: collapse; width: 100%; }
.fw-index th, .fw-index td { border-bottom: 1px solid #eee; padding: .25rem .5rem; text-align: left; }
/* Text for screen readers alone (the derived index's "Links" column heading). */
.fw-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
`;

/** Served from public/ at /favicon.svg (the layout links it). */
const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#222"/><text x="16" y="22" font-family="system-ui, sans-serif" font-size="16" font-weight="700" fill="#fff" text-anchor="middle">fw</text></svg>
`;
