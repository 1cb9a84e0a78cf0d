import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire, isBuiltin } from "node:module";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { stripVTControlCharacters } from "node:util";
import type { OutputAsset, OutputChunk, Plugin, rolldown as Rolldown } from "rolldown";
import { parseFlags, projectOf, shown } from "./flags.js";

export const BUNDLE_USAGE = `usage: fw bundle [--project <dir>] [--main <file>] [--out <dir>]
  --project  the app's directory (or its tsconfig file); default "."
  --main     the built entry, relative to the project; default "dist/main.js"
  --out      where the bundle goes, relative to the project; default "dist/bundle"

Bundles the already built app (run the build first) into <out>/main.js plus chunks, for
production: fw, typia, dotenv and the app's own modules are bundled; ws, Node's builtins and every
other package stay imports, resolved from node_modules as before. Needs rolldown
(npm install --save-dev rolldown). Each file gets a source map leading back to the app's
TypeScript (through the build's own maps). Run the result with \`node <out>/main.js\`, or
\`node --enable-source-maps <out>/main.js\` for stack traces in the TypeScript sources.`;

/**
 * Packages whose code goes into the bundle: fw itself (with `fw/auth`, `fw/jsx-runtime`), the
 * typia runtime helpers the build's codecs import, and dotenv (the `.env` parser every boot
 * imports: a few KB, so a boot loads no package for it). Everything else an app imports by name
 * stays an import (see `isExternal`).
 */
const BUNDLED_PACKAGES: ReadonlySet<string> = new Set(["fw", "typia", "dotenv"]);

/** The bundle directory's package.json: makes its `.js` files ES modules wherever it is, and marks the directory as fw bundle's own. */
const MARKER = "Written by `fw bundle`; replaced each time it runs.";

/** What `fw bundle` was asked for, paths resolved. */
export interface BundleArgs {
  readonly projectDir: string;
  readonly main: string;
  readonly out: string;
}

/** Reads `fw bundle`'s flags; a string is the usage error to print. */
export function parseBundleArgs(args: readonly string[], cwd: string): BundleArgs | string {
  const given = parseFlags(args, ["--project", "--main", "--out"]);
  if (typeof given === "string") return given;
  const where = projectOf(given, cwd);
  if (typeof where === "string") return where;
  const { projectDir } = where;
  return { projectDir, main: resolve(projectDir, given.get("--main") ?? "dist/main.js"), out: resolve(projectDir, given.get("--out") ?? "dist/bundle") };
}

/** The package a bare specifier names: `ws` for `ws/wrapper.mjs`, `@scope/name` for `@scope/name/x`. */
export function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] as string);
}

/**
 * Whether an import stays an import in the bundle rather than being bundled: Node's builtins, and
 * every package but fw, typia and the app's own (an import of itself by its package name). `ws`
 * (with its optional native add-ons, which it requires itself) is one of them: it is CommonJS,
 * and fw imports it lazily, on the first socket.
 */
export function isExternal(specifier: string, appName?: string): boolean {
  if (specifier.startsWith(".") || isAbsolute(specifier) || specifier.startsWith("\0") || specifier.startsWith("#")) return false;
  if (isBuiltin(specifier)) return true;
  const name = packageOf(specifier);
  return !BUNDLED_PACKAGES.has(name) && name !== appName;
}

/** The app's package name, from the project's package.json (if it has one). */
function appNameOf(projectDir: string): string | undefined {
  try {
    const name = (JSON.parse(readFileSync(join(projectDir, "package.json"), "utf8")) as { name?: unknown }).name;
    return typeof name === "string" ? name : undefined;
  } catch {
    return undefined;
  }
}

/** The part of rolldown `fw bundle` uses. */
export interface Bundler {
  readonly rolldown: typeof Rolldown;
}

/** Why the bundler could not be loaded: the text to print. */
export class BundlerMissing extends Error {}

function isMissingRolldown(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ERR_MODULE_NOT_FOUND" && /['"]rolldown['"]/.test(String((error as Error).message));
}

