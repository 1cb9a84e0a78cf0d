import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import type { TestProject } from "vitest/node";
import { postgresBin, startCluster, type PostgresCluster } from "./postgres.js";

const run = promisify(execFile);

/** What the tests that start the example app get from this setup (see spec/support/example.ts). */
export interface ExampleDatabases {
  /** A throwaway PostgreSQL cluster with the example's migrations applied to a template database. */
  readonly postgres?: { readonly url: string; readonly psql: string; readonly template: string };
  /** An embedded database directory with the example's migrations applied, copied for each boot. */
  readonly pglite?: string;
  /** Why there is none (the run starts no example). */
  readonly skip?: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    exampleDatabases: ExampleDatabases;
  }
}

/** The template database every migrated example database is made from (`CREATE DATABASE … TEMPLATE`). */
export const TEMPLATE = "fw_example_template";

/**
 * vitest's globalSetup: when the run includes tests that start the example app (it keeps its
 * data in fw/db), prepares their databases once — a PostgreSQL cluster holding a migrated
 * template database (when PostgreSQL is installed), and a migrated embedded (PGlite) directory —
 * so each example process gets a fresh, migrated database in a fraction of a second, through
 * its real `db migrate` command. Stops the cluster and removes both after the run.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (!startsTheExample(project)) {
    project.provide("exampleDatabases", { skip: "no test of this run starts the example" });
    return undefined;
  }
  const main = resolve("example/dist/main.js");
  if (!existsSync(main)) throw new Error("The example is not built (example/dist/main.js is missing): run `npm run build` first, or `npm test`.");
  const bin = postgresBin();
  const pgliteDir = mkdtempSync(join(tmpdir(), "fw-example-pglite-"));
  let cluster: PostgresCluster | undefined;
  const migrate = (url: string) => run(process.execPath, [main, "db", "migrate"], { cwd: resolve("example"), env: { ...process.env, DATABASE_URL: url } });
  try {
    const [postgres] = await Promise.all([
      bin === undefined
        ? undefined
        : (async () => {
            cluster = await startCluster(bin);
            const psql = join(bin, "psql");
            await run(psql, [cluster.url, "-q", "-c", `CREATE DATABASE "${TEMPLATE}"`]);
            await migrate(cluster.url.replace(/\/postgres$/, `/${TEMPLATE}`));
            return { url: cluster.url, psql, template: TEMPLATE };
          })(),
      migrate(`pglite:${pgliteDir}`),
    ]);
    if (bin === undefined) console.log("PostgreSQL not found (no /usr/lib/postgresql/*/bin/initdb, PG_BIN unset): the example's tests run on PGlite alone.");
    project.provide("exampleDatabases", { pglite: pgliteDir, ...(postgres === undefined ? {} : { postgres }) });
  } catch (error) {
    await cluster?.destroy();
    rmSync(pgliteDir, { recursive: true, force: true });
    throw error;
  }
  return async () => {
    await cluster?.destroy();
    rmSync(pgliteDir, { recursive: true, force: true });
  };
}

/** Whether a test file of this run starts the example (it calls `bootExample` or `exampleDatabase`). */
function startsTheExample(project: TestProject): boolean {
  const paths: readonly string[] | undefined = project.vitest.state?.getPaths?.();
  if (paths === undefined) return true;
  return paths.some((path) => /\b(bootExample|exampleDatabase)\(/.test(readFileSync(path, "utf8")));
}
