import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { shown } from "./flags.js";

export const NEW_USAGE = `usage: fw new <dir>
  Writes a minimal fw app into <dir> (created if missing; it must be empty):
  package.json, tsconfig.json (fw's and typia's plugins), one page, one model, the layout,
  src/main.ts, a README and a .gitignore. Then: cd <dir> && npm install && npm start`;

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

/** Every file of a new app, by path relative to its directory. */
export function appFiles(name: string, root: string): ReadonlyMap<string, string> {
  const fw = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { dependencies?: Record<string, string> };
  const typia = fw.dependencies?.["typia"] ?? "12.2.1";
  const packageJson = {
    name,
    version: "0.1.0",
    private: true,
    type: "module",
    // `bundle` needs rolldown, which fw's checkout has (its devDependency); fw bundle says how to add it when it is missing.
    scripts: { build: "tspc -p .", start: "npm run build && node dist/main.js dev", bundle: "fw bundle" },
    // fw is not published: the app depends on the checkout `fw new` ran from.
    dependencies: { fw: `file:${root}`, typia },
    devDependencies: { "@types/node": "~20.19.43", "ts-patch": "3.3.0", typescript: "~5.9.3" },
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
    [".gitignore", "node_modules/\ndist/\n.fw/\n*.tsbuildinfo\n"],
    ["README.md", readme(name)],
    ["src/main.ts", MAIN],
    ["src/layout.tsx", LAYOUT],
    ["src/app/Index.tsx", INDEX],
    ["src/models/Item.ts", ITEM],
  ]);
}

/** Writes a new app into `dir`; a string is the error to print (exit code 2). */
export function newApp(dir: string, root: string = fwRoot()): { readonly dir: string; readonly files: readonly string[] } | string {
  const target = resolve(dir);
  if (existsSync(target)) {
    if (!statSync(target).isDirectory()) return `${target} exists and is not a directory`;
    if (readdirSync(target).length > 0) return `${target} is not empty: give a new or empty directory`;
  }
  const files = appFiles(packageName(target), root);
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
  if (dir === undefined || dir === "" || extra.length > 0 || dir.startsWith("-")) {
    err(`fw new: ${dir === undefined || dir === "" ? "give the directory to create" : `unexpected argument ${JSON.stringify(dir.startsWith("-") ? dir : extra[0])}`}\n${NEW_USAGE}`);
    return 2;
  }
  const made = newApp(resolve(cwd, dir));
  if (typeof made === "string") {
    err(`fw new: ${made}`);
    return 2;
  }
  const where = shown(made.dir, cwd);
  out(`fw new: wrote ${made.files.length} files into ${where}:\n${made.files.map((file) => `  ${file}`).join("\n")}\n\nNext:\n  cd ${where}\n  npm install && npm start`);
  return 0;
}

function readme(name: string): string {
  return `# ${name}

An app made with \`fw new\`: fw builds its routes from its files with
\`tspc\` and serves them on Node.js.

\`\`\`sh
npm install && npm start     # builds with tspc and serves on http://127.0.0.1:3000 (dev mode)
NODE_ENV=production npm start  # the same, served in production (FW_SECRET required)
\`\`\`

- \`src/app/Index.tsx\` is the home page, \`GET /\`. Add \`src/app/About.tsx\` exporting
  \`about\` for \`GET /about\`; folders make paths (\`posts/_id/Show.tsx\` → \`GET /posts/:id\`).
- \`src/models/Item.ts\` is a model: its seven pages live at \`/items\`, derived from its type.
- \`src/layout.tsx\` frames every page, \`src/main.ts\` boots the app.
- \`node dist/main.js routes\` prints the route table; in production set \`FW_SECRET\` (at
  least 32 bytes) and run \`node dist/main.js\`, or bundle it first for a lighter boot:
  \`npm run build && npm run bundle && node dist/bundle/main.js\` (\`fw bundle\` needs rolldown:
  \`npm install --save-dev rolldown\` if it says it is missing).
`;
}

const MAIN = `import { HttpApp } from "fw";
import { table } from "./.fw/routes.js";
import { layout } from "./layout.js";

// The build writes src/.fw/routes.ts from src/app/ and src/models/. The app never listens
// itself: \`main\` reads the command (none, dev, routes) and runs it.
process.exitCode = await new HttpApp({ routes: table(), layout }).main();
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