/**
 * rolldown, loaded only here (production boots and `fw dev` never load it): the app's own copy
 * when it has one, else the one fw resolves (an optional peer dependency of fw).
 */
export async function loadRolldown(projectDir: string): Promise<Bundler> {
  let own: string | undefined;
  try {
    own = createRequire(join(projectDir, "package.json")).resolve("rolldown");
  } catch {
    own = undefined;
  }
  try {
    return (own === undefined ? await import("rolldown") : await import(pathToFileURL(own).href)) as Bundler;
  } catch (error) {
    if (own === undefined && isMissingRolldown(error)) {
      throw new BundlerMissing(`rolldown is not installed. fw bundle uses it to bundle the app; add it to the app with:\n  npm install --save-dev rolldown`);
    }
    throw new BundlerMissing(`rolldown could not be loaded (${error instanceof Error ? error.message.split("\n")[0] : String(error)}); reinstall it with:\n  npm install --save-dev rolldown`);
  }
}

/** One file of the bundle, as `fw bundle` reports it. */
export interface BundledFile {
  readonly file: string;
  readonly bytes: number;
  /**
   * The entry; a chunk it imports statically (loaded at boot); one only a dynamic import loads, when
   * fw asks for it (on demand: the socket server is asked for at boot by an app with a socket route).
   */
  readonly loaded: "entry" | "boot" | "on demand" | "other";
}

/** What a bundle is: its files, and the packages it still imports by name (resolved from node_modules when it runs). */
export interface Bundled {
  readonly files: readonly BundledFile[];
  readonly externals: readonly string[];
}

/** The last `//# sourceMappingURL=` comment of a built file: the URL of its map. */
const SOURCE_MAPPING_URL = /\/\/# sourceMappingURL=(\S+)\s*$/;

/** A map written inline, as `tsc --inlineSourceMap` does. */
const INLINE_MAP = /^data:application\/json(?:;charset=[\w-]+)?;base64,(.*)$/;

/**
 * Hands rolldown each built file with the map its compiler wrote (tsc's `.js.map`, or one inline),
 * so the bundle's own maps lead back to the TypeScript instead of stopping at the built `.js`
 * (rolldown does not read `sourceMappingURL` comments itself). A file with no map, or a map that
 * cannot be read, is loaded as usual and maps to itself.
 */
function builtSourceMaps(): Plugin {
  return {
    name: "fw:built-source-maps",
    load(id) {
      if (!/\.[cm]?js$/.test(id)) return null;
      let code: string;
      try {
        code = readFileSync(id, "utf8");
      } catch {
        return null;
      }
      const url = SOURCE_MAPPING_URL.exec(code)?.[1];
      if (url === undefined) return null;
      const inline = INLINE_MAP.exec(url)?.[1];
      try {
        const map = inline !== undefined ? Buffer.from(inline, "base64").toString("utf8") : readFileSync(resolve(dirname(id), decodeURIComponent(url)), "utf8");
        return { code, map };
      } catch {
        return null;
      }
    },
  };
}

/** Files by how they are loaded: the entry, what it imports statically (transitively), the rest on demand. */
function classify(output: readonly (OutputChunk | OutputAsset)[]): BundledFile[] {
  const chunks = new Map(output.filter((item): item is OutputChunk => item.type === "chunk").map((chunk) => [chunk.fileName, chunk]));
  const boot = new Set<string>();
  const visit = (file: string): void => {
    if (boot.has(file)) return;
    boot.add(file);
    for (const imported of chunks.get(file)?.imports ?? []) if (chunks.has(imported)) visit(imported);
  };
  for (const chunk of chunks.values()) if (chunk.isEntry) visit(chunk.fileName);
  const order = { entry: 0, boot: 1, "on demand": 2, other: 3 };
  return output
    .map((item): BundledFile => {
      if (item.type === "asset") return { file: item.fileName, bytes: typeof item.source === "string" ? Buffer.byteLength(item.source) : item.source.byteLength, loaded: "other" };
      return { file: item.fileName, bytes: Buffer.byteLength(item.code), loaded: item.isEntry ? "entry" : boot.has(item.fileName) ? "boot" : "on demand" };
    })
    .sort((a, b) => order[a.loaded] - order[b.loaded] || a.file.localeCompare(b.file));
}

