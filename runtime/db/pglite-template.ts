import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync, gzipSync } from "node:zlib";
import { packDirectory, unpackInto } from "./tar.js";

/**
 * A new embedded database starts as a copy of a template instead of running `initdb`
 * (docs/guides/database.md, "The embedded engine: memory and first open"). PGlite initialises
 * a data directory by running initdb compiled to WebAssembly in a second engine, then copying
 * its output over: 6 s on a quiet machine, 20-35 s on a loaded one, on every new database.
 * The template is that output made once, by `npm run build:fw` (opened once and closed, so it
 * is a cleanly shut down data directory), kept gzipped beside this module (about 4.5 MB) and
 * shipped in fw's package; a new database is the template unpacked, then opened as any other.
 *
 * A data directory belongs to the engine that made it, so the template is made for one PGlite
 * version (fw's own, its devDependency) and used only with that version installed: with
 * another, PGlite runs initdb as before (slow, same result), and the process says so once on
 * stderr, naming both versions and the install that makes them agree.
 */

/** The file that says a data directory is complete (PGlite runs initdb where it is missing): written last. */
const VERSION_FILE = "PG_VERSION";

/** The template's file name for PGlite `version`. */
export function templateFileName(version: string): string {
  return `pglite-template-${version}.tar.gz`;
}

/** The version of the PGlite package this module would load, or undefined when none is installed. */
export function installedPgliteVersion(): string | undefined {
  let entry: string;
  try {
    entry = createRequire(import.meta.url).resolve("@electric-sql/pglite");
  } catch {
    return undefined;
  }
  for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (!existsSync(manifest)) continue;
    const json = JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown; version?: unknown };
    if (json.name === "@electric-sql/pglite" && typeof json.version === "string") return json.version;
  }
  return undefined;
}

/**
 * Where templates are looked for: beside this module (fw's build; a bundle, where `fw bundle`
 * copies it beside the chunks), or, when fw runs from its TypeScript source (its own test
 * suite), the build's copy.
 */
function templateDirectories(): string[] {
  return [new URL("./", import.meta.url), new URL("../../dist/runtime/db/", import.meta.url)].map((url) => fileURLToPath(url));
}

/** The PGlite versions fw has a template for (normally one: fw's own PGlite, its devDependency, when it was built). */
export function templateVersions(): string[] {
  const versions = templateDirectories().flatMap((dir) => {
    try {
      return readdirSync(dir).flatMap((file) => /^pglite-template-(.+)\.tar\.gz$/.exec(file)?.[1] ?? []);
    } catch {
      return []; // no such folder (fw run from its source before a build)
    }
  });
  return [...new Set(versions)];
}

/** The installed PGlite and the version fw's template was made for, when fw has no template for the installed one. */
export interface TemplateMismatch {
  readonly installed: string;
  readonly madeFor: string;
}

/** Whether a new embedded database would run initdb because the installed PGlite is not the one fw's template was made for. */
export function templateMismatch(installed = installedPgliteVersion()): TemplateMismatch | undefined {
  if (installed === undefined || templateFile(installed) !== undefined) return undefined;
  const madeFor = templateVersions()[0];
  return madeFor === undefined ? undefined : { installed, madeFor };
}

/** What a developer reads when the versions differ: both versions, the cost, and the command that makes them agree. */
export function mismatchWarning({ installed, madeFor }: TemplateMismatch): string {
  return (
    `fw/db: warning: @electric-sql/pglite ${installed} is installed, and fw's template of a new embedded database was made for ${madeFor}: ` +
    "each new embedded database (each test app's too) runs PostgreSQL's initdb instead, 10 s or more where the template takes about 1. " +
    `Install the version fw was made for: npm install --save-exact @electric-sql/pglite@${madeFor}`
  );
}

/** Said once a process: every new database of the process would say the same. */
let warned = false;

/**
 * The template for `version`: beside this module (fw's build; a bundle, where `fw bundle`
 * copies it beside the chunks), or, when fw runs from its TypeScript source (its own test
 * suite), the build's copy.
 */
export function templateFile(version: string): string | undefined {
  const name = templateFileName(version);
  return templateDirectories()
    .map((dir) => join(dir, name))
    .find((path) => existsSync(path));
}

/**
 * Makes `directory` (empty, or holding an incomplete copy) a new database from the template of
 * the installed PGlite. False when there is none: PGlite then runs initdb itself. `durable`:
 * every file is on disk (fsync) before the database counts as made (the durable engine's first
 * open, about 1,000 fsyncs; dev and tests skip them).
 */
export function startFromTemplate(directory: string, durable = false): boolean {
  const version = installedPgliteVersion();
  const file = version === undefined ? undefined : templateFile(version);
  if (file === undefined) {
    // Another PGlite than fw's: PGlite runs initdb, slow enough to be worth a line on stderr.
    const mismatch = templateMismatch(version);
    if (mismatch !== undefined && !warned) {
      warned = true;
      process.stderr.write(`${mismatchWarning(mismatch)}\n`);
    }
    return false;
  }
  // PG_VERSION last: a copy cut short (a crash, a full disk) is copied again on the next open.
  unpackInto(gunzipSync(readFileSync(file)), directory, { last: VERSION_FILE, sync: durable });
  return true;
}

/** The slice of PGlite's class the template is made with. */
interface PgliteClass {
  create(dataDir: string): Promise<{ close(): Promise<void> }>;
}

/**
 * Writes the template for the installed PGlite into `outDirectory`, unless it is there already
 * (`npm run build:fw` runs it on every build: nothing to do is a file check). Templates of
 * other versions there are removed. Resolves with what it did, for the build's log (nothing
 * when the template was there).
 */
export async function buildTemplate(outDirectory: string): Promise<string | undefined> {
  const version = installedPgliteVersion();
  if (version === undefined) return "fw: @electric-sql/pglite is not installed: no template of a new embedded database";
  const name = templateFileName(version);
  const out = join(outDirectory, name);
  if (existsSync(out)) return undefined;
  const { PGlite } = (await import("@electric-sql/pglite")) as unknown as { PGlite: PgliteClass };
  const scratch = mkdtempSync(join(tmpdir(), "fw-pglite-template-"));
  try {
    const data = join(scratch, "data");
    const engine = await PGlite.create(data);
    await engine.close();
    const packed = gzipSync(packDirectory(data), { level: 9 });
    // Written beside its final name, then renamed: a build cut short leaves no half template.
    const partial = `${out}.partial`;
    writeFileSync(partial, packed);
    for (const old of readdirSync(outDirectory)) if (/^pglite-template-.+\.tar\.gz$/.test(old) && old !== name) rmSync(join(outDirectory, old), { force: true });
    renameSync(partial, out);
    return `fw: wrote ${name} (${(packed.length / 1048576).toFixed(1)} MB), the template of a new embedded database`;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
