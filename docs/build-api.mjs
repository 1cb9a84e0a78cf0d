#!/usr/bin/env node
// `npm run docs`: the API reference of every public module of fw, generated from the code's JSDoc
// with TypeDoc into docs/api/ (git-ignored: it is made from the code, never edited).
//
// The modules are read from package.json's `exports`: every entry whose types are a
// `dist/runtime/…/index.d.ts` is documented from its source `runtime/…/index.ts` and named as an
// app imports it (`fw`, `fw/auth`, `fw/db`, `fw/testing`, and `fw/live` once it exists), so a new
// module entry gets its pages without touching this script. The JSX runtime and the transformer
// are for the compiler, not for code, and are left out.
//
//   npm run docs                 writes docs/api/index.html
//   npm run docs -- --out DIR    writes elsewhere (spec/tooling/api-docs.test.ts uses a temp dir)
//   npm run docs -- --undocumented   also lists every export without a JSDoc comment
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Application } from "typedoc";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const outAt = args.indexOf("--out");
const out = outAt >= 0 && args[outAt + 1] !== undefined ? resolve(args[outAt + 1]) : join(root, "docs", "api");
const undocumented = args.includes("--undocumented");

/** The public modules: import name → source entry, from package.json's exports. */
export function publicModules(packageJson) {
  const modules = new Map();
  for (const [key, target] of Object.entries(packageJson.exports ?? {})) {
    const types = typeof target === "object" && target !== null ? target.types : undefined;
    const match = typeof types === "string" ? /^\.\/dist\/(runtime\/(?:.+\/)?index)\.d\.ts$/.exec(types) : null;
    if (match === null) continue;
    const source = `${match[1]}.ts`;
    if (!existsSync(join(root, source))) continue;
    modules.set(key === "." ? packageJson.name : `${packageJson.name}/${key.slice(2)}`, source);
  }
  return modules;
}

const packageJson = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const modules = publicModules(packageJson);
const names = new Map([...modules].map(([name, source]) => [resolve(root, source), name]));

const app = await Application.bootstrapWithPlugins({
  entryPoints: [...modules.values()].map((source) => join(root, source)),
  tsconfig: join(root, "tsconfig.build.json"),
  name: `${packageJson.name} ${packageJson.version}`,
  readme: "none",
  excludePrivate: true,
  excludeInternal: true,
  // Types an export refers to but fw does not export (internals) are not errors of the docs.
  validation: { notExported: false, invalidLink: true, notDocumented: undocumented, rewrittenLink: true, unusedMergeModuleWith: true },
  // A stable page per module, named as it is imported.
  sort: ["kind", "alphabetical"],
});

const project = await app.convert();
if (project === undefined) {
  console.error("npm run docs: TypeDoc could not read fw's sources (the errors are above)");
  process.exit(1);
}
// Name each module as it is imported (`fw/auth`), not by its file (`auth/index`).
for (const module of project.children ?? []) {
  const file = project.getSymbolIdFromReflection(module)?.fileName;
  const name = file === undefined ? undefined : names.get(resolve(file));
  if (name === undefined) throw new Error(`npm run docs: no import name for the module ${module.name} (${file})`);
  module.name = name;
}
app.validate(project);
await app.generateDocs(project, out);
if (app.logger.hasErrors()) process.exit(1);
console.log(`npm run docs: ${[...modules.keys()].join(", ")} → ${out}/index.html`);