/** Whether a package is installed in a node_modules folder at or above `dir` (where Node looks for it). */
function installedAbove(dir: string, name: string): boolean {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, "node_modules", name, "package.json"))) return true;
    if (dirname(at) === at) return false;
  }
}

/** Empties `out` if it is fw bundle's own (or missing); a string is why it may not be used. */
function prepareOut(out: string, main: string): string | undefined {
  if (main === out || main.startsWith(out + sep)) return `--out ${out} holds the entry ${main}: give a directory of its own (default dist/bundle)`;
  if (!existsSync(out)) return undefined;
  if (readdirSync(out).length === 0) return undefined;
  let ours = false;
  try {
    ours = (JSON.parse(readFileSync(join(out, "package.json"), "utf8")) as { description?: unknown }).description === MARKER;
  } catch {
    ours = false;
  }
  if (!ours) return `--out ${out} is not empty and was not written by fw bundle: give a new or empty directory (default dist/bundle)`;
  rmSync(out, { recursive: true, force: true });
  return undefined;
}

/**
 * Bundles the built app: ES modules for Node, code splitting on, so what fw imports lazily (the
 * socket server and `ws`, the dev modules, the routes command) stays in chunks of its own.
 */
export async function bundleApp(args: BundleArgs, bundler: Bundler, warn: (text: string) => void): Promise<Bundled> {
  const appName = appNameOf(args.projectDir);
  const build = await bundler.rolldown({
    input: { main: args.main },
    cwd: args.projectDir,
    platform: "node",
    external: (id, _importer, isResolved) => !isResolved && isExternal(id, appName),
    onLog: (level, log) => warn(`fw bundle: rolldown ${level}: ${log.message}`),
    plugins: [builtSourceMaps()],
  });
  try {
    const written = await build.write({ dir: args.out, format: "esm", codeSplitting: true, entryFileNames: "[name].js", chunkFileNames: "[name]-[hash].js", sourcemap: true });
    const packageJson = `${JSON.stringify({ private: true, type: "module", description: MARKER }, null, 2)}\n`;
    writeFileSync(join(args.out, "package.json"), packageJson);
    const files = [
      ...classify(written.output),
      { file: "package.json", bytes: Buffer.byteLength(packageJson), loaded: "other" } as const,
      ...liveClient(written.output, args.out),
      ...pgliteTemplate(written.output, args.out),
    ];
    const chunkFiles = new Set(files.map((f) => f.file));
    const imported = written.output.flatMap((item) => (item.type === "chunk" ? [...item.imports, ...item.dynamicImports] : []));
    const externals = [...new Set([...imported.filter((id) => !chunkFiles.has(id) && !isBuiltin(id)).map(packageOf), ...resolvedByName(written.output)])].sort();
    return { files, externals };
  } finally {
    await build.close();
  }
}

/**
 * Packages fw's modules load by name outside the import graph, where rolldown cannot see them:
 * fw/auth's password estimator resolves zxcvbn-ts's for the worker thread it runs them on
 * (runtime/auth/password-estimator.ts, PACKAGES: change both). When the bundle holds such a
 * module, its packages are the bundle's externals too (installed where it runs, or a warning).
 */
const RESOLVED_BY_NAME: readonly { readonly module: RegExp; readonly packages: readonly string[] }[] = [
  { module: /[\\/]auth[\\/]password-estimator\.[jt]s$/, packages: ["@zxcvbn-ts/core", "@zxcvbn-ts/language-common", "@zxcvbn-ts/language-en"] },
];

function resolvedByName(output: readonly (OutputChunk | OutputAsset)[]): string[] {
  const held = output.flatMap((item) => (item.type === "chunk" ? item.moduleIds : []));
  return RESOLVED_BY_NAME.filter(({ module }) => held.some((id) => module.test(id))).flatMap(({ packages }) => packages);
}

