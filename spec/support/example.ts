import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, inject } from "vitest";
import type { ExampleDatabases } from "./example-db-setup.js";
import { bootNode } from "./process.js";

/** The example as `npm start` builds it (npm test builds first), and the folder it runs in. */
export const EXAMPLE_MAIN = resolve("example/dist/main.js");
export const EXAMPLE_DIR = resolve("example");

export type Engine = "postgres" | "pglite";

/** A database of its own for one example process (or several in turn: a restart keeps it). */
export interface ExampleDatabase {
  readonly engine: Engine;
  /** What the example is given as DATABASE_URL: `postgres://…` or `pglite:DIR`. */
  readonly url: string;
}

const made: string[] = [];
let databases = 0;
// The folders made for the test file that imports this, removed after it, passed or failed.
// Registered as the file is collected, before the file's own hooks, so it runs after them:
// once the example processes they started are stopped. (A handler on the worker's "exit" ran
// too late or never: vitest ends its workers without one, and every run left ~20 folders.)
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function prepared(): ExampleDatabases {
  const given = inject("exampleDatabases");
  if (given.skip !== undefined) throw new Error(`spec/support/example-db-setup.ts prepared no database: ${given.skip}.`);
  return given;
}

/** The engine the example's tests run on: PostgreSQL when the machine has it, else PGlite. */
export function defaultEngine(): Engine {
  return prepared().postgres === undefined ? "pglite" : "postgres";
}

/** Whether this machine can run the example on `engine` (PGlite always can). */
export function hasEngine(engine: Engine): boolean {
  return engine === "pglite" || prepared().postgres !== undefined;
}

/**
 * A fresh database for the example: `migrated` (the example's migrations applied, nothing in
 * it: as after `db migrate`) or `empty` (a new database, as on a fresh checkout). Made
 * synchronously (a template copy), so a test file can boot the example at its top level.
 */
export function exampleDatabase(state: "migrated" | "empty" = "migrated", engine: Engine = defaultEngine()): ExampleDatabase {
  const given = prepared();
  if (engine === "postgres") {
    const postgres = given.postgres;
    if (postgres === undefined) throw new Error("PostgreSQL is not installed here: ask hasEngine(\"postgres\") first.");
    const name = `example_${process.pid}_${databases++}`;
    createDatabase(postgres.psql, postgres.url, name, state === "migrated" ? postgres.template : undefined);
    return { engine, url: postgres.url.replace(/\/postgres$/, `/${name}`) };
  }
  const dir = mkdtempSync(join(tmpdir(), "fw-example-db-"));
  made.push(dir);
  if (state === "migrated") cpSync(given.pglite as string, dir, { recursive: true });
  return { engine, url: `pglite:${dir}` };
}

/** CREATE DATABASE, from the template when given; concurrent copies of one template may collide, so it retries. */
function createDatabase(psql: string, url: string, name: string, template: string | undefined): void {
  const sql = `CREATE DATABASE "${name}"${template === undefined ? "" : ` TEMPLATE "${template}"`}`;
  for (let attempt = 1; ; attempt++) {
    try {
      execFileSync(psql, [url, "-q", "-c", sql], { stdio: ["ignore", "ignore", "pipe"] });
      return;
    } catch (error) {
      if (attempt >= 10 || !String((error as { stderr?: Buffer }).stderr ?? "").includes("being accessed by other users")) throw error;
      execFileSync("sleep", ["0.2"]);
    }
  }
}

/**
 * A working directory for an example process of its own: empty but for `db`, a link to the
 * example's migrations. What the app writes under its working directory (the dev secret in
 * .fw/) stays there, never in example/ where `npm start` keeps its own.
 */
export function exampleCwd(): string {
  const dir = mkdtempSync(join(tmpdir(), "fw-example-cwd-"));
  made.push(dir);
  symlinkSync(join(EXAMPLE_DIR, "db"), join(dir, "db"));
  return dir;
}

export interface BootExampleOptions {
  /** Its database. Default: a fresh migrated one on the default engine. */
  readonly database?: ExampleDatabase;
  /** Its working directory. Default: a fresh `exampleCwd()`. */
  readonly cwd?: string;
  /** The built entry to run. Default: example/dist/main.js (a bundle's main.js, say). */
  readonly main?: string;
}

/**
 * Starts the built example on an ephemeral port with a database and a working directory of its
 * own (never example/.fw/db, the one `npm start` keeps): as bootNode, plus the database.
 */
export function bootExample(args: readonly string[], env: Record<string, string>, options: BootExampleOptions = {}) {
  const database = options.database ?? exampleDatabase();
  const cwd = options.cwd ?? exampleCwd();
  const app = bootNode(options.main ?? EXAMPLE_MAIN, args, { DATABASE_URL: database.url, FW_STORAGE: exampleStorage(cwd), ...env }, cwd);
  return { ...app, database };
}

/**
 * Where an example process keeps its uploads (posts' covers, comments' attachments): a folder in
 * its working directory, named as production wants it (`FW_STORAGE=file:///absolute/folder`;
 * production refuses to boot without one). A test passes `FW_STORAGE` itself to use another, or
 * `""` for none (dev's `.fw/files`, production's refusal).
 */
export function exampleStorage(cwd: string): string {
  return pathToFileURL(join(cwd, "files")).href;
}
