// Generates an fw app of N route files under bench/.work/ for the build part. Every fifth file
// of a group is one of: a JSX list page with a capability, a Show page whose `id: number` is
// decoded by typia, a New form (CSRF), a POST Create handler, and an API route.
import { mkdirSync, rmSync, symlinkSync, writeFileSync, existsSync, lstatSync } from "node:fs";
import { dirname, join } from "node:path";
import { ROOT, WORK } from "./util.mjs";

function write(file, text) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** bench/.work/node_modules/fw → the repository root, so generated apps import "fw" like users do. */
export function linkFw() {
  const link = join(WORK, "node_modules", "fw");
  mkdirSync(dirname(link), { recursive: true });
  if (!existsSync(link) && !isLink(link)) symlinkSync(ROOT, link, "dir");
  return link;
}

function isLink(file) {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

/** `checks: false` turns fw's path and live topic checks off (the plugin option verifyPaths), to measure what they cost. */
export function tsconfig({ fw, typia, checks = true, extraRoutes }) {
  const plugins = [];
  if (fw) {
    plugins.push({
      transform: join(ROOT, "dist", "transformer", "index.js"),
      transformProgram: true,
      ...(checks ? {} : { verifyPaths: false }),
      ...(extraRoutes === undefined ? {} : { extraRoutes }),
    });
    // fw's JSX pre-renderer, as every fw app's tsconfig has it: its cost counts as fw's.
    plugins.push({ transform: join(ROOT, "dist", "transformer", "jsx-templates.js") });
  }
  if (typia) plugins.push({ transform: "typia/lib/transform" });
  return {
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
      plugins,
    },
    include: ["src"],
  };
}

/** Where the handler edited by the incremental rebuild lives, relative to the app. */
export const EDITED = "src/app/g0/_id/Show.tsx";

export function showFile(group, edit = 0) {
  return `import { NotFound, Ok, type Request, type Response } from "fw";
import type { Catalog } from "../../../catalog.js";

/** \`id\` is decoded by typia at the edge: anything but a number is a 400. */
export function show(request: Request<{ id: number }>, { catalog }: { catalog: Catalog }): Response {
  const item = catalog.find(request.params.id);
  if (item === undefined) throw new NotFound(\`There is no item \${request.params.id} in group ${group}.\`);
  return Ok(
    <>
      <title>{item.name}</title>
      <h1>{item.name}</h1>
      <p class="price">{item.price.toFixed(2)} EUR (edit ${edit})</p>
      <ul>{item.tags.map((tag) => <li>{tag}</li>)}</ul>
      <a href="/g${group}">Back to group ${group}</a>
    </>,
  );
}
`;
}

function groupFiles(g) {
  return {
    [`src/app/g${g}/Index.tsx`]: `import { Ok, type Request, type Response } from "fw";
import type { Catalog } from "../../catalog.js";

export function index(request: Request, { catalog }: { catalog: Catalog }): Response {
  const items = catalog.list(${g});
  return Ok(
    <>
      <title>Group ${g}</title>
      <h1>Group ${g} ({items.length} items)</h1>
      <table>
        <tbody>
          {items.map((item) => (
            <tr>
              <td><a href={\`/g${g}/\${item.id}\`}>{item.name}</a></td>
              <td>{item.price.toFixed(2)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>{request.session.flashed("notice") ?? ""}</p>
    </>,
  );
}
`,
    [`src/app/g${g}/_id/Show.tsx`]: showFile(g),
    [`src/app/g${g}/New.tsx`]: `import { Ok, type Request, type Response } from "fw";

function fresh(request: Request): Response {
  return Ok(
    <>
      <title>New item in group ${g}</title>
      <form method="post" action="/g${g}">
        <input type="hidden" name="_csrf" value={request.csrf} />
        <label>Name <input name="name" /></label>
        <label>Price <input name="price" type="number" /></label>
        <button type="submit">Create</button>
      </form>
    </>,
  );
}

export { fresh as new };
`,
    [`src/app/g${g}/Create.ts`]: `import { BadRequest, Redirect, type Request, type Response } from "fw";
import type { Catalog } from "../../catalog.js";

export function create(request: Request, { catalog }: { catalog: Catalog }): Response {
  const name = (request.form.get("name") ?? "").trim();
  const price = Number(request.form.get("price"));
  if (name === "" || !Number.isFinite(price)) throw new BadRequest("name and price are required");
  const item = catalog.add(${g}, name, price);
  return Redirect(\`/g${g}/\${item.id}\`).withSession(request.session.flash("notice", \`Created \${name}\`));
}
`,
    [`src/app/api/g${g}/Index.ts`]: `import { Ok, type ApiRequest, type Response } from "fw";
import type { Catalog } from "../../../catalog.js";

export function index(request: ApiRequest, { catalog }: { catalog: Catalog }): Response {
  return Ok(JSON.stringify({ group: ${g}, items: catalog.list(${g}), path: request.path }), { contentType: "application/json" });
}
`,
  };
}

const COMMON = {
  "package.json": `{ "private": true, "type": "module" }\n`,
  "src/catalog.ts": `export interface Item {
  readonly id: number;
  readonly group: number;
  readonly name: string;
  readonly price: number;
  readonly tags: readonly string[];
}

export class Catalog {
  private readonly items: Item[] = [];

  list(group: number): readonly Item[] {
    return this.items.filter((item) => item.group === group);
  }

  find(id: number): Item | undefined {
    return this.items.find((item) => item.id === id);
  }

  add(group: number, name: string, price: number): Item {
    const item = { id: this.items.length + 1, group, name, price, tags: [] };
    this.items.push(item);
    return item;
  }
}
`,
  "src/capabilities.ts": `import { Catalog } from "./catalog.js";

export const catalog = new Catalog();
`,
  "src/app/Index.tsx": `import { Ok, type Request, type Response } from "fw";

export function index(request: Request): Response {
  return Ok(<><title>Home</title><h1>Generated app</h1><p>{request.path}</p></>);
}
`,
  "src/main.ts": `import { HttpApp } from "fw";
import { table } from "./.fw/routes.js";

process.exitCode = await new HttpApp({ routes: table() }).main();
`,
};

/**
 * Writes an app of `files` route files (1 home page + groups of 5) into `dir`, from scratch.
 * `variant`: "fw" (fw + typia plugins), "fw-unchecked" (the same without fw's path and topic
 * checks), "typia" (typia only) or "tsc" (plain tsc; the same
 * tsconfig as typia, whose plugin plain tsc ignores). The typia and tsc variants need the table
 * module written by hand: `copyTable` puts fw's generated one in place.
 */
export function generateApp(dir, files, variant) {
  rmSync(dir, { recursive: true, force: true });
  for (const [file, text] of Object.entries(COMMON)) write(join(dir, file), text);
  const groups = Math.max(1, Math.round((files - 1) / 5));
  for (let g = 0; g < groups; g++) for (const [file, text] of Object.entries(groupFiles(g))) write(join(dir, file), text);
  const config = tsconfig({ fw: variant.startsWith("fw"), typia: true, checks: variant !== "fw-unchecked" });
  write(join(dir, "tsconfig.json"), JSON.stringify(config, null, 2) + "\n");
  return { routeFiles: 1 + groups * 5 };
}