/**
 * fw/live serves its browser client from a file beside its module (`client/live.js`, read at
 * `new URL("./client/live.js", import.meta.url)`): in a bundle, beside the bundle's chunks. Copied
 * there when the bundle holds fw/live, so a bundled app's live pages load their client.
 */
function liveClient(output: readonly (OutputChunk | OutputAsset)[], out: string): BundledFile[] {
  const live = output.some((item) => item.type === "chunk" && item.moduleIds.some((id) => /[\\/]live[\\/]client-file\.[jt]s$/.test(id)));
  if (!live) return [];
  const from = fileURLToPath(new URL("../live/client/live.js", import.meta.url));
  mkdirSync(join(out, "client"), { recursive: true });
  copyFileSync(from, join(out, "client", "live.js"));
  return [{ file: "client/live.js", bytes: readFileSync(from).byteLength, loaded: "other" }];
}

/**
 * fw/db starts a new embedded database from the template its build keeps beside its module
 * (`db/pglite-template-<PGlite version>.tar.gz`, read at `new URL(…, import.meta.url)`): in a
 * bundle, beside the chunks. Copied there when the bundle holds fw/db's embedded engine, so a
 * bundled app's first start on a new machine does not run initdb (read as a file: dev sits
 * below db and imports nothing of it).
 */
function pgliteTemplate(output: readonly (OutputChunk | OutputAsset)[], out: string): BundledFile[] {
  const engine = output.some((item) => item.type === "chunk" && item.moduleIds.some((id) => /[\\/]db[\\/]pglite-template\.[jt]s$/.test(id)));
  const from = fileURLToPath(new URL("../db/", import.meta.url));
  if (!engine || !existsSync(from)) return [];
  return readdirSync(from)
    .filter((name) => /^pglite-template-.+\.tar\.gz$/.test(name))
    .map((name) => {
      copyFileSync(join(from, name), join(out, name));
      return { file: name, bytes: statSync(join(out, name)).size, loaded: "other" as const };
    });
}

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;

/** `fw bundle`: resolves with the exit code (2: usage, 1: nothing to bundle or the bundler failed). */
export async function bundleCommand(
  args: readonly string[],
  cwd: string,
  out: (text: string) => void,
  err: (text: string) => void,
  load: (projectDir: string) => Promise<Bundler> = loadRolldown,
): Promise<number> {
  if (args.length === 1 && (args[0] === "--help" || args[0] === "-h")) {
    out(BUNDLE_USAGE);
    return 0;
  }
  const parsed = parseBundleArgs(args, cwd);
  if (typeof parsed === "string") {
    err(`fw bundle: ${parsed}\n${BUNDLE_USAGE}`);
    return 2;
  }
  if (!existsSync(parsed.main)) {
    err(`fw bundle: ${parsed.main} does not exist. fw bundle bundles the built app: build it first (npm run build, or tspc -p ${shown(parsed.projectDir, cwd)}), or name the built entry with --main.`);
    return 1;
  }
  let bundler: Bundler;
  try {
    bundler = await load(parsed.projectDir);
  } catch (error) {
    err(`fw bundle: ${error instanceof BundlerMissing ? error.message : String(error)}`);
    return 1;
  }
  const refused = prepareOut(parsed.out, parsed.main);
  if (refused !== undefined) {
    err(`fw bundle: ${refused}`);
    return 2;
  }
  mkdirSync(parsed.out, { recursive: true });
  let bundled: Bundled;
  try {
    bundled = await bundleApp(parsed, bundler, err);
  } catch (error) {
    const made = readdirSync(parsed.out).length === 0;
    if (made) rmSync(parsed.out, { recursive: true, force: true });
    err(
      `fw bundle: rolldown could not bundle ${shown(parsed.main, cwd)}:\n${stripVTControlCharacters(error instanceof Error ? error.message : String(error)).trim()}\n` +
        `Check that the build is complete and current (npm run build), then run fw bundle again.${made ? "" : ` ${shown(parsed.out, cwd)} may hold a partial bundle.`}`,
    );
    return 1;
  }
  const width = Math.max(...bundled.files.map((f) => f.file.length));
  const total = bundled.files.reduce((sum, f) => sum + f.bytes, 0);
  const role = (f: BundledFile): string =>
    f.file === "package.json" ? "makes the .js files ES modules" : f.loaded === "other" ? "" : f.loaded === "entry" ? "entry" : `loaded ${f.loaded === "boot" ? "at boot" : "on demand"}`;
  const lines = bundled.files.map((f) => `  ${f.file.padEnd(width)}  ${kb(f.bytes).padStart(9)}  ${role(f)}`.trimEnd());
  const entry = join(parsed.out, "main.js");
  out(
    `fw bundle: wrote ${bundled.files.length} files (${kb(total)}) into ${shown(parsed.out, cwd)} from ${shown(parsed.main, cwd)}:\n${lines.join("\n")}\n` +
      (bundled.externals.length === 0 ? "" : `Imported from node_modules when it runs: ${bundled.externals.join(", ")}\n`) +
      `\nRun it in production (FW_SECRET set, as for the unbundled app):\n  node ${shown(entry, cwd)}`,
  );
  const { warnings, notes } = missingPackages(bundled.externals, (name) => installedAbove(parsed.out, name));
  for (const note of notes) out(`fw bundle: ${note}`);
  if (warnings.length > 0) {
    const them = warnings.length === 1 ? "it" : "them";
    const inApp = parsed.out.startsWith(parsed.projectDir + sep);
    err(
      `fw bundle: warning: ${warnings.join(", ")} ${warnings.length === 1 ? "is" : "are"} not installed in a node_modules at or above ${shown(parsed.out, cwd)}, ` +
        `so the bundle would fail when it imports ${them}. ` +
        (inApp ? `Install ${them} in the app: npm install ${warnings.join(" ")}` : `Keep the bundle inside the app (the default, dist/bundle) or install ${them} where it runs.`),
    );
  }
  return 0;
}

/**
 * fw/db's drivers, optional peer dependencies of fw that it imports only for the database the
 * app opens (`DATABASE_URL` decides when it runs): what each one is for.
 */
const DATABASE_DRIVERS: ReadonlyMap<string, string> = new Map([
  ["@electric-sql/pglite", "the embedded database (no DATABASE_URL, or DATABASE_URL=pglite:DIR)"],
  ["pg", "a PostgreSQL server (DATABASE_URL=postgres://…)"],
]);

/**
 * Packages fw/files loads only for files kept on S3 (FW_STORAGE=s3://…): the disk, the default,
 * needs neither, so a bundle without them runs until the app is pointed at a bucket.
 */
const S3_PACKAGES: ReadonlySet<string> = new Set(["@aws-sdk/client-s3", "@aws-sdk/s3-request-presigner"]);

/**
 * The imported packages the bundle would not find: warnings for those it needs, a note for a
 * database driver the app may not use while the other one is there (an app on the embedded
 * database needs no `pg`), and for the S3 client (files on disk need none). With no driver
 * installed, the database could not open at all: a warning.
 */
export function missingPackages(externals: readonly string[], installed: (name: string) => boolean): { warnings: string[]; notes: string[] } {
  const missing = externals.filter((name) => !installed(name));
  const drivers = externals.filter((name) => DATABASE_DRIVERS.has(name));
  const someDriver = drivers.some((name) => !missing.includes(name));
  const optional = someDriver ? missing.filter((name) => DATABASE_DRIVERS.has(name)) : [];
  const s3 = missing.filter((name) => S3_PACKAGES.has(name));
  return {
    warnings: missing.filter((name) => !optional.includes(name) && !s3.includes(name)),
    notes: [
      ...optional.map((name) => `${name} is not installed; fw/db loads it only for ${DATABASE_DRIVERS.get(name)}, so the bundle runs without it until the app is pointed at one (then: npm install ${name}).`),
      ...s3.map((name) => `${name} is not installed; fw/files loads it only for files kept on S3 (FW_STORAGE=s3://…), so the bundle runs without it until the app is pointed at a bucket (then: npm install ${name}).`),
    ],
  };
}
